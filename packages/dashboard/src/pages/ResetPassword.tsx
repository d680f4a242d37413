import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { resetPassword } from '../api/people';
import { MAX_PASSWORD, MIN_PASSWORD, NewPasswordField } from '../components/AccountFields';
import { AuthForm, NarrowPage } from '../components/AuthForm';
import { useTitle } from '../components/Layout';
import '../components/people.css';

/** What is wrong with the two passwords before the service is asked, or null. */
function problemWith(password: string, again: string): string | null {
  if (password.length < MIN_PASSWORD) return `The password must be at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `The password must be at most ${MAX_PASSWORD} characters.`;
  if (password !== again) return 'The two passwords differ.';
  return null;
}

/**
 * `/reset-password?token=…`: the page the mailed link opens. Sets the new password, which ends every session
 * of the account, then sends the person to sign in. A used or expired token gets the service's refusal.
 */
export function ResetPasswordPage() {
  useTitle('Choose a new password');
  const [params] = useSearchParams();
  const token = params.get('token');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: (t: string) => resetPassword(t, password),
    onSuccess: () => {
      // Every session of the account ended with the reset, this browser's too.
      queryClient.clear();
      navigate('/sign-in?reset=done', { replace: true });
    },
  });
  const submit = () => {
    const found = problemWith(password, again);
    setProblem(found);
    if (found === null && token !== null) reset.mutate(token);
  };
  const askAgain = (
    <p className="fine">
      Link expired or used? <Link to="/forgot-password">Ask for a new link</Link>
    </p>
  );

  if (token === null || token === '' || params.get('error') !== null)
    return (
      <NarrowPage title="Choose a new password">
        <div className="notice error" role="alert">
          <strong>This link has no valid reset token</strong>
          <p>Open the link from the mail as it is, or ask for a new one.</p>
        </div>
        <p>
          <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      </NarrowPage>
    );
  return (
    <NarrowPage title="Choose a new password">
      <p className="lead">Setting it signs you out everywhere; then sign in with the new one.</p>
      <AuthForm
        onSubmit={submit}
        request={reset}
        words={{ submit: 'Set the new password', busy: 'Setting…', failed: 'Could not set the password' }}
        noValidate
      >
        <NewPasswordField
          label="New password"
          describedBy="password-hint"
          invalid={problem !== null}
          value={password}
          onChange={setPassword}
        />
        <label>
          New password again
          <input
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={problem !== null}
            value={again}
            onChange={(e) => setAgain(e.target.value)}
          />
        </label>
        <p id="password-hint" className="fine">
          {MIN_PASSWORD} to {MAX_PASSWORD} characters.
        </p>
        {problem !== null && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
      </AuthForm>
      {askAgain}
    </NarrowPage>
  );
}
