import { roleCovers } from '@gcm/contract/roles';
import { Link, useParams } from 'react-router';
import { useGames, useInspect, useTeamNames, useTeamRole } from '../api/queries';
import { useTitle } from '../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../components/status';
import { NewGameForm } from './NewGame';

/** `/teams/:teamId`: the games the team owns, and for its admins and owners a form to make one. */
export function TeamGamesPage() {
  const { teamId = '' } = useParams();
  const games = useGames();
  const names = useTeamNames(true);
  const inspect = useInspect(true);
  const teamName = names.data?.find((t) => t.id === teamId)?.name;
  useTitle(teamName === undefined ? 'Games' : `${teamName}: games`);
  const member = inspect.data?.agent.person?.teams.some((t) => t.team_id === teamId);
  const role = useTeamRole(teamId);
  // README "Who may do what": making a game in a team takes its admin role or stronger.
  const mayCreate = roleCovers(role, 'admin');

  let body: React.ReactNode;
  if (games.isPending) body = <Loading what="games" />;
  else if (games.isError) body = <ErrorMessage error={games.error} title="Could not load the games" />;
  else if (inspect.isSuccess && member !== true)
    body = (
      <Empty>
        <p>You are not a member of this team.</p>
      </Empty>
    );
  else {
    const mine = games.data.games.filter((game) => game.team_id === teamId);
    body =
      mine.length === 0 ? (
        <Empty>
          <p>This team has no games yet.</p>
          <p>
            {mayCreate
              ? 'Make the first one below.'
              : 'An admin of the team can make one here, or an operator can give one to the team.'}
          </p>
        </Empty>
      ) : (
        <ul className="cards">
          {mine.map((game) => (
            <li key={game.game_id}>
              <Link to={`/teams/${teamId}/games/${game.game_id}`} className="card">
                <span className="card-title">{game.display_name}</span>
                <span className="mono">{game.name_id}</span>
                <span className="fine">
                  Created <When ts={game.create_ts} />
                </span>
              </Link>
            </li>
          ))}
        </ul>
      );
  }
  return (
    <>
      <p className="eyebrow">{teamName ?? 'Team'}</p>
      <h1>Games</h1>
      {body}
      {mayCreate && games.isSuccess && <NewGameForm teamId={teamId} />}
    </>
  );
}
