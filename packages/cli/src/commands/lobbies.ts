import { setTimeout as sleep } from 'node:timers/promises';
import { formatBytes } from '@gcm/contract/format';
import { type Schema, unwrap } from '@gcm/sdk';
import type { Command } from 'commander';
import { type Context, UsageError, UUID } from '../context.js';
import { note, output, printJson, printLine, table } from '../output.js';
import { terminalSafe } from '../terminal-text.js';
import { registerLobbyLogs } from './lobby-logs.js';
import { withContext } from './shared.js';

type LobbySummary = Schema<'LobbySummary'>;
type LiveLobbies = Schema<'GetAnalyticsMatchmakerLiveResponse'>;
type LiveLobby = LiveLobbies['lobbies'][number];
type LobbyResources = Schema<'LobbyResources'>;

function statusOf(lobby: LobbySummary): string {
  // A lobby the service runs says its live state itself (starting, ready, closed, stopping).
  const live = lobby.status.running.state;
  if (live !== undefined) return live;
  const stopped = lobby.status.stopped;
  if (stopped !== undefined)
    return stopped.failed ? `failed (${stopped.exit_code})` : `stopped (${stopped.exit_code})`;
  if (lobby.ready_ts !== undefined) return 'ready';
  if (lobby.start_ts !== undefined) return 'started';
  return 'created';
}

/** Players of a lobby the service runs, as `count/max`; `-` for a reported or stopped lobby. */
function playersOf(lobby: LobbySummary): string {
  const { player_count: count, max_players: max } = lobby.status.running;
  return count === undefined ? '-' : `${count}/${max ?? '?'}`;
}

const HEADERS = ['LOBBY ID', 'GAME MODE', 'REGION', 'CREATED', 'PLAYERS', 'STATUS'];
const rowOf = (l: LobbySummary) => [
  l.lobby_id,
  l.lobby_group_name_id,
  l.region_id,
  l.create_ts,
  playersOf(l),
  statusOf(l),
];
/** What --follow compares: a change of status or of players is printed. */
const changeKey = (l: LobbySummary) => `${statusOf(l)} ${playersOf(l)}`;

/** A live lobby's state in a word: starting, idle (ready, no players), ready, closed; and outdated. */
function liveStateOf(l: LiveLobby): string {
  const state = !l.is_ready ? 'starting' : l.is_closed ? 'closed' : l.is_idle ? 'idle' : 'ready';
  return l.is_outdated ? `${state} (outdated)` : state;
}

const LIVE_HEADERS = ['LOBBY ID', 'GAME MODE', 'REGION', 'CREATED', 'PLAYERS', 'CONNECTED', 'STATE'];
const liveRowOf = (l: LiveLobby) => [
  l.lobby_id,
  l.lobby_group_name_id,
  l.region_id,
  l.create_ts,
  `${l.total_player_count}/${l.max_players_normal}`,
  String(l.registered_player_count),
  liveStateOf(l),
];

function liveTable(answer: LiveLobbies): string {
  const rows = table(LIVE_HEADERS, answer.lobbies.map(liveRowOf));
  const more = answer.truncated
    ? `\n(the ${answer.lobbies.length} newest shown; the namespace has more)`
    : '';
  return answer.lobbies.length === 0 ? 'No live lobbies.' : `${rows}${more}`;
}

/**
 * Runs `tick` every `interval` ms until SIGINT or SIGTERM, which end the wait or the request under way
 * at once: following ends there, and the command exits 0.
 */
async function everyUntilInterrupted(interval: number, tick: (signal: AbortSignal) => Promise<void>) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  while (!stop.signal.aborted) {
    // Aborted, the wait rejects at once; its listener goes with it (one per wait would pile up).
    await sleep(interval, undefined, { signal: stop.signal }).catch(() => undefined);
    if (stop.signal.aborted) break;
    try {
      await tick(stop.signal);
    } catch (err) {
      if (stop.signal.aborted) break;
      throw err;
    }
  }
}

/**
 * `lobbies list --live`: the namespace's starting and ready lobbies with their players
 * (GET …/analytics/matchmaker/live); with --follow the whole view again each time it changes.
 */
async function listLive(ctx: Context, gameId: string, namespaceId: string, options: ListOptions) {
  const read = (signal?: AbortSignal) =>
    unwrap(
      ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/analytics/matchmaker/live', {
        params: { path: { game_id: gameId, namespace_id: namespaceId } },
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  const show = (answer: LiveLobbies, heading: boolean) => {
    if (ctx.json) printJson(answer);
    else printLine(heading ? `-- ${new Date().toISOString()}\n${liveTable(answer)}` : liveTable(answer));
  };
  let last = await read();
  if (options.follow !== true) {
    show(last, false);
    return;
  }
  show(last, true);
  if (!ctx.json) note(`Following, every ${options.intervalMs} ms; Ctrl-C to stop.`);
  await everyUntilInterrupted(Number(options.intervalMs), async (signal) => {
    const next = await read(signal);
    if (JSON.stringify(next) === JSON.stringify(last)) return;
    last = next;
    show(next, true);
  });
}

interface ListOptions {
  namespace: string;
  follow?: boolean;
  live?: boolean;
  limit: string;
  intervalMs: string;
}

/** The lobby's summary lines, then its latest resource sample when there is one. */
function showText(lobby: LobbySummary, resources: LobbyResources): string {
  const lines = [
    `Lobby     ${lobby.lobby_id}`,
    `Game mode ${lobby.lobby_group_name_id}`,
    `Region    ${lobby.region_id}`,
    `Created   ${lobby.create_ts}`,
    `Players   ${playersOf(lobby)}`,
    `Status    ${statusOf(lobby)}`,
  ];
  const stopReason = lobby.status.stopped?.stop_reason;
  // The reason may quote what the game server or its archive chose (file names): one line, controls escaped.
  if (stopReason !== undefined) lines.push(`Stopped   ${terminalSafe(stopReason, { keepNewlines: false })}`);
  const latest = resources.latest;
  if (latest === undefined) {
    lines.push('Resources no sample yet');
  } else {
    lines.push(
      `CPU       ${latest.cpu_cores.toFixed(2)} cores`,
      `Memory    ${formatBytes(latest.memory_bytes)} / ${formatBytes(latest.memory_limit_bytes)}`,
      `Network   rx ${formatBytes(latest.rx_bytes)}, tx ${formatBytes(latest.tx_bytes)}`,
      `Sampled   ${latest.ts}`,
    );
  }
  return lines.join('\n');
}

export function registerLobbies(program: Command): void {
  const lobbies = program.command('lobbies').description('the lobby log of a namespace');
  registerLobbyLogs(lobbies);
  lobbies
    .command('stop <lobby>')
    .description('stop a lobby the service runs (SIGTERM, then SIGKILL after the grace period)')
    .action(
      withContext(async (ctx, lobby: string) => {
        if (!UUID.test(lobby)) throw new UsageError('LOBBY: a lobby_id (gcm lobbies list shows them)');
        const gameId = await ctx.gameId();
        const answer = await unwrap(
          ctx.api.DELETE('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}', {
            params: { path: { game_id: gameId, lobby_id: lobby } },
          }),
        );
        output(ctx.json, { lobby_id: lobby, ...answer }, (r) =>
          r.did_remove
            ? `Lobby ${lobby}: stopping (the log records its stop once its container has exited)`
            : `Lobby ${lobby}: already stopping or stopped`,
        );
      }),
    );
  lobbies
    .command('show <lobby>')
    .description("a lobby's state and its latest CPU, memory and network sample")
    .requiredOption('--namespace <namespace>', 'the namespace (id or name_id)')
    .action(
      withContext(async (ctx, lobby: string, options: { namespace: string }) => {
        if (!UUID.test(lobby)) throw new UsageError('LOBBY: a lobby_id (gcm lobbies list shows them)');
        const gameId = await ctx.gameId();
        const namespaceId = await ctx.namespaceId(gameId, options.namespace);
        const [summary, resources] = await Promise.all([
          unwrap(
            ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies/{lobby_id}', {
              params: { path: { game_id: gameId, namespace_id: namespaceId, lobby_id: lobby } },
            }),
          ),
          unwrap(
            ctx.api.GET('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/resources', {
              params: { path: { game_id: gameId, lobby_id: lobby } },
            }),
          ),
        ]);
        output(ctx.json, { lobby: summary.lobby, resources }, (r) => showText(r.lobby, r.resources));
      }),
    );
  lobbies
    .command('list')
    .description('lobbies newest first; --follow keeps printing new lobbies and status changes')
    .requiredOption('--namespace <namespace>', 'the namespace (id or name_id)')
    .option('--limit <n>', 'how many lobbies to show at most (pages of the service are followed)', '100')
    .option('--follow', 'keep printing new lobbies and changes of status until interrupted')
    .option(
      '--live',
      'the live lobbies (starting or ready) with their players; with --follow, again on change',
    )
    .option('--interval-ms <ms>', 'with --follow: how often to look for changes', '2000')
    .action(
      withContext(async (ctx, options: ListOptions) => {
        const limit = Number(options.limit);
        const interval = Number(options.intervalMs);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
          throw new UsageError('--limit: 1 to 100000');
        if (!Number.isInteger(interval) || interval < 100)
          throw new UsageError('--interval-ms: at least 100');
        const gameId = await ctx.gameId();
        const namespaceId = await ctx.namespaceId(gameId, options.namespace);
        if (options.live === true) {
          await listLive(ctx, gameId, namespaceId, options);
          return;
        }
        const path = { game_id: gameId, namespace_id: namespaceId };
        // Pages of the service run by (create_ts, lobby_id), newest first.
        const shown: LobbySummary[] = [];
        let before: { before_create_ts?: string; before_lobby_id?: string } = {};
        while (shown.length < limit) {
          const page = await unwrap(
            ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies', {
              params: { path, query: before },
            }),
          );
          if (page.lobbies.length === 0) break;
          shown.push(...page.lobbies.slice(0, limit - shown.length));
          const last = page.lobbies[page.lobbies.length - 1] as LobbySummary;
          before = { before_create_ts: last.create_ts, before_lobby_id: last.lobby_id };
        }
        if (options.follow !== true) {
          output(ctx.json, { lobbies: shown }, ({ lobbies: rows }) => table(HEADERS, rows.map(rowOf)));
          return;
        }
        // Following: the lobbies so far, then each new lobby or change as a line (JSON: one object a line).
        const seen = new Map<string, string>();
        const emit = (lobby: LobbySummary, change: 'lobby' | 'status') => {
          if (ctx.json) printJson({ event: change, lobby });
          else printLine(rowOf(lobby).join('  '));
        };
        if (!ctx.json) printLine(HEADERS.join('  '));
        for (const lobby of [...shown].reverse()) {
          seen.set(lobby.lobby_id, changeKey(lobby));
          emit(lobby, 'lobby');
        }
        if (!ctx.json) note('Following; Ctrl-C to stop.');
        await everyUntilInterrupted(interval, async (signal) => {
          // The newest page is where new lobbies land; a lobby's status changes are seen while it is on it.
          const page = await unwrap(
            ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies', {
              params: { path },
              signal,
            }),
          );
          for (const lobby of [...page.lobbies].reverse()) {
            const status = changeKey(lobby);
            const before = seen.get(lobby.lobby_id);
            if (before === status) continue;
            seen.set(lobby.lobby_id, status);
            emit(lobby, before === undefined ? 'lobby' : 'status');
          }
        });
      }),
    );
}
