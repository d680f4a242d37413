import { sql } from 'kysely';
import { openDatabase } from '../../src/db/open-db.js';
import { type LoadResult, runLoad } from '../lib/load.js';
import type { PgbenchResult } from '../lib/postgres.js';
import type { Comparison, Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, BENCH_REGIONS, createGameWithNamespace } from '../lib/service.js';

const RATIO_TARGET = 0.4;
/**
 * Lobbies made ready for the event load, three events each (start, ready, stop). Sized well past what two
 * cores can report in a warm-up and a measured run (tens of thousands of events), so none is reported twice.
 */
const EVENT_LOBBIES = 300_000;
const LOBBY_ID_PREFIX = '00000000-0000-4000-8000-';
/** The event load's lobby ids: the service's ids are UUIDs, so the number goes in the last group. */
const lobbyId = (n: number) => `${LOBBY_ID_PREFIX}${n.toString(16).padStart(12, '0')}`;
const GROUP = 'default';

/**
 * What the database does for these writes one request at a time: pgbench, with prepared statements and as
 * many connections as the HTTP load, on the same server in the same run, runs the statement a request needs
 * as a transaction of its own. The service's requests/s over pgbench's transactions/s is then what HTTP,
 * auth, validation and the service's round trips cost, against the database's own ceiling. A lobby create
 * is one new row: pgbench inserts it alone, where the service inserts the creates that arrive together in
 * one statement (lobby-logs.service.ts, lobbyInserts).
 */
const CREATE_SCRIPT = `\\set ts 1700000000000 + random(0, 1000000)
insert into lobbies (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts, start_ts, ready_ts, stop_ts, exit_code, failed) values (gen_random_uuid()::text, :ns, '${GROUP}', '${BENCH_REGIONS[0]}', :ts, null, null, null, null, null);
`;

/**
 * An event: the one guarded update the service sends for the next event of a lobby. Every client walks
 * lobbies of its own through start, ready and stop, as the service's load does; pgbench keeps `i` between a
 * client's transactions.
 */
const EVENT_SCRIPT = `\\set i :i + 1
\\set n (:client_id + 1) + :clients * ((:i - 1) / 3)
\\set k (:i - 1) % 3
\\if :k = 0
update lobbies set start_ts = :ts where namespace_id = :ns and lobby_id = :n::text and stop_ts is null and start_ts is null and create_ts <= :ts;
\\elif :k = 1
update lobbies set ready_ts = :ts where namespace_id = :ns and lobby_id = :n::text and stop_ts is null and ready_ts is null and start_ts <= :ts;
\\else
update lobbies set stop_ts = :ts, exit_code = 0, failed = 0 where namespace_id = :ns and lobby_id = :n::text and stop_ts is null and coalesce(ready_ts, start_ts, create_ts) <= :ts;
\\endif
`;

/** Lobbies 1..`count` in the namespace, created an hour ago, each id `idSql` of its number `n`. */
async function insertLobbies(
  databaseUrl: string,
  dataDir: string,
  namespaceId: string,
  idSql: string,
  count: number,
) {
  const { db } = openDatabase({ dataDir, databaseUrl, pgPoolMax: 1 }, () => {});
  try {
    await sql`
      insert into lobbies (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts)
      select ${sql.raw(idSql)}, ${namespaceId}, ${GROUP}, ${BENCH_REGIONS[0]}, ${Date.now() - 3_600_000}
      from generate_series(1, ${count}) as n`.execute(db);
    await sql`analyze lobbies`.execute(db);
  } finally {
    await db.destroy();
  }
}

function ratio(label: string, service: LoadResult, database: PgbenchResult): Comparison {
  const value = service.requestsPerSec / database.tps;
  return { label, value, target: `>= ${RATIO_TARGET}`, met: value >= RATIO_TARGET };
}

/**
 * The data plane's writes on PostgreSQL: `POST .../logs/lobbies` (a new lobby) and `POST .../events` (start,
 * ready, stop of lobbies made beforehand), 64 connections with a lobby reporter token, each against pgbench
 * running the statements the service sends for it, with as many connections, on the same server in the same
 * run.
 */
export const lobbyWrites: Scenario = {
  name: 'lobby-writes',
  description: 'POST .../logs/lobbies and .../events (reporter token) vs pgbench of the same statements',
  supportsPostgres: true,
  postgresOnly: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const { service, postgres } = context;
    const databaseUrl = service.databaseUrl;
    if (postgres === undefined || databaseUrl === undefined) {
      throw new Error('lobby-writes runs on PostgreSQL only (--pg)');
    }
    const { gameId, versionId, namespaceId } = await createGameWithNamespace(
      service,
      'bench-lobby-wr',
      'Lobby Writes',
    );
    const { token } = await apiOk<{ token: string }>(
      service,
      'POST',
      `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/reporter`,
    );
    // pgbench's lobbies live in a namespace row of their own, so its writes never meet the service's.
    const { namespace_id: pgbenchNamespace } = await apiOk<{ namespace_id: string }>(
      service,
      'POST',
      `/cloud/games/${gameId}/namespaces`,
      {
        body: {
          name_id: 'pgbench',
          display_name: 'pgbench',
          version_id: versionId,
        },
      },
    );
    context.log(`lobby-writes: making ${EVENT_LOBBIES.toLocaleString('en-US')} lobbies for each event load`);
    const loadDir = `${context.workDir}/lobby-writes-load`;
    await insertLobbies(
      databaseUrl,
      loadDir,
      namespaceId,
      `'${LOBBY_ID_PREFIX}' || lpad(to_hex(n), 12, '0')`,
      EVENT_LOBBIES,
    );
    await insertLobbies(databaseUrl, loadDir, pgbenchNamespace, 'n::text', EVENT_LOBBIES);

    const settings = {
      connections: context.connections,
      pipelining: context.pipelining,
      durationSec: context.durationSec,
      warmupSec: context.warmupSec,
    };
    const base = `${service.baseUrl}/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    context.log('lobby-writes: loading the service with lobby creates');
    const create = await runLoad({
      ...settings,
      target: 'service POST .../logs/lobbies',
      url: base,
      method: 'POST',
      headers,
      body: JSON.stringify({ lobby_group_name_id: GROUP, region_id: BENCH_REGIONS[0] }),
    });

    // Each connection takes the next unused lobby and reports its three events in order, so no event ever
    // races another on one lobby and every one is a real write.
    let nextLobby = 0;
    const step = (kind: 'start' | 'ready' | 'stop') => ({
      method: 'POST',
      setupRequest: (request: { path?: string; body?: string }, ctx: Record<string, unknown>) => {
        if (kind === 'start') {
          nextLobby++;
          if (nextLobby > EVENT_LOBBIES)
            throw new Error(`lobby-writes: more than ${EVENT_LOBBIES} lobbies used`);
          ctx.lobby = nextLobby;
        }
        const event = kind === 'stop' ? { kind, exit_code: 0 } : { kind };
        return {
          ...request,
          path: `${new URL(base).pathname}/${lobbyId(ctx.lobby as number)}/events`,
          body: JSON.stringify(event),
        };
      },
    });
    context.log('lobby-writes: loading the service with lobby events');
    const events = await runLoad({
      ...settings,
      target: 'service POST .../events',
      url: base,
      method: 'POST',
      headers,
      requests: [step('start'), step('ready'), step('stop')],
    });

    const pgbenchOptions = (variables: Record<string, string>) => ({
      clients: settings.connections,
      durationSec: settings.durationSec,
      variables: { ns: pgbenchNamespace, ...variables },
    });
    context.log('lobby-writes: pgbench, lobby creates');
    const createDb = await postgres.pgbench(databaseUrl, CREATE_SCRIPT, pgbenchOptions({}));
    context.log('lobby-writes: pgbench, lobby events');
    const eventsDb = await postgres.pgbench(
      databaseUrl,
      EVENT_SCRIPT,
      pgbenchOptions({ i: '0', clients: String(settings.connections), ts: String(Date.now()) }),
    );
    const pgbenchLine = (what: string, r: PgbenchResult) =>
      `| pgbench, ${what} | ${r.tps.toFixed(0)} | ${r.latencyMs.toFixed(2)} | ${r.transactions} | ${r.failed} |`;
    return {
      title: `lobby-writes on PostgreSQL: ${lobbyWrites.description}`,
      rows: [create, events],
      notes: [
        `pgbench (prepared statements, ${settings.connections} clients, 2 threads, ${settings.durationSec} s, no warm-up), the service's statements for one request per transaction:`,
        '',
        '| baseline | transactions/s | latency average ms | transactions | failed |',
        '|---|---:|---:|---:|---:|',
        pgbenchLine('lobby create (1 insert)', createDb),
        pgbenchLine('lobby event (1 guarded update)', eventsDb),
      ],
      comparisons: [
        ratio('lobby create, service requests/s / pgbench transactions/s', create, createDb),
        ratio('lobby event, service requests/s / pgbench transactions/s', events, eventsDb),
      ],
    };
  },
};
