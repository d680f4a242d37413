import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, api, unwrap } from '../api/client';
import { LIMITS } from '../api/start';
import { type Account, AccountFields, MAX_PASSWORD, MIN_PASSWORD } from '../components/AccountFields';
import { NarrowPage } from '../components/AuthForm';
import { useTitle } from '../components/Layout';
import { TeamNameFields, useNameAndId } from '../components/NameAndId';
import { ErrorMessage, Loading } from '../components/status';
import './start.css';

/** The link is gone (SETUP_DONE) or not this service's (SETUP_LINK_INVALID): no form, what to do instead. */
function Closed({ error }: { error: unknown }) {
  const done = error instanceof ApiError && error.code === 'SETUP_DONE';
  return (
    <div className="notice error" role="alert">
      <strong>{done ? 'This setup link was already used' : 'This setup link does not work'}</strong>
      <p>{error instanceof Error ? error.message : String(error)}</p>
      <p>
        {done ? (
          <Link to="/sign-in">Sign in</Link>
        ) : (
          'Copy the link again from the service’s start log, or from the first-run-setup file in its data directory.'
        )}
      </p>
    </div>
  );
}

/**
 * `/setup/<secret>`: the first-run setup link the service prints at its first start. Makes the first team
 * and its owner's account, signs the owner in and opens the team. Works once.
 */
export function SetupPage() {
  useTitle('Set up Game Cloud');
  const { secret = '' } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const team = useNameAndId(LIMITS.teamSlug);
  const [account, setAccount] = useState<Account>({ name: '', email: '', password: '' });
  const status = useQuery({
    queryKey: ['setup-status', secret],
    queryFn: () => unwrap(api.POST('/cloud/setup/status', { body: { secret } })),
    retry: false,
    refetchOnWindowFocus: false,
  });
  const setup = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/cloud/setup', {
          body: {
            secret,
            team_name: team.name.trim(),
            team_slug: team.id,
            name: account.name.trim(),
            email: account.email.trim(),
            password: account.password,
          },
        }),
      ),
    onSuccess: (made) => {
      // Everything read signed out goes, but this page's own status: it is still mounted until the navigation
      // renders, and clearing it too would read it again, now 410 (used).
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'setup-status' });
      navigate(`/teams/${made.team_id}`, { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setup.mutate();
  };
  const refusal = setup.error instanceof ApiError ? setup.error : undefined;
  const slugError = refusal?.metadata.field === 'team_slug' ? refusal.message : undefined;
  const gone =
    refusal !== undefined && (refusal.code === 'SETUP_DONE' || refusal.code === 'SETUP_LINK_INVALID');

  let body: React.ReactNode;
  if (status.isPending) body = <Loading what="the setup link" />;
  else if (status.isError) body = <Closed error={status.error} />;
  else if (gone) body = <Closed error={setup.error} />;
  else
    body = (
      <>
        <p className="lead">
          The service has no team yet. Make the first one, with your account as its owner; you can invite the
          rest of the studio from it. This link works once.
        </p>
        <form onSubmit={submit} className="stack">
          <TeamNameFields
            pair={team}
            slugHint={`Up to ${LIMITS.teamSlug} of a-z, 0-9 and -. Proposed from the name; you may change it.`}
            errors={slugError === undefined ? {} : { id: slugError }}
          />
          <AccountFields
            value={account}
            onChange={setAccount}
            nameLabel="Your name"
            passwordHint={`${MIN_PASSWORD} to ${MAX_PASSWORD} characters, hard to guess: a few unrelated words work well.`}
          />
          <div className="actions">
            <button type="submit" disabled={setup.isPending}>
              {setup.isPending ? 'Setting up…' : 'Create team and account'}
            </button>
          </div>
        </form>
        {setup.isError && slugError === undefined && (
          <ErrorMessage error={setup.error} title="Could not set up the service" />
        )}
      </>
    );
  return <NarrowPage title="Set up Game Cloud">{body}</NarrowPage>;
}
