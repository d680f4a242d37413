import { Link, useParams } from 'react-router';
import { type LobbyResourceSample, useLobby, useLobbyResources } from '../../../api/lobby-output';
import { CopyId } from '../../../components/CopyButton';
import { useGameContext } from '../../../components/GameLayout';
import { useTitle } from '../../../components/Layout';
import { ErrorMessage, Loading, When } from '../../../components/status';
import { StatusBadge } from '../Lobbies';
import { LogView } from './LogView';
import './lobby.css';

/** `/teams/:teamId/games/:gameId/namespaces/:namespaceId/lobbies/:lobbyId`: one lobby, its life and output. */
export function LobbyPage() {
  const { teamId, gameId, game } = useGameContext();
  const { namespaceId = '', lobbyId = '' } = useParams();
  useTitle(`${game.display_name}: lobby ${lobbyId.slice(0, 8)}`);
  const lobby = useLobby(gameId, namespaceId, lobbyId);
  const running = lobby.data !== undefined && lobby.data.lobby.status.stopped === undefined;
  const namespace = game.namespaces.find((ns) => ns.namespace_id === namespaceId);
  const back = `/teams/${teamId}/games/${gameId}/lobbies${
    namespace === undefined ? '' : `?${new URLSearchParams({ namespace: namespace.name_id })}`
  }`;

  return (
    <>
      <p className="fine">
        <Link to={back}>← Lobbies</Link>
      </p>
      <h1>
        Lobby <span className="mono">{lobbyId.slice(0, 8)}</span>
      </h1>
      {lobby.isPending ? (
        <Loading what="the lobby" />
      ) : lobby.isError && lobby.data === undefined ? (
        <ErrorMessage error={lobby.error} title="Could not load the lobby" />
      ) : (
        lobby.data !== undefined && <Lifecycle lobby={lobby.data.lobby} />
      )}
      {lobby.data !== undefined && <Resources gameId={gameId} lobbyId={lobbyId} running={running} />}
      <LogView gameId={gameId} lobbyId={lobbyId} />
    </>
  );
}

type Lobby = NonNullable<ReturnType<typeof useLobby>['data']>['lobby'];

function Lifecycle({ lobby }: { lobby: Lobby }) {
  const stopped = lobby.status.stopped;
  const { player_count, max_players } = lobby.status.running;
  return (
    <section aria-labelledby="lobby-life">
      <h2 id="lobby-life">Lifecycle</h2>
      <dl className="lobby-facts">
        <dt>Lobby id</dt>
        <dd>
          <CopyId id={lobby.lobby_id} what="lobby id" />
        </dd>
        <dt>Game mode · region</dt>
        <dd>
          {lobby.lobby_group_name_id} · {lobby.region_id}
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge lobby={lobby} />
        </dd>
        <dt>Created</dt>
        <dd>
          <When ts={lobby.create_ts} />
        </dd>
        <dt>Ready</dt>
        <dd>{lobby.ready_ts === undefined ? '—' : <When ts={lobby.ready_ts} />}</dd>
        {stopped === undefined && player_count !== undefined && (
          <>
            <dt>Players</dt>
            <dd>{max_players === undefined ? player_count : `${player_count} / ${max_players}`}</dd>
          </>
        )}
        {stopped !== undefined && (
          <>
            <dt>Stopped</dt>
            <dd>
              <When ts={stopped.stop_ts} />
            </dd>
            <dt>Exit code</dt>
            <dd>{stopped.exit_code}</dd>
            <dt>Stop reason</dt>
            <dd>{stopped.stop_reason ?? '—'}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

const MIB = 1024 * 1024;
const bytes = (n: number) => (n >= MIB ? `${(n / MIB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

function Resources({ gameId, lobbyId, running }: { gameId: string; lobbyId: string; running: boolean }) {
  const resources = useLobbyResources(gameId, lobbyId, running);
  // A reported lobby, or a service that samples nothing, has no resources to show.
  if (resources.isPending || resources.isError || resources.data === null) return null;
  const latest: LobbyResourceSample | undefined = resources.data.latest;
  return (
    <section aria-labelledby="lobby-resources">
      <h2 id="lobby-resources">Resource use</h2>
      {latest === undefined ? (
        <p className="fine">No samples yet.</p>
      ) : (
        <dl className="lobby-facts">
          <dt>Sampled</dt>
          <dd>
            <When ts={latest.ts} />
          </dd>
          <dt>CPU</dt>
          <dd>{latest.cpu_cores.toFixed(2)} cores</dd>
          <dt>Memory</dt>
          <dd>
            {bytes(latest.memory_bytes)} of {bytes(latest.memory_limit_bytes)}
          </dd>
          <dt>Network</dt>
          <dd>
            {bytes(latest.rx_bytes)} in · {bytes(latest.tx_bytes)} out
          </dd>
        </dl>
      )}
    </section>
  );
}
