import { Link, useParams } from 'react-router';
import { useGame, useTeamNames } from '../api/queries';
import { useTitle } from '../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../components/status';

/** `/teams/:teamId/games/:gameId`: a game's namespaces (environments) and versions. */
export function GamePage() {
  const { teamId = '', gameId = '' } = useParams();
  const game = useGame(gameId);
  const names = useTeamNames(true);
  const teamName = names.data?.find((t) => t.id === teamId)?.name ?? 'Team';
  useTitle(game.data?.game.display_name ?? 'Game');

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
  const { display_name, name_id, namespaces, versions, create_ts } = game.data.game;
  const versionName = new Map(versions.map((v) => [v.version_id, v.display_name]));
  return (
    <>
      {crumbs}
      <h1>{display_name}</h1>
      <p className="lead">
        <span className="mono">{name_id}</span> · created <When ts={create_ts} />
      </p>

      <section aria-labelledby="namespaces">
        <h2 id="namespaces">Namespaces</h2>
        {namespaces.length === 0 ? (
          <Empty>
            <p>No namespaces yet.</p>
          </Empty>
        ) : (
          <TableWrap labelledBy="namespaces">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Name id</th>
                  <th scope="col">Running version</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {namespaces.map((ns) => (
                  <tr key={ns.namespace_id}>
                    <th scope="row">{ns.display_name}</th>
                    <td className="mono">{ns.name_id}</td>
                    <td>{versionName.get(ns.version_id) ?? <span className="mono">{ns.version_id}</span>}</td>
                    <td>
                      <When ts={ns.create_ts} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>

      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        {versions.length === 0 ? (
          <Empty>
            <p>No versions yet.</p>
          </Empty>
        ) : (
          <TableWrap labelledBy="versions">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Version id</th>
                  <th scope="col">Running in</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {versions.map((v) => {
                  const running = namespaces.filter((ns) => ns.version_id === v.version_id);
                  return (
                    <tr key={v.version_id}>
                      <th scope="row">{v.display_name}</th>
                      <td className="mono">{v.version_id}</td>
                      <td>{running.length === 0 ? '—' : running.map((ns) => ns.display_name).join(', ')}</td>
                      <td>
                        <When ts={v.create_ts} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
    </>
  );
}

/**
 * A table that may scroll sideways on a narrow screen: focusable, so a keyboard can scroll it, and named by
 * its section's heading for the screen reader that lands on it.
 */
function TableWrap({ labelledBy, children }: { labelledBy: string; children: React.ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1)
    <section className="table-wrap" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  );
}
