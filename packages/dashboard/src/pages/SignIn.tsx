import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { signIn } from '../api/auth';
import { keys, useSession } from '../api/queries';
import { AuthForm, EmailField, NarrowPage } from '../components/AuthForm';
import { useTitle } from '../components/Layout';
import '../components/people.css';

/** Only a path of this app may follow a sign-in: `next` comes from the URL, which anyone can write. */
export function safeNext(next: string | null): string {
  // `//host` and `/\host` are other sites to a browser.
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

export function SignInPage() {
  useTitle('Sign in');
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signedOut = (useLocation().state as { signedOut?: unknown } | null)?.signedOut === true;
  useEffect(() => {
    if (!signedOut) return;
    // Nothing of the last person may show to the next one.
    queryClient.setQueryData(keys.session, null);
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== keys.session[0] });
  }, [signedOut, queryClient]);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const attempt = useMutation({
    mutationFn: () => signIn(email, password),
    onSuccess: async () => {
      queryClient.clear();
      navigate(next, { replace: true });
    },
  });
  if (
    !signedOut &&
    session.data !== undefined &&
    session.data !== null &&
    !attempt.isPending &&
    !attempt.isSuccess
  ) {
    return <Navigate to={next} replace />;
  }
  return (
    <NarrowPage title="Sign in">
      {params.get('reset') === 'done' && (
        <p className="notice ok" role="status">
          Your new password is set. Sign in with it.
        </p>
      )}
      <AuthForm
        onSubmit={() => attempt.mutate()}
        request={attempt}
        words={{ submit: 'Sign in', busy: 'Signing in…', failed: 'Could not sign in' }}
      >
        <EmailField value={email} onChange={setEmail} />
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
      </AuthForm>
      <p className="fine">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p className="fine">
        Invited to a team? <Link to={`/sign-up${window.location.search}`}>Create your account</Link>
      </p>
    </NarrowPage>
  );
}
