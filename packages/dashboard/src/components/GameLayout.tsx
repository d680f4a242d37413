import { Link, NavLink, Outlet, useOutletContext, useParams } from 'react-router';
import type { GameFull } from '../api/client';
import { useGame, useTeamNames } from '../api/queries';
import { ErrorMessage, Loading } from './status';

/** What every page under a game gets from the frame: the game as the service answered it. */
export interface GameContext {
  teamId: string;
  gameId: string;
  game: GameFull;
}

/** The game of the page a `GameLayout` frames. */
export function useGameContext(): GameContext {
  return useOutletContext<GameContext>();
}

/**
 * The tabs of a game, in one place: each is a page with its own address below
 * `/teams/:teamId/games/:gameId`, so a link to any of them can be shared.
 */
export const GAME_TABS = [
  { path: '', label: 'Overview' },
  { path: 'builds', label: 'Builds' },
  { path: 'lobbies', label: 'Lobbies' },
  { path: 'tokens', label: 'Tokens' },
  { path: 'billing', label: 'Billing' },
  { path: 'audit', label: 'Audit log' },
  { path: 'settings', label: 'Settings' },
] as const;

/** `/teams/:teamId/games/:gameId/*`: the game's name, its tabs, and the tab's page. */
export function GameLayout() {
  const { teamId = '', gameId = '' } = useParams();
  const game = useGame(gameId);
  const names = useTeamNames(true);
  const teamName = names.data?.find((t) => t.id === teamId)?.name ?? 'Team';
  const base = `/teams/${teamId}/games/${gameId}`;

  const crumbs = (
    <nav aria-label="Breadcrumb" className="crumbs">
      <Link to={`/teams/${teamId}`}>{teamName}: games</Link>
    </nav>
  );
  if (game.isPending)
    return (
      <>
        {crumbs}
        <Loading what="the game" />
      </>
    );
  if (game.isError)
    return (
      <>
        {crumbs}
        <h1>Game</h1>
        <ErrorMessage error={game.error} title="Could not load the game" />
      </>
    );
  const context: GameContext = { teamId, gameId, game: game.data.game };
  return (
    <>
      {crumbs}
      <nav aria-label="Game" className="tabs">
        <ul>
          {GAME_TABS.map((tab) => (
            <li key={tab.path}>
              <NavLink to={tab.path === '' ? base : `${base}/${tab.path}`} end={tab.path === ''}>
                {tab.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet context={context} />
    </>
  );
}
