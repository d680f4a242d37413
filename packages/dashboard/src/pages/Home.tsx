import { Navigate } from 'react-router';
import { useInspect } from '../api/queries';
import { useTitle } from '../components/Layout';
import { Empty, ErrorMessage, Loading } from '../components/status';

/** `/`: the first team's games, or what to do when the person is in no team yet. */
export function HomePage() {
  useTitle('Home');
  const inspect = useInspect(true);
  if (inspect.isPending) return <Loading what="your teams" />;
  if (inspect.isError) return <ErrorMessage error={inspect.error} />;
  const first = inspect.data.agent.person?.teams[0];
  if (first !== undefined) return <Navigate to={`/teams/${first.team_id}`} replace />;
  return (
    <>
      <h1>Welcome</h1>
      <Empty>
        <p>You are not in a team yet.</p>
        <p>Ask a team's owner or admin to invite you, then open the invitation link they send.</p>
      </Empty>
    </>
  );
}
