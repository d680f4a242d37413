import { type LobbyEventBody, type LobbyRunning, quote, STOP_REASON_MAX_LENGTH } from '@gcm/contract';
import type { LobbiesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { errors, type ValidationErrorItem } from '../../errors.js';
import { deleteInBatches } from '../../lib/batched-delete.js';
import { Batcher } from '../../lib/batcher.js';
import { parseTimestamp, toTimestamp } from '../../lib/clock.js';
import { isStoreUnavailable } from '../../lib/db-errors.js';
import { newId } from '../../lib/ids.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import * as repo from './lobby-logs.repository.js';

/** Interface 4.1 leaves the page size open; 64 keeps a page small enough to render and cheap to read. */
export const LOBBY_PAGE_SIZE = 64;
const GROUP_NAME_ID = /^[A-Za-z0-9_-]{1,64}$/;

type LobbyRow = LobbiesTable;

/** A runtime lobby's live state while it runs; `{}` for a reported lobby, or once it stopped. */
function runningOf(row: LobbyRow): LobbyRunning {
  if (row.run_state === null || row.run_state === 'stopped') return {};
  const state = row.run_state === 'ready' && row.is_closed === 1 ? 'closed' : row.run_state;
  return {
    state,
    player_count: row.player_count ?? 0,
    max_players: row.max_players ?? 0,
    ...(row.version_id === null ? {} : { version_id: row.version_id }),
  };
}

export function toLobbySummary(row: LobbyRow) {
  return {
    create_ts: toTimestamp(row.create_ts),
    lobby_group_name_id: row.lobby_group_name_id,
    lobby_id: row.lobby_id,
    namespace_id: row.namespace_id,
    ...(row.ready_ts === null ? {} : { ready_ts: toTimestamp(row.ready_ts) }),
    region_id: row.region_id,
    ...(row.start_ts === null ? {} : { start_ts: toTimestamp(row.start_ts) }),
    status: {
      running: runningOf(row),
      ...(row.stop_ts === null
        ? {}
        : {
            stopped: {
              exit_code: row.exit_code ?? 0,
              failed: row.failed === 1,
              stop_ts: toTimestamp(row.stop_ts),
              ...(row.stop_reason === null
                ? {}
                : { stop_reason: row.stop_reason.slice(0, STOP_REASON_MAX_LENGTH) }),
              // Only the runtime's rows have a version: a reported lobby's data plane names none.
              ...(row.run_state === null || row.version_id === null ? {} : { version_id: row.version_id }),
            },
          }),
    },
  };
}

function bodyTimestamp(value: string | null | undefined, field: string, now: number): number {
  if (value === null || value === undefined) return now;
  const ms = parseTimestamp(value);
  if (ms === undefined) {
    throw errors.badBody(`body field "${field}" must be an RFC 3339 timestamp`, { field });
  }
  return ms;
}

export async function listLobbies(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  query: { before_create_ts?: string; before_lobby_id?: string },
) {
  let before = deps.clock.now() + 1;
  if (query.before_create_ts !== undefined) {
    const ms = parseTimestamp(query.before_create_ts, true);
    if (ms === undefined) {
      throw errors.badQuery('query parameter "before_create_ts" must be an RFC 3339 timestamp', {
        field: 'before_create_ts',
      });
    }
    before = ms;
  }
  if (query.before_lobby_id !== undefined && query.before_create_ts === undefined) {
    throw errors.badQuery('query parameter "before_lobby_id" needs before_create_ts', {
      field: 'before_lobby_id',
    });
  }
  await deps.namespaces.get(gameId, namespaceId);
  const rows = await repo.listLobbiesBefore(
    deps.db,
    namespaceId,
    before,
    query.before_lobby_id,
    LOBBY_PAGE_SIZE + 1,
  );
  return { lobbies: pageOf(rows, query.before_lobby_id !== undefined).map(toLobbySummary) };
}

/**
 * Clients page by passing the last create_ts they saw as before_create_ts. A page that ended inside a
 * group of lobbies sharing one create_ts would make the next page skip the rest of that group, so such a
 * trailing group is left for the next page. Only when a whole page shares one millisecond is it cut at 64;
 * before_lobby_id then continues inside that millisecond.
 */
function pageOf(rows: LobbyRow[], exactCursor: boolean): LobbyRow[] {
  if (rows.length <= LOBBY_PAGE_SIZE) return rows;
  const page = rows.slice(0, LOBBY_PAGE_SIZE);
  const boundary = page[LOBBY_PAGE_SIZE - 1]?.create_ts;
  if (exactCursor || rows[LOBBY_PAGE_SIZE]?.create_ts !== boundary) return page;
  const whole = page.filter((r) => r.create_ts !== boundary);
  return whole.length > 0 ? whole : page;
}

export async function getLobby(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  lobbyId: string,
) {
  await deps.namespaces.get(gameId, namespaceId);
  const row = await repo.findLobby(deps.db, namespaceId, lobbyId);
  if (row === undefined) throw errors.lobbyNotFound();
  return toLobbySummary(row);
}

/** Most lobbies one statement writes: 5 parameters each on SQLite. */
const WRITE_BATCH = 256;

/**
 * A service's lobby writes, batched: the data plane reports lobbies from many servers at once, and the
 * creates (and the in-order events) that arrive together share one statement and one round trip
 * (lib/batcher.ts). A batch that fails for one of its rows (its namespace purged meanwhile) is retried row
 * by row, so no report fails for another's; an unreachable store fails them all, as it would each.
 */
export interface LobbyWrites {
  inserts: Batcher<repo.NewLobby, boolean>;
  events: Batcher<repo.NextEvent, boolean>;
}

export function lobbyWrites(db: Db): LobbyWrites {
  return { inserts: batched(db, repo.insertNewLobbies), events: batched(db, repo.recordNextEvents) };
}

function batched<In>(db: Db, write: (db: Db, rows: readonly In[]) => Promise<boolean[]>) {
  return new Batcher<In, boolean>(async (rows) => {
    try {
      return await write(db, rows);
    } catch (err) {
      if (rows.length === 1 || isStoreUnavailable(err)) throw err;
      return rows.map(async (row) => (await write(db, [row]))[0] === true);
    }
  }, WRITE_BATCH);
}

export async function createLobby(
  deps: Deps & WithNamespaces,
  writes: LobbyWrites,
  gameId: string,
  namespaceId: string,
  input: {
    lobby_id?: string | null;
    lobby_group_name_id: string;
    region_id: string;
    create_ts?: string | null;
  },
) {
  const found: ValidationErrorItem[] = [];
  if (!GROUP_NAME_ID.test(input.lobby_group_name_id)) {
    found.push({
      path: ['lobby-group-name-id', 'invalid'],
      message:
        `lobby_group_name_id ${quote(input.lobby_group_name_id)} is not a game mode name: ` +
        '1 to 64 of A-Z, a-z, 0-9, "_" and "-"',
    });
  }
  if (!deps.config.regions.includes(input.region_id)) {
    found.push({
      path: ['region-id', 'invalid'],
      message:
        `region_id ${quote(input.region_id)} is not a region of this service; ` +
        `the regions are ${deps.config.regions.join(', ')} (GET /cloud/regions)`,
    });
  }
  if (found.length > 0) throw errors.validation(found);
  const createTs = bodyTimestamp(input.create_ts, 'create_ts', deps.clock.now());
  await deps.namespaces.get(gameId, namespaceId);

  const row: repo.NewLobby = {
    lobby_id: input.lobby_id ?? newId(),
    namespace_id: namespaceId,
    lobby_group_name_id: input.lobby_group_name_id,
    region_id: input.region_id,
    create_ts: createTs,
  };
  // Checked before the write, so a refused report writes nothing. Two namespaces reporting one fresh id at the
  // same instant may both pass; their lobbies are still two, since everything is keyed by namespace too.
  if (input.lobby_id !== undefined && input.lobby_id !== null) {
    if (await repo.lobbyIdElsewhere(deps.db, namespaceId, row.lobby_id))
      throw errors.lobbyIdTaken(row.lobby_id);
  }
  if (!(await writes.inserts.submit(row))) {
    // A retried report of the same lobby is answered like the first; anything else is a conflict.
    const existing = await repo.findLobby(deps.db, namespaceId, row.lobby_id);
    const same =
      existing !== undefined &&
      existing.lobby_group_name_id === row.lobby_group_name_id &&
      existing.region_id === row.region_id &&
      (input.create_ts === null || input.create_ts === undefined || existing.create_ts === createTs);
    if (!same) throw errors.lobbyAlreadyExists();
  }
  // Queued before the report is answered; a report retried because its answer was lost queues it again,
  // and the dedupe key keeps that to one delivery per endpoint.
  await tellCreated(deps, gameId, row);
  return row.lobby_id;
}

/** `lobby.created` for the webhooks: of a reported lobby, and of one the runtime created. */
export function tellCreated(deps: Deps, gameId: string, row: repo.NewLobby): Promise<void> {
  return deps.webhooks.gameEventCached(
    gameId,
    () => ({
      type: 'lobby.created',
      resourceKey: `lobby:${row.namespace_id}:${row.lobby_id}`,
      dedupeKey: `lobby.created:${row.namespace_id}:${row.lobby_id}`,
      data: {
        namespace_id: row.namespace_id,
        lobby_id: row.lobby_id,
        lobby_group_name_id: row.lobby_group_name_id,
        region_id: row.region_id,
        create_ts: toTimestamp(row.create_ts),
      },
    }),
    'lobby.created',
  );
}

/** `lobby.stopped` for the webhooks, queued like `lobby.created` (a retried stop queues nothing new). */
function tellStopped(
  deps: Deps,
  gameId: string,
  namespaceId: string,
  lobbyId: string,
  stop: { ts: number; exitCode: number | null; failed: boolean },
): Promise<void> {
  return deps.webhooks.gameEventCached(
    gameId,
    () => ({
      type: 'lobby.stopped',
      resourceKey: `lobby:${namespaceId}:${lobbyId}`,
      dedupeKey: `lobby.stopped:${namespaceId}:${lobbyId}`,
      data: {
        namespace_id: namespaceId,
        lobby_id: lobbyId,
        stop_ts: toTimestamp(stop.ts),
        exit_code: stop.exitCode,
        failed: stop.failed,
      },
    }),
    'lobby.stopped',
  );
}

/** The values a stop records; `exit_code` is required, `failed` defaults to a non-zero exit code. */
function stopValues(event: LobbyEventBody): { exitCode: number; failed: boolean } {
  if (event.exit_code === null || event.exit_code === undefined) {
    throw errors.badBody('body field "exit_code" is required when kind is "stop"', { field: 'exit_code' });
  }
  return { exitCode: event.exit_code, failed: event.failed ?? event.exit_code !== 0 };
}

/**
 * created → start → ready → stop, stop being terminal and possible from any earlier state (a lobby can
 * crash before it is ready). A repeat of a recorded event (same values; an omitted ts matches any) is a
 * no-op, so the data plane can retry freely.
 */
export async function recordLobbyEvent(
  deps: Deps & WithNamespaces,
  writes: LobbyWrites,
  gameId: string,
  namespaceId: string,
  lobbyId: string,
  event: LobbyEventBody,
): Promise<void> {
  // A missing exit_code is bad input whatever the lobby's state: refused first, like the schema's own rules.
  const stop = event.kind === 'stop' ? stopValues(event) : undefined;
  const ts = bodyTimestamp(event.ts, 'ts', deps.clock.now());
  const givenTs = event.ts !== null && event.ts !== undefined;
  await deps.namespaces.get(gameId, namespaceId);
  // The change the event makes to `lobby` as read, undefined when it makes none (a repeated report).
  const change = (lobby: LobbyRow): repo.LobbyEventValues | undefined => {
    const sameTs = (recorded: number) => !givenTs || recorded === ts;
    const notBefore = (earlier: number, what: string) => {
      if (ts < earlier) {
        throw errors.lobbyInvalidTimestamp(
          `${event.kind} at ${toTimestamp(ts)} is before the lobby's ${what} at ${toTimestamp(earlier)}`,
        );
      }
    };
    const afterStop = () =>
      errors.lobbyInvalidTransition(
        `the lobby stopped at ${toTimestamp(lobby.stop_ts ?? 0)}; no event follows stop`,
      );

    if (event.kind === 'start') {
      if (lobby.start_ts !== null) {
        if (sameTs(lobby.start_ts)) return undefined;
        throw errors.lobbyInvalidTransition(`the lobby already started at ${toTimestamp(lobby.start_ts)}`);
      }
      if (lobby.stop_ts !== null) throw afterStop();
      notBefore(lobby.create_ts, 'creation');
      return { start_ts: ts };
    }
    if (event.kind === 'ready') {
      if (lobby.ready_ts !== null) {
        if (sameTs(lobby.ready_ts)) return undefined;
        throw errors.lobbyInvalidTransition(`the lobby was already ready at ${toTimestamp(lobby.ready_ts)}`);
      }
      if (lobby.stop_ts !== null) throw afterStop();
      if (lobby.start_ts === null)
        throw errors.lobbyInvalidTransition('a lobby is ready only after it started');
      notBefore(lobby.start_ts, 'start');
      return { ready_ts: ts };
    }
    const { exitCode, failed } = stop ?? stopValues(event);
    if (lobby.stop_ts !== null) {
      if (sameTs(lobby.stop_ts) && lobby.exit_code === exitCode && (lobby.failed === 1) === failed)
        return undefined;
      throw afterStop();
    }
    notBefore(
      lobby.ready_ts ?? lobby.start_ts ?? lobby.create_ts,
      lobby.ready_ts !== null ? 'ready' : lobby.start_ts !== null ? 'start' : 'creation',
    );
    return { stop_ts: ts, exit_code: exitCode, failed: failed ? 1 : 0 };
  };
  // The usual event is the next one, in order: one statement (shared with the events that arrive with it)
  // that writes it only where `change` would, its conditions in SQL, settles it in one round trip.
  const next: repo.NextEvent = {
    namespace_id: namespaceId,
    lobby_id: lobbyId,
    kind: event.kind,
    ts,
    exit_code: stop?.exitCode ?? null,
    failed: stop === undefined ? null : stop.failed ? 1 : 0,
  };
  if (await writes.events.submit(next)) {
    if (stop !== undefined) await tellStopped(deps, gameId, namespaceId, lobbyId, { ts, ...stop });
    return;
  }
  // Otherwise (a repeat, an event out of order, no such lobby, or a race), read, decide, then write only if
  // the lobby is still as read (compare and set), with no transaction. A lost race reads again and decides
  // anew, so concurrent events still apply one at a time, as if in some order.
  for (let attempt = 1; ; attempt++) {
    const lobby = await repo.findLobby(deps.db, namespaceId, lobbyId);
    if (lobby === undefined) throw errors.lobbyNotFound();
    const values = change(lobby);
    if (values === undefined) {
      // A repeated stop: told again (deduplicated), in case the first report's answer, and its queueing,
      // were lost.
      if (stop !== undefined && lobby.stop_ts !== null) {
        await tellStopped(deps, gameId, namespaceId, lobbyId, { ts: lobby.stop_ts, ...stop });
      }
      return;
    }
    if (await repo.updateLobbyIfUnchanged(deps.db, lobby, values)) {
      if (stop !== undefined) await tellStopped(deps, gameId, namespaceId, lobbyId, { ts, ...stop });
      return;
    }
    // Each lost race means another event was recorded, and a lobby takes at most three.
    if (attempt >= 10) throw new Error(`lobby ${lobbyId}: the event lost ${attempt} races in a row`);
  }
}

/**
 * Records the end of a lobby the runtime ran (modules/runtime): run_state 'stopped' with its stop, exit code
 * (null when its container was lost and no code is known) and whether it failed, once (false when it was
 * recorded already), with the reporter path's `lobby.stopped` and, when it failed, `lobby.failed`.
 */
export async function recordRuntimeStop(
  deps: Deps,
  gameId: string,
  lobby: Pick<
    LobbyRow,
    'namespace_id' | 'lobby_id' | 'version_id' | 'lobby_group_name_id' | 'region_id' | 'stop_reason'
  >,
  stop: { ts: number; exitCode: number | null; failed: boolean; reason?: string },
): Promise<boolean> {
  const reason = stop.reason ?? lobby.stop_reason ?? 'exited';
  if (!(await repo.markRuntimeLobbyStopped(deps.db, lobby.namespace_id, lobby.lobby_id, stop, reason))) {
    return false;
  }
  await tellStopped(deps, gameId, lobby.namespace_id, lobby.lobby_id, stop);
  if (stop.failed) {
    await deps.webhooks.gameEventCached(
      gameId,
      () => ({
        type: 'lobby.failed',
        resourceKey: `lobby:${lobby.namespace_id}:${lobby.lobby_id}`,
        dedupeKey: `lobby.failed:${lobby.namespace_id}:${lobby.lobby_id}`,
        data: {
          namespace_id: lobby.namespace_id,
          lobby_id: lobby.lobby_id,
          version_id: lobby.version_id,
          lobby_group_name_id: lobby.lobby_group_name_id,
          region_id: lobby.region_id,
          stop_ts: toTimestamp(stop.ts),
          exit_code: stop.exitCode,
          reason,
        },
      }),
      'lobby.failed',
    );
  }
  return true;
}

/** Lobbies deleted per transaction by the purge: a few milliseconds of the store's write lock each. */
const PURGE_BATCH = 1000;

/**
 * Deletes every lobby of a deleted namespace, PURGE_BATCH at a time, each batch its own transaction, so
 * other writes (on SQLite, every write of every game) wait at most one batch, never the whole log.
 */
export async function purgeLobbiesOf(deps: Deps, namespaceId: string): Promise<number> {
  return deleteInBatches(PURGE_BATCH, (batch) => repo.deleteLobbyBatch(deps.db, namespaceId, batch));
}

const DAY_MS = 86_400_000;

/**
 * Lobby log retention (GCM_LOBBY_RETENTION_DAYS; 0 keeps the log for ever): deletes lobbies last reported
 * longer ago than that, PURGE_BATCH per transaction, so a million old lobbies never hold the store's write
 * lock for more than one batch. Runs as the `lobby-retention` background job.
 */
export async function deleteExpiredLobbies(deps: Deps): Promise<number> {
  const days = deps.config.lobbyRetentionDays;
  if (days === 0) return 0;
  const before = deps.clock.now() - days * DAY_MS;
  let total = 0;
  for (const namespaceId of await repo.namespaceIdsWithLobbies(deps.db)) {
    total += await deleteInBatches(PURGE_BATCH, (batch) =>
      repo.deleteLobbiesBefore(deps.db, namespaceId, before, batch),
    );
  }
  return total;
}

/** Lobbies read per query while an export walks back through the period. */
const HISTORY_PAGE = 2000;

const HISTORY_COLUMNS = [
  'lobby_id',
  'namespace_id',
  'namespace_name_id',
  'game_mode',
  'region_id',
  'create_ts',
  'start_ts',
  'ready_ts',
  'stop_ts',
  'status',
  'exit_code',
  'failed',
  'stop_reason',
  'max_players',
  'player_count',
] as const;

/**
 * A text cell as RFC 4180 quotes it, and never a formula: a spreadsheet runs a cell that starts with
 * = + - @ (or a tab or CR that hides one), so those get a leading apostrophe.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function historyStatus(row: LobbyRow): string {
  if (row.run_state !== null) return row.run_state;
  if (row.stop_ts !== null) return 'stopped';
  return row.ready_ts === null ? 'starting' : 'ready';
}

const tsCell = (ts: number | null) => (ts === null ? null : toTimestamp(ts));

/**
 * The lobby history of these namespaces as CSV (RFC 4180, CRLF, one header line): the lobbies created in
 * [start, end), oldest first, at most `max`. Read newest first a page at a time, so when the period holds
 * more the newest are kept, and a last `#` line says the file was cut.
 */
export async function lobbyHistoryCsv(
  deps: Deps,
  namespaces: readonly { namespace_id: string; name_id: string }[],
  period: { start: number; end: number },
  max: number,
): Promise<{ csv: Buffer; lobbies: number; cut: boolean }> {
  const nameOf = new Map(namespaces.map((n) => [n.namespace_id, n.name_id]));
  const lines: string[] = [];
  let before: { ts: number; lobbyId: string | undefined } = { ts: period.end, lobbyId: undefined };
  let cut = false;
  while (nameOf.size > 0) {
    const page = await repo.lobbiesCreatedIn(deps.db, [...nameOf.keys()], period.start, before, HISTORY_PAGE);
    for (const row of page) {
      if (lines.length === max) {
        cut = true;
        break;
      }
      lines.push(
        [
          row.lobby_id,
          row.namespace_id,
          nameOf.get(row.namespace_id) ?? null,
          row.lobby_group_name_id,
          row.region_id,
          tsCell(row.create_ts),
          tsCell(row.start_ts),
          tsCell(row.ready_ts),
          tsCell(row.stop_ts),
          historyStatus(row),
          row.exit_code,
          row.stop_ts === null ? null : row.failed === 1 ? 'true' : 'false',
          row.stop_reason,
          row.max_players,
          row.player_count,
        ]
          .map(csvCell)
          .join(','),
      );
    }
    const last = page.at(-1);
    if (cut || last === undefined || page.length < HISTORY_PAGE) break;
    before = { ts: last.create_ts, lobbyId: last.lobby_id };
  }
  lines.reverse();
  const text = [
    HISTORY_COLUMNS.join(','),
    ...lines,
    ...(cut ? [`# cut: only the newest ${max} lobbies of the period are listed`] : []),
  ];
  return { csv: Buffer.from(`${text.join('\r\n')}\r\n`), lobbies: lines.length, cut };
}
