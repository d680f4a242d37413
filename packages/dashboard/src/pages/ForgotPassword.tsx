import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { requestPasswordReset } from '../api/people';
import { Frame, useTitle } from '../components/Layout';
import { ErrorMessage } from '../components/status';
import '../components/people.css';

/**
 * `/forgot-password`: asks the service to mail a reset link. The answer is the same whether or not the email
 * has an account, and so is this page's: it must not tell a stranger who is signed up.
 */
export function ForgotPasswordPage() {
  useTitle('Forgot your password');
  const [email, setEmail] = useState('');
  const ask = useMutation({ mutationFn: (address: string) => requestPasswordReset(address) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate(email.trim());
  };
  return (
    <Frame>
      <div className="narrow">
        <h1>Forgot your password?</h1>
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
            <form onSubmit={submit} className="stack">
              <label>
                Email
                <input
                  type="email"
                  autoComplete="username"
                  required
                  maxLength={254}
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              </label>
              <button type="submit" disabled={ask.isPending}>
                {ask.isPending ? 'Sending…' : 'Send the link'}
              </button>
            </form>
            {ask.isError && <ErrorMessage error={ask.error} title="Could not send the link" />}
          </>
        )}
        <p className="fine">
          Remembered it? <Link to="/sign-in">Sign in</Link>
        </p>
      </div>
    </Frame>
  );
}
