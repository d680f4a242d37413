import { Link } from 'react-router';
import { type NamespaceRollout, type NamespaceSummary, useRollouts } from '../../api/live';
import { OVERVIEW_NAMESPACES_MAX } from '../../api/overview';
import { CopyId } from '../../components/CopyButton';
import { ErrorMessage, When } from '../../components/status';
import { Table } from '../../components/TableWrap';
import './live.css';

interface Shown {
  ns: NamespaceSummary;
  rollout: NamespaceRollout | undefined;
  error: Error | null;
}

/**
 * A rollout worth showing: the service runs lobbies there, some of the current version's failed, or a
 * region of it cannot run any (a swarm region with no ready node: nothing runs there to show otherwise).
 */
function hasRuntimeLobbies(rollout: NamespaceRollout): boolean {
  if (rollout.failed.length > 0 || rollout.problems.length > 0) return true;
  return rollout.groups.some((g) => Object.values(g.lobbies).some((n) => n > 0));
}

/**
 * The overview's rollouts: for each namespace where the service runs lobbies, its current version, its
 * live lobbies per version and state, whether the rollout is complete, and the recent failures. Read again
 * every few seconds; namespaces whose lobbies are all reported by a data plane show nothing.
 */
export function Rollouts(props: {
  gameId: string;
  base: string;
  namespaces: NamespaceSummary[];
  versionNames: ReadonlyMap<string, string>;
}) {
  const { gameId, base, namespaces, versionNames } = props;
  const read = namespaces.slice(0, OVERVIEW_NAMESPACES_MAX);
  const rollouts = useRollouts(
    gameId,
    read.map((ns) => ns.namespace_id),
  );
  const shown = read.flatMap((ns, i): Shown[] => {
    const query = rollouts[i];
    if (query === undefined) return [];
    if (query.data === undefined)
      return query.isError ? [{ ns, rollout: undefined, error: query.error }] : [];
    return hasRuntimeLobbies(query.data) ? [{ ns, rollout: query.data, error: query.error }] : [];
  });
  if (shown.length === 0) return null;

  const version = (versionId: string) => (
    <Link to={`${base}/versions/${versionId}`} title={versionId}>
      {versionNames.get(versionId) ?? 'version'} <span className="mono">{versionId.slice(0, 8)}</span>
    </Link>
  );

  return (
    <section aria-labelledby="rollouts">
      <h2 id="rollouts">Rollouts</h2>
      <p className="fine live-line">
        <span className="live-dot" aria-hidden="true" />
        Live: the lobbies the service runs in each namespace, by version and state.
      </p>
      {shown.map(({ ns, rollout, error }) => {
        const headingId = `rollout-${ns.namespace_id}`;
        return (
          <section key={ns.namespace_id} className="live-card rollout" aria-labelledby={headingId}>
            <h3 id={headingId}>
              {ns.display_name}{' '}
              {rollout !== undefined && (
                <span className={rollout.complete ? 'badge badge-running' : 'badge badge-pending'}>
                  {rollout.complete ? 'Complete' : 'In progress'}
                </span>
              )}
            </h3>
            {error !== null && (
              <ErrorMessage
                error={error}
                title={rollout === undefined ? 'Could not load the rollout' : 'Live updates paused'}
              />
            )}
            {rollout !== undefined && (
              <>
                <p>
                  Current version: {version(rollout.version_id)}.{' '}
                  {rollout.complete
                    ? 'Every game mode and region has its idle lobbies ready.'
                    : 'Waiting for its idle lobbies to be ready.'}
                </p>
                <RegionProblems id={headingId} rollout={rollout} />
                <RolloutGroups id={headingId} rollout={rollout} version={version} />
                <RolloutFailures id={headingId} rollout={rollout} />
              </>
            )}
          </section>
        );
      })}
    </section>
  );
}

/** The current version's regions that cannot run lobbies now, and why: what keeps the rollout waiting. */
function RegionProblems({ id, rollout }: { id: string; rollout: NamespaceRollout }) {
  if (rollout.problems.length === 0) return null;
  const labelId = `${id}-problems`;
  return (
    <div className="notice rollout-problems">
      <h4 id={labelId}>Regions that cannot run lobbies</h4>
      <ul aria-labelledby={labelId}>
        {rollout.problems.map((p) => (
          <li key={p.region_id}>
            <strong>{p.region_id}</strong>: {p.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function RolloutGroups(props: {
  id: string;
  rollout: NamespaceRollout;
  version: (versionId: string) => React.ReactNode;
}) {
  const { id, rollout, version } = props;
  const labelId = `${id}-groups`;
  return (
    <Table
      labelledBy={labelId}
      caption="Lobbies per version, game mode and region"
      className="live-table"
      columns={[
        'Version',
        'Game mode',
        'Region',
        'Starting',
        'Ready, idle',
        'Ready, busy',
        'Closed',
        'Stopping',
        'Idle wanted',
      ]}
    >
      {rollout.groups.map((g) => (
        <tr key={`${g.version_id}/${g.game_mode}/${g.region_id}`}>
          <th scope="row">
            {version(g.version_id)}
            {g.version_id === rollout.version_id && <span className="fine"> (current)</span>}
          </th>
          <td data-label="Game mode">{g.game_mode}</td>
          <td data-label="Region">{g.region_id}</td>
          <td data-label="Starting">{g.lobbies.starting}</td>
          <td data-label="Ready, idle">{g.lobbies.ready_idle}</td>
          <td data-label="Ready, busy">{g.lobbies.ready_busy}</td>
          <td data-label="Closed">{g.lobbies.closed}</td>
          <td data-label="Stopping">{g.lobbies.stopping}</td>
          <td data-label="Idle wanted">{g.idle_wanted}</td>
        </tr>
      ))}
    </Table>
  );
}

function RolloutFailures({ id, rollout }: { id: string; rollout: NamespaceRollout }) {
  const labelId = `${id}-failed`;
  if (rollout.failed.length === 0) return <p className="fine">No lobby of this version has failed.</p>;
  return (
    <>
      <h4 id={labelId}>Recent failures</h4>
      <Table
        labelledBy={labelId}
        className="live-table"
        columns={['Lobby id', 'Game mode', 'Region', 'Exit code', 'Reason', 'Stopped']}
      >
        {rollout.failed.map((f) => (
          <tr key={f.lobby_id}>
            <th scope="row" className="live-nowrap">
              <CopyId id={f.lobby_id} what="lobby id" />
            </th>
            <td data-label="Game mode">{f.game_mode}</td>
            <td data-label="Region">{f.region_id}</td>
            <td data-label="Exit code">{f.exit_code}</td>
            <td data-label="Reason">{f.stop_reason ?? '—'}</td>
            <td data-label="Stopped">
              <When ts={f.stop_ts} />
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
