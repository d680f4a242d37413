import { useMutation } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { signOut } from '../api/auth';
import { useInspect, useSession, useTeamNames } from '../api/queries';
import { PeopleNav } from './PeopleNav';
import { ErrorMessage, Loading } from './status';

/** The frame of the signed-in pages: who is signed in, which team, sign out; the page below. */
export function SignedInLayout() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Frame>{<Loading what="your session" />}</Frame>;
  if (session.isError) return <Frame>{<ErrorMessage error={session.error} />}</Frame>;
  if (session.data === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <Frame header={<SessionBar email={session.data.user.email} />}>
      <Outlet />
    </Frame>
  );
}

/** The page frame shared by every page: a skip link, the header, the main landmark. */
export function Frame({ header, children }: { header?: React.ReactNode; children: React.ReactNode }) {
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="bar">
        <Link to="/" className="brand">
          Game Cloud
        </Link>
        {header}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function SessionBar({ email }: { email: string }) {
  const navigate = useNavigate();
  const out = useMutation({
    mutationFn: signOut,
    onSuccess: () => {
      // The sign-in page drops what this person read once these pages are gone: cleared under them, they
      // would fetch it all again as nobody (401s).
      navigate('/sign-in', { replace: true, state: { signedOut: true } });
    },
  });
  return (
    <div className="session">
      <PeopleNav />
      <TeamSwitcher />
      <span className="who" title={email}>
        {email}
      </span>
      <button type="button" className="secondary" onClick={() => out.mutate()} disabled={out.isPending}>
        Sign out
      </button>
      {out.isError && <ErrorMessage error={out.error} title="Could not sign out" />}
    </div>
  );
}

/** The switcher's last option: not a team but `/teams/new`, the page that makes one. */
const NEW_TEAM = 'new';

/** The person's teams (ids and roles from the service, names from better-auth); choosing one opens its games. */
function TeamSwitcher() {
  const { teamId } = useParams();
  const navigate = useNavigate();
  const inspect = useInspect(true);
  const names = useTeamNames(true);
  const teams = inspect.data?.agent.person?.teams ?? [];
  const nameOf = (id: string) => names.data?.find((t) => t.id === id)?.name ?? 'Team';
  if (inspect.isPending || teams.length === 0) return null;
  return (
    <label className="switcher">
      <span className="visually-hidden">Team</span>
      <select
        value={teamId ?? ''}
        onChange={(event) => navigate(`/teams/${event.target.value}`)}
        aria-label="Team"
      >
        {teamId === undefined && <option value="">Choose a team</option>}
        {teams.map((team) => (
          <option key={team.team_id} value={team.team_id}>
            {nameOf(team.team_id)} ({team.role})
          </option>
        ))}
        <option value={NEW_TEAM}>New team…</option>
      </select>
    </label>
  );
}

/** Sets the document title, so tabs, history and screen readers name the page. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Game Cloud`;
  }, [title]);
}
