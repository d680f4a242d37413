import { LOBBY_OUTPUT_LIMITS } from '@gcm/contract';
import { type Schema, unwrap } from '@gcm/sdk';
import type { Command } from 'commander';
import { type Context, UsageError, UUID } from '../context.js';
import { terminalSafeBytes } from '../terminal-text.js';
import { withContext } from './shared.js';

type LogsPage = Schema<'GetLobbyLogsResponse'>;

interface LogsOptions {
  stderr?: boolean;
  follow?: boolean;
  since?: string;
  tail?: string;
  timestamps?: boolean;
}

/** `--since`: a duration back from now (`90s`, `10m`, `2h`, `1d`) or an RFC 3339 time; epoch ms. */
export function parseSince(value: string, now = Date.now()): number {
  const duration = /^(\d{1,9})(s|m|h|d)$/.exec(value);
  if (duration !== null) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as 's' | 'm' | 'h' | 'd'];
    return now - Number(duration[1]) * unit;
  }
  const time = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new UsageError(
      `--since: "${value}" is neither a duration (30s, 10m, 2h, 1d) nor an RFC 3339 time (2026-11-28T10:00:00Z)`,
    );
  }
  return time;
}

/**
 * One line as it is written: its bytes (control characters escaped unless --raw), after its time when asked
 * (dim on a terminal, unless NO_COLOR).
 */
function render(line: string, ts: string, options: { timestamps: boolean; color: boolean }): Buffer {
  const bytes = terminalSafeBytes(Buffer.from(line, 'base64'));
  if (!options.timestamps) return Buffer.concat([bytes, NEWLINE]);
  const stamp = options.color ? `\u001b[2m${ts}\u001b[22m ` : `${ts} `;
  return Buffer.concat([Buffer.from(stamp), bytes, NEWLINE]);
}
const NEWLINE = Buffer.from('\n');

/** Writes and waits when stdout is full, so a slow pipe holds the reader back instead of memory growing. */
function write(chunk: Buffer): Promise<void> {
  if (process.stdout.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

/**
 * `gcm lobbies logs LOBBY`: what the lobby printed, like `docker logs` (GET …/matchmaker/lobbies/{id}/logs).
 * Older pages are read back with the answer's cursor until --tail or --since is satisfied (or the start),
 * then printed oldest first; -f then follows with the watch index until the lobby's output is complete or
 * Ctrl-C.
 */
export function registerLobbyLogs(lobbies: Command): void {
  lobbies
    .command('logs <lobby>')
    .description('what a lobby printed (stdout; --stderr for stderr), like docker logs; -f to follow')
    .option('--stderr', "the lobby's standard error instead of its standard output")
    .option('-f, --follow', 'keep printing new lines until the lobby exits or Ctrl-C')
    .option('--since <when>', 'only lines since then: 30s, 10m, 2h, 1d, or an RFC 3339 time')
    .option('--tail <n>', 'only the last n lines')
    .option('-t, --timestamps', "prefix each line with its time (RFC 3339, the engine's)")
    .action(
      withContext(async (ctx, lobby: string, options: LogsOptions) => {
        if (!UUID.test(lobby)) throw new UsageError('LOBBY: a lobby_id (gcm lobbies list shows them)');
        const tail = options.tail === undefined ? undefined : Number(options.tail);
        if (tail !== undefined && (!Number.isInteger(tail) || tail < 0 || tail > 10_000_000)) {
          throw new UsageError('--tail: a whole number of lines, 0 to 10000000');
        }
        const since = options.since === undefined ? undefined : parseSince(options.since);
        const gameId = await ctx.gameId();
        await printLogs(ctx, gameId, lobby, {
          stream: options.stderr === true ? 'std_err' : 'std_out',
          follow: options.follow === true,
          ...(tail === undefined ? {} : { tail }),
          ...(since === undefined ? {} : { since }),
          timestamps: options.timestamps === true,
        });
      }),
    );
}

async function printLogs(
  ctx: Context,
  gameId: string,
  lobbyId: string,
  options: {
    stream: 'std_out' | 'std_err';
    follow: boolean;
    tail?: number;
    since?: number;
    timestamps: boolean;
  },
): Promise<void> {
  const stop = new AbortController();
  const interrupted = () => stop.abort();
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  // A closed pipe (`| head`) ends the command quietly, as docker logs does.
  process.stdout.on('error', interrupted);
  const look = {
    timestamps: options.timestamps,
    color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  };
  const path = { game_id: gameId, lobby_id: lobbyId };
  const read = (query: { cursor?: string; watch_index?: string; limit?: string }) =>
    unwrap(
      ctx.api.GET('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/logs', {
        params: { path, query: { stream: options.stream, ...query } },
        signal: stop.signal,
      }),
    );
  try {
    // Newest page first, back with the cursor while more is wanted; printed oldest first.
    const limit = String(Math.min(LOBBY_OUTPUT_LIMITS.pageLinesMax, Math.max(1, options.tail ?? Infinity)));
    const pages: LogsPage[] = [];
    let wanted = options.tail ?? Number.POSITIVE_INFINITY;
    let page = await read({ limit });
    const first = page;
    for (;;) {
      pages.unshift(page);
      wanted -= page.lines.length;
      const oldest = page.timestamps[0];
      const reachedSince =
        options.since !== undefined && oldest !== undefined && Date.parse(oldest) < options.since;
      if (wanted <= 0 || reachedSince || page.cursor === undefined || stop.signal.aborted) break;
      page = await read({ cursor: page.cursor, limit });
    }
    const lines = pages.flatMap((p) => p.lines.map((line, i) => ({ line, ts: p.timestamps[i] ?? '' })));
    let shown =
      options.since === undefined
        ? lines
        : lines.filter((l) => Date.parse(l.ts) >= (options.since as number));
    if (options.tail !== undefined) shown = shown.slice(Math.max(0, shown.length - options.tail));
    for (const l of shown) await write(render(l.line, l.ts, look));

    if (!options.follow) return;
    let index = first.watch.index;
    let complete = first.complete;
    while (!complete && !stop.signal.aborted) {
      const next = await read({ watch_index: index });
      for (let i = 0; i < next.lines.length; i++) {
        await write(render(next.lines[i] as string, next.timestamps[i] ?? '', look));
      }
      index = next.watch.index;
      complete = next.complete && next.lines.length === 0;
    }
  } catch (err) {
    // Ctrl-C while a request waits: the abort is the way out, not an error.
    if (stop.signal.aborted) return;
    throw err;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}
