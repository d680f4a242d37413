import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { requestPasswordReset } from '../api/people';
import { AuthForm, EmailField, NarrowPage } from '../components/AuthForm';
import { useTitle } from '../components/Layout';
import '../components/people.css';

/**
 * `/forgot-password`: asks the service to mail a reset link. The answer is the same whether or not the email
 * has an account, and so is this page's: it must not tell a stranger who is signed up.
 */
export function ForgotPasswordPage() {
  useTitle('Forgot your password');
  const [email, setEmail] = useState('');
  const ask = useMutation({ mutationFn: (address: string) => requestPasswordReset(address) });
  return (
    <NarrowPage title="Forgot your password?">
      {ask.isSuccess ? (
        <div className="notice ok" role="status">
          <strong>Check your mail</strong>
          <p>
            If an account exists for {ask.variables}, we sent it a link to choose a new password. The link
            works for an hour.
          </p>
        </div>
      ) : (
        <>
          <p className="lead">Enter your account's email: we mail you a link to choose a new password.</p>
          <AuthForm
            onSubmit={() => ask.mutate(email.trim())}
            request={ask}
            words={{ submit: 'Send the link', busy: 'Sending…', failed: 'Could not send the link' }}
          >
            <EmailField value={email} onChange={setEmail} maxLength={254} />
          </AuthForm>
        </>
      )}
      <p className="fine">
        Remembered it? <Link to="/sign-in">Sign in</Link>
      </p>
    </NarrowPage>
  );
}
