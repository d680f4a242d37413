import { Link, Navigate } from 'react-router';
import { useInspect } from '../api/queries';
import { useTitle } from '../components/Layout';
import { Empty, ErrorMessage, Loading } from '../components/status';
import './start.css';

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
        <p>Make one of your own, or ask a team's owner or admin to invite you and open the link they send.</p>
        <p>
          <Link to="/teams/new" className="button">
            Make a team
          </Link>
        </p>
      </Empty>
    </>
  );
}
