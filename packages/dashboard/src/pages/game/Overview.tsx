import { Link } from 'react-router';
import { useCanWrite } from '../../api/versions';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Empty, When } from '../../components/status';
import { TableWrap } from '../../components/TableWrap';
import { NewNamespaceForm } from './versions/NewNamespaceForm';

/** `/teams/:teamId/games/:gameId`: a game's namespaces (environments) and versions. */
export function GameOverviewPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(game.display_name);
  const write = useCanWrite(teamId);
  const base = `/teams/${teamId}/games/${gameId}`;

  const { display_name, name_id, namespaces, versions, create_ts } = game;
  const versionName = new Map(versions.map((v) => [v.version_id, v.display_name]));
  return (
    <>
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
                    <td>
                      <Link to={`${base}/versions/${ns.version_id}`}>
                        {versionName.get(ns.version_id) ?? <span className="mono">{ns.version_id}</span>}
                      </Link>
                    </td>
                    <td>
                      <When ts={ns.create_ts} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {write.allowed && <NewNamespaceForm />}
      </section>

      <section aria-labelledby="versions">
        <div className="section-head">
          <h2 id="versions">Versions</h2>
          {write.allowed && <Link to={`${base}/versions/new`}>New version</Link>}
        </div>
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
                      <th scope="row">
                        <Link to={`${base}/versions/${v.version_id}`}>{v.display_name}</Link>
                      </th>
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
