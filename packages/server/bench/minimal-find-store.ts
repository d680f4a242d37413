/**
 * The store work of a find, done the plain way, for the minimal Fastify baseline: what any service must do
 * to answer a find for real, so that comparing the service with the baseline measures the service's own
 * cost (its hooks, validation, logging, code), not the price of a durable write against a canned answer.
 *
 * The same schema as the service's (the bench runs the service's migrations on this store first), the same
 * statements (the client's count up to its cap, the fullest ready lobby's slot, the pending player row) and
 * the same durability (SQLite: WAL, synchronous=FULL, one connection; PostgreSQL: a pool of 10), and a
 * player token signed with jose (EdDSA), as the service signs its own. What it leaves out is what makes the
 * service the service: on SQLite each find is its own transaction, committed (and fsynced) before the next
 * one starts, where the service's group commit shares one commit among the finds of an event-loop turn; on
 * PostgreSQL it runs the service's one statement.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { type CryptoKey, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';

/** A find's slot: where the player goes, or undefined when no lobby has room. */
export interface FoundSlot {
  lobby_id: string;
  region_id: string;
  ports: string | null;
}

export interface FindStore {
  take(namespaceId: string, clientAddr: string): Promise<FoundSlot | undefined>;
  sign(namespaceId: string, slot: FoundSlot, playerId: string): Promise<string>;
}

/** The service's default max_players_per_client (mm-config): the count is capped at it. */
const CLIENT_CAP = 8;
const CONNECT_TIMEOUT_MS = 90_000;
const GROUP = { gameMode: 'default', region: 'bench-r1' };

const OPEN_WITH_ROOM = `namespace_id = $1 and lobby_group_name_id = $2 and region_id = $3
  and run_state = 'ready' and is_closed = 0 and player_count < max_players
  and (publicity is null or publicity = 'public') and tags_json is null`;

/** The service's statement that takes the fullest ready lobby's slot, when `condition` holds. */
function takeSql(lock: string, condition: string): string {
  return `update lobbies set player_count = player_count + 1
    where namespace_id = $1 and player_count < max_players and run_state = 'ready' and is_closed = 0
      and ${condition}
      and lobby_id = (select lobby_id from lobbies where ${OPEN_WITH_ROOM}
        order by player_count desc, create_ts, lobby_id limit 1 ${lock})
    returning lobby_id, region_id, ports`;
}

async function signer(): Promise<(claims: Record<string, unknown>) => Promise<string>> {
  const { privateKey } = await generateKeyPair('EdDSA');
  const key: CryptoKey = privateKey;
  const kid = randomUUID();
  return (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).sign(key);
}

function playerClaims(namespaceId: string, slot: FoundSlot, playerId: string) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: 'bench',
    aud: 'player',
    sub: playerId,
    namespace_id: namespaceId,
    lobby_id: slot.lobby_id,
    iat: now,
    exp: now + CONNECT_TIMEOUT_MS / 1000,
  };
}

/** SQLite: the service's file settings, and one transaction per find, synchronously (better-sqlite3). */
export async function sqliteFindStore(file: string): Promise<FindStore> {
  const db = new Database(file);
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const count = db.prepare<[string, string, number], { n: number }>(
    'select count(*) as n from (select 1 from lobby_players where namespace_id = ? and client_addr = ? limit ?)',
  );
  const take = db.prepare<Record<string, string>, FoundSlot>(
    takeSql('', '1 = 1').replace(/\$1/g, '@ns').replace(/\$2/g, '@mode').replace(/\$3/g, '@region'),
  );
  const hold = db.prepare(
    `insert into lobby_players (namespace_id, lobby_id, player_token_hash, state, join_kind, issued_ts,
      connect_deadline_ts, client_addr) values (?, ?, ?, 'pending', 'normal', ?, ?, ?)`,
  );
  const find = db.transaction((namespaceId: string, clientAddr: string) => {
    if ((count.get(namespaceId, clientAddr, CLIENT_CAP)?.n ?? 0) >= CLIENT_CAP) return undefined;
    const slot = take.get({ ns: namespaceId, mode: GROUP.gameMode, region: GROUP.region });
    if (slot === undefined) return undefined;
    const now = Date.now();
    hold.run(namespaceId, slot.lobby_id, randomUUID(), now, now + CONNECT_TIMEOUT_MS, clientAddr);
    return slot;
  });
  const sign = await signer();
  return {
    take: async (namespaceId, clientAddr) => find.immediate(namespaceId, clientAddr),
    sign: (namespaceId, slot, playerId) => sign(playerClaims(namespaceId, slot, playerId)),
  };
}

/** PostgreSQL: the service's one statement (count, slot and pending row), on a pool of 10. */
export async function postgresFindStore(url: string): Promise<FindStore> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const text = `with held as (
      select count(*) as n from (
        select 1 from lobby_players where namespace_id = $1 and client_addr = $4 limit ${CLIENT_CAP}) as mine
    ), taken as (${takeSql('for update skip locked', `(select n from held) < ${CLIENT_CAP}`)}), pending as (
      insert into lobby_players (namespace_id, lobby_id, player_token_hash, state, join_kind, issued_ts,
        connect_deadline_ts, client_addr)
      select $1, lobby_id, $5, 'pending', 'normal', $6::bigint, $7::bigint, $4 from taken
    )
    select taken.lobby_id, taken.region_id, taken.ports from taken`;
  const sign = await signer();
  return {
    async take(namespaceId, clientAddr) {
      const now = Date.now();
      const { rows } = await pool.query<FoundSlot>({
        name: 'bench-find',
        text,
        values: [
          namespaceId,
          GROUP.gameMode,
          GROUP.region,
          clientAddr,
          randomUUID(),
          now,
          now + CONNECT_TIMEOUT_MS,
        ],
      });
      return rows[0];
    },
    sign: (namespaceId, slot, playerId) => sign(playerClaims(namespaceId, slot, playerId)),
  };
}
