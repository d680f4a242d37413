import { roleCovers } from '@gcm/contract/roles';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  type LiveLobby,
  LOBBY_PAGE_SIZE,
  type LobbySummary,
  lobbyCursorOf,
  useLiveLobbies,
  useLobbies,
  useStopLobby,
} from '../../api/live';
import { useTeamRole } from '../../api/queries';
import { ConfirmStep } from '../../components/ConfirmStep';
import { CopyId } from '../../components/CopyButton';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { Pager } from '../../components/Pager';
import { Empty, ErrorMessage, Loading, When } from '../../components/status';
import { Table } from '../../components/TableWrap';
import './live.css';

/** `/teams/:teamId/games/:gameId/lobbies?namespace=&cursor=`: a namespace's lobby log, newest first. */
export function LobbiesPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(`${game.display_name}: lobbies`);
  const canStop = roleCovers(useTeamRole(teamId), 'member');
  const [params, setParams] = useSearchParams();
  const namespaces = game.namespaces;
  const asked = params.get('namespace');
  // The namespace by name_id (what people share) or by id; the game's first one by default.
  const namespace =
    asked === null
      ? namespaces[0]
      : namespaces.find((ns) => ns.name_id === asked || ns.namespace_id === asked);
  const cursor = params.get('cursor') ?? undefined;
  const selectId = useId();

  const choose = (nameId: string) => {
    const next = new URLSearchParams(params);
    next.set('namespace', nameId);
    next.delete('cursor');
    setParams(next);
  };

  let body: React.ReactNode;
  if (namespaces.length === 0)
    body = (
      <Empty>
        <p>This game has no namespaces yet, so no lobbies.</p>
      </Empty>
    );
  else if (namespace === undefined)
    body = (
      <Empty>
        <p>
          This game has no namespace <span className="mono">{asked}</span>. Choose one above.
        </p>
      </Empty>
    );
  else
    body = (
      <>
        {/* Only the service's own lobbies are live here: a data plane's reported ones have no players. */}
        {game.runtime !== 'none' && (
          <LiveLobbies key={namespace.namespace_id} gameId={gameId} namespaceId={namespace.namespace_id} />
        )}
        <LobbyLog
          key={`${namespace.namespace_id}/${cursor ?? ''}`}
          gameId={gameId}
          gameBase={`/teams/${teamId}/games/${gameId}`}
          versionNames={new Map(game.versions.map((v) => [v.version_id, v.display_name]))}
          canStop={canStop}
          namespaceId={namespace.namespace_id}
          namespaceParam={namespace.name_id}
          cursor={cursor}
          titled={game.runtime !== 'none'}
        />
      </>
    );

  return (
    <>
      <h1>Lobbies</h1>
      <p className="lead">
        The lobby log of a namespace, newest first: the lobbies the hosting data plane reports, and those the
        service runs itself with their live state and players.
      </p>
      {namespaces.length > 0 && (
        <div className="live-toolbar">
          <label htmlFor={selectId}>Namespace</label>
          <select
            id={selectId}
            value={namespace?.name_id ?? ''}
            onChange={(event) => choose(event.target.value)}
          >
            {namespace === undefined && <option value="">Choose a namespace</option>}
            {namespaces.map((ns) => (
              <option key={ns.namespace_id} value={ns.name_id}>
                {ns.display_name} ({ns.name_id})
              </option>
            ))}
          </select>
        </div>
      )}
      {body}
    </>
  );
}

const LIVE_STATE_WORDS = { starting: 'Starting', idle: 'Idle', ready: 'Ready', closed: 'Closed' } as const;

function liveStateOf(lobby: LiveLobby): keyof typeof LIVE_STATE_WORDS {
  if (!lobby.is_ready) return 'starting';
  if (lobby.is_closed) return 'closed';
  return lobby.is_idle ? 'idle' : 'ready';
}

/**
 * The namespace's starting and ready lobbies with their players as they are now, whatever page of the log
 * they are on: read again every few seconds while the tab is visible.
 */
function LiveLobbies({ gameId, namespaceId }: { gameId: string; namespaceId: string }) {
  const live = useLiveLobbies(gameId, namespaceId);
  let content: React.ReactNode;
  if (live.isPending) content = <Loading what="live lobbies" />;
  else if (live.isError && live.data === undefined)
    content = <ErrorMessage error={live.error} title="Could not load the live lobbies" />;
  else {
    const rows = live.data?.lobbies ?? [];
    content = (
      <>
        {live.isError && (
          <ErrorMessage error={live.error} title="Live updates paused; trying again shortly" />
        )}
        {rows.length === 0 ? (
          <p className="fine">No lobby of this namespace is starting or ready.</p>
        ) : (
          <Table
            labelledBy="live-lobbies"
            className="live-table"
            columns={['Lobby id', 'Game mode', 'Region', 'State', 'Players', 'Connected']}
          >
            {rows.map((lobby) => {
              const state = liveStateOf(lobby);
              return (
                <tr key={lobby.lobby_id}>
                  <th scope="row" className="live-nowrap">
                    <CopyId id={lobby.lobby_id} what="lobby id" />
                  </th>
                  <td data-label="Game mode">{lobby.lobby_group_name_id}</td>
                  <td data-label="Region">{lobby.region_id}</td>
                  <td data-label="State">
                    <span className={state === 'starting' ? 'badge badge-pending' : 'badge badge-running'}>
                      {LIVE_STATE_WORDS[state]}
                    </span>
                    {lobby.is_outdated && ' · older version'}
                  </td>
                  <td className="live-nowrap" data-label="Players">
                    {`${lobby.total_player_count} / ${lobby.max_players_normal}`}
                  </td>
                  <td className="live-nowrap" data-label="Connected">
                    {lobby.registered_player_count}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
        {live.data?.truncated === true && (
          <p className="fine">The {rows.length} newest are shown; the namespace has more live lobbies.</p>
        )}
      </>
    );
  }
  return (
    <section aria-labelledby="live-lobbies">
      <h2 id="live-lobbies">Live now</h2>
      <p className="fine live-line">
        <span className="live-dot" aria-hidden="true" />
        Starting and ready lobbies with their players (holding a slot / most), updated every few seconds.
      </p>
      {content}
    </section>
  );
}

/** A runtime lobby's move between starting, ready, closed and stopping is a status change too. */
function statusKey(lobby: LobbySummary): string {
  const stopped = lobby.status.stopped;
  return stopped === undefined
    ? `running:${lobby.status.running.state ?? ''}`
    : `stopped:${stopped.exit_code}:${stopped.failed}`;
}

/** The version of a lobby the service runs, running or stopped; a reported lobby names none. */
const runtimeVersion = (lobby: LobbySummary) =>
  lobby.status.running.version_id ?? lobby.status.stopped?.version_id;

/** A runtime lobby that has not been asked to stop yet: what the Stop button is for. */
const stoppable = (lobby: LobbySummary) =>
  lobby.status.stopped === undefined &&
  lobby.status.running.state !== undefined &&
  lobby.status.running.state !== 'stopping';

/**
 * What changed between two reads of the newest page: lobbies not seen before, and lobbies whose status
 * moved. Kept per mount, so the first read announces nothing.
 */
function useChanges(lobbies: LobbySummary[] | undefined, live: boolean) {
  const seen = useRef<Map<string, string> | null>(null);
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const [note, setNote] = useState('');
  useEffect(() => {
    if (lobbies === undefined) return;
    const before = seen.current;
    seen.current = new Map(lobbies.map((l) => [l.lobby_id, statusKey(l)]));
    if (before === null || !live) return;
    const added = lobbies.filter((l) => !before.has(l.lobby_id));
    const moved = lobbies.filter((l) => before.has(l.lobby_id) && before.get(l.lobby_id) !== statusKey(l));
    if (added.length === 0 && moved.length === 0) return;
    setFresh(new Set(added.map((l) => l.lobby_id)));
    const parts = [];
    if (added.length > 0) parts.push(`${added.length} new ${added.length === 1 ? 'lobby' : 'lobbies'}`);
    if (moved.length > 0)
      parts.push(`${moved.length} ${moved.length === 1 ? 'lobby' : 'lobbies'} changed status`);
    setNote(`${parts.join(', ')} at ${new Date().toLocaleTimeString()}`);
  }, [lobbies, live]);
  return { fresh, note };
}

function LobbyLog(props: {
  gameId: string;
  gameBase: string;
  versionNames: ReadonlyMap<string, string>;
  canStop: boolean;
  namespaceId: string;
  namespaceParam: string;
  cursor: string | undefined;
  /** Its heading shows, where the live lobbies stand above it. */
  titled: boolean;
}) {
  const { gameId, gameBase, versionNames, canStop, namespaceId, namespaceParam, cursor, titled } = props;
  const live = cursor === undefined;
  const lobbies = useLobbies(gameId, namespaceId, cursor);
  const { fresh, note } = useChanges(lobbies.data?.lobbies, live);

  const newest = `?${new URLSearchParams({ namespace: namespaceParam })}`;
  const liveLine = (
    <p className="fine live-line">
      {live ? (
        <>
          <span className="live-dot" aria-hidden="true" />
          Live: new lobbies and status changes show as they are reported.{' '}
        </>
      ) : (
        <>An older page: it does not update. The newest page does. </>
      )}
      <span aria-live="polite" className="live-note">
        {note}
      </span>
    </p>
  );

  if (lobbies.isPending) return <Loading what="lobbies" />;
  if (lobbies.isError && lobbies.data === undefined)
    return <ErrorMessage error={lobbies.error} title="Could not load the lobbies" />;
  const rows = lobbies.data?.lobbies ?? [];
  // Reported lobbies have no players, version, stop reason or Stop: those columns show only where the
  // service runs (or ran) some.
  const runtime = rows.some((l) => l.status.running.state !== undefined || runtimeVersion(l) !== undefined);
  const actions = canStop && runtime;
  const last = rows[rows.length - 1];
  const older =
    last !== undefined && rows.length >= LOBBY_PAGE_SIZE
      ? `?${new URLSearchParams({ namespace: namespaceParam, cursor: lobbyCursorOf(last) })}`
      : undefined;

  // Under Live now the log's heading shows, above its own live line; alone on the page it is implied.
  const heading = (
    <h2 id="lobby-log" className={titled ? undefined : 'visually-hidden'}>
      Lobby log
    </h2>
  );
  return (
    <>
      {titled && heading}
      {liveLine}
      {lobbies.isError && (
        <ErrorMessage error={lobbies.error} title="Live updates paused; trying again shortly" />
      )}
      {rows.length === 0 ? (
        <Empty>
          <p>{live ? 'No lobbies in this namespace yet.' : 'No older lobbies.'}</p>
          {live && <p>They show here as soon as the hosting data plane reports them.</p>}
        </Empty>
      ) : (
        <section aria-labelledby="lobby-log">
          {!titled && heading}
          <Table
            labelledBy="lobby-log"
            className="live-table"
            columns={
              runtime
                ? [
                    'Lobby id',
                    'Game mode',
                    'Region',
                    'Created',
                    'Status',
                    'Players',
                    'Version',
                    'Stop reason',
                    'Ran for',
                  ]
                : ['Lobby id', 'Game mode', 'Region', 'Created', 'Status', 'Ran for']
            }
            actions={actions}
          >
            {rows.map((lobby) => (
              <tr key={lobby.lobby_id} className={fresh.has(lobby.lobby_id) ? 'live-fresh' : undefined}>
                <th scope="row" className="live-nowrap">
                  <CopyId id={lobby.lobby_id} what="lobby id" />{' '}
                  <Link
                    to={`${gameBase}/namespaces/${namespaceId}/lobbies/${lobby.lobby_id}`}
                    aria-label={`Open lobby ${lobby.lobby_id.slice(0, 8)}: its lifecycle and output`}
                  >
                    Open
                  </Link>
                </th>
                <td data-label="Game mode">{lobby.lobby_group_name_id}</td>
                <td data-label="Region">{lobby.region_id}</td>
                <td data-label="Created">
                  <When ts={lobby.create_ts} />
                </td>
                <td data-label="Status">
                  <StatusBadge lobby={lobby} />
                </td>
                {runtime && (
                  <>
                    <td className="live-nowrap" data-label="Players">
                      {players(lobby)}
                    </td>
                    <td data-label="Version">
                      <VersionLink lobby={lobby} base={gameBase} names={versionNames} />
                    </td>
                    <td className="live-reason" data-label="Stop reason">
                      {lobby.status.stopped?.stop_reason ?? '—'}
                    </td>
                  </>
                )}
                <td className="live-nowrap" data-label="Ran for">
                  {ranFor(lobby)}
                </td>
                {actions && (
                  <td>
                    <StopLobby gameId={gameId} lobby={lobby} />
                  </td>
                )}
              </tr>
            ))}
          </Table>
        </section>
      )}
      {(!live || older !== undefined) && (
        <Pager
          label="Lobby pages"
          className="live-pager"
          newest={live ? undefined : { to: newest, text: 'Newest' }}
          older={older === undefined ? undefined : { to: older, text: 'Older' }}
        />
      )}
    </>
  );
}

const STATE_WORDS = { starting: 'Starting', ready: 'Ready', closed: 'Closed', stopping: 'Stopping' } as const;

/**
 * The status in words (the colour only repeats it): a runtime lobby's live state, running for a reported
 * one, or stopped with the exit code (and failed).
 */
export function StatusBadge({ lobby }: { lobby: LobbySummary }) {
  const stopped = lobby.status.stopped;
  const state = lobby.status.running.state;
  if (stopped === undefined && state !== undefined)
    return (
      <span className={state === 'ready' ? 'badge badge-running' : 'badge badge-pending'}>
        {STATE_WORDS[state]}
      </span>
    );
  if (stopped === undefined) return <span className="badge badge-running">Running</span>;
  return (
    <span className={stopped.failed ? 'badge badge-failed' : 'badge badge-stopped'}>
      Stopped · exit {stopped.exit_code}
      {stopped.failed && ' · failed'}
    </span>
  );
}

/** `n / max` for a running runtime lobby; a reported or stopped one has no live count. */
function players(lobby: LobbySummary): string {
  const { player_count, max_players } = lobby.status.running;
  if (lobby.status.stopped !== undefined || player_count === undefined) return '—';
  return max_players === undefined ? String(player_count) : `${player_count} / ${max_players}`;
}

/** The version a runtime lobby runs or ran, by its short id (the full id and name on hover), to its page. */
function VersionLink(props: { lobby: LobbySummary; base: string; names: ReadonlyMap<string, string> }) {
  const versionId = runtimeVersion(props.lobby);
  if (versionId === undefined) return <>—</>;
  const name = props.names.get(versionId);
  return (
    <Link
      className="mono"
      to={`${props.base}/versions/${versionId}`}
      title={name === undefined ? versionId : `${name} (${versionId})`}
    >
      {versionId.slice(0, 8)}
    </Link>
  );
}

/**
 * Stop for a runtime lobby, with a confirm step; the answer stays in the row (the live view then shows it
 * stopping, and stopped once its container exited).
 */
function StopLobby({ gameId, lobby }: { gameId: string; lobby: LobbySummary }) {
  const stop = useStopLobby(gameId);
  const short = lobby.lobby_id.slice(0, 8);
  if (stop.isError) return <ErrorMessage error={stop.error} title={`Could not stop lobby ${short}`} />;
  if (stop.isSuccess)
    return (
      <span role="status">
        {stop.data.did_remove ? 'Stop requested.' : 'It was stopping or stopped already.'}
      </span>
    );
  if (!stoppable(lobby)) return null;
  return (
    <ConfirmStep
      action="Stop"
      actionLabel={`Stop lobby ${short}`}
      question="Stop it? Its players are disconnected."
      confirm="Yes, stop"
      confirming="Stopping…"
      pending={stop.isPending}
      onConfirm={() => stop.mutate(lobby.lobby_id)}
    />
  );
}

/** How long a stopped lobby ran, from its start (or creation) to its stop; a running one is still going. */
function ranFor(lobby: LobbySummary): string {
  const stopped = lobby.status.stopped;
  if (stopped === undefined) return '—';
  const ms = Date.parse(stopped.stop_ts) - Date.parse(lobby.start_ts ?? lobby.create_ts);
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
