import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { acceptInvitation, signUp } from '../api/auth';
import { Frame, useTitle } from '../components/Layout';
import { ErrorMessage } from '../components/status';

/** README "People and teams": passwords are 10–128 characters, names at most 100. */
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 128;

/**
 * `/sign-up?invitation=<id>&email=<address>`: make an account and, when the link names an invitation,
 * accept it at once. The service allows sign-up to invited emails only unless GCM_SIGNUP says otherwise;
 * its refusal is shown as it words it.
 */
export function SignUpPage() {
  useTitle('Create your account');
  const [params] = useSearchParams();
  const invitation = params.get('invitation');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const attempt = useMutation({
    mutationFn: async () => {
      await signUp(name, email, password);
      if (invitation !== null) await acceptInvitation(invitation);
    },
    onSuccess: () => {
      queryClient.clear();
      navigate('/', { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    attempt.mutate();
  };
  return (
    <Frame>
      <div className="narrow">
        <h1>Create your account</h1>
        {invitation !== null && <p className="lead">You were invited to a team: your account joins it.</p>}
        <form onSubmit={submit} className="stack">
          <label>
            Name
            <input
              autoComplete="name"
              required
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </label>
          <label>
            Email
            <input
              type="email"
              autoComplete="email"
              required
              maxLength={254}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="new-password"
              required
              minLength={MIN_PASSWORD}
              maxLength={MAX_PASSWORD}
              aria-describedby="password-hint"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          <p id="password-hint" className="fine">
            {MIN_PASSWORD} to {MAX_PASSWORD} characters.
          </p>
          <button type="submit" disabled={attempt.isPending}>
            {attempt.isPending ? 'Creating…' : 'Create account'}
          </button>
        </form>
        {attempt.isError && <ErrorMessage error={attempt.error} title="Could not create the account" />}
        <p className="fine">
          Have an account? <Link to="/sign-in">Sign in</Link>
        </p>
      </div>
    </Frame>
  );
}
