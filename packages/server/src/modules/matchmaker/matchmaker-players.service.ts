import {
  type DevelopmentTarget,
  type FindLobbyBody,
  type JoinLobbyAnswer,
  type JoinLobbyBody,
  type JoinPort,
  MATCHMAKER_LIMITS,
  type ResolvedGameMode,
} from '@gcm/contract';
import { inGroupCommit } from '../../db/group-commit.js';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { GameClientCaller } from '../../identity/callers.js';
import { newId } from '../../lib/ids.js';
import { gameModesOf, type NamespaceWish } from '../runtime/runtime.service.js';
import { admitPlayer } from './admission.js';
import { playerKey } from './matchmaker.service.js';
import * as repo from './matchmaker-players.repository.js';
import { clientNamespace } from './matchmaker-regions.service.js';

/** On PostgreSQL a find whose lobbies were held or filled by others tries again; this many times at most. */
const TAKE_ATTEMPTS = 16;
/** What a client is told to wait when no lobby has room (the reconciler starts idle ones within seconds). */
const NO_CAPACITY_RETRY_SECONDS = 5;

/** A stored port of a runtime lobby (runtime.service StoredPort). */
interface StoredPort {
  name: string;
  protocol: string;
  port: number;
  port_end?: number;
}

const TLS_PROTOCOLS = new Set(['https', 'tcp_tls']);

/**
 * POST /matchmaker/lobbies/find: the first game mode and region, in the order given (without regions: each
 * region the mode runs in, in GCM_REGIONS' order), with a ready, open lobby that has a normal slot; the slot
 * is the player's from this answer until its token is used or expires (GCM_PLAYER_CONNECT_TIMEOUT).
 */
/** Who asks, as admission sees them: the client's address (GCM_TRUST_PROXY applied) and User-Agent. */
export interface GameClient {
  addr: string;
  userAgent: string | undefined;
}

/** The version config's matchmaker.captcha (secrets included), per version: a version never changes. */
const captchaByVersion = new Map<string, unknown>();

function captchaOf(ns: NamespaceWish): unknown | null {
  if (captchaByVersion.has(ns.version_id)) return captchaByVersion.get(ns.version_id) ?? null;
  let captcha: unknown = null;
  try {
    captcha =
      (JSON.parse(ns.config_json) as { matchmaker?: { captcha?: unknown } }).matchmaker?.captcha ?? null;
  } catch {
    captcha = null;
  }
  if (captchaByVersion.size >= 1_000) captchaByVersion.clear();
  captchaByVersion.set(ns.version_id, captcha);
  return captcha;
}

export async function findLobby(
  deps: Deps,
  caller: GameClientCaller,
  body: FindLobbyBody,
  client: GameClient,
): Promise<JoinLobbyAnswer> {
  const clientAddr = client.addr;
  const ns = await clientNamespace(deps, caller);
  const modes = gameModesOf(ns, deps.config.regions);
  const asked: [string, ResolvedGameMode][] = body.game_modes.map((name) => {
    const gm = Object.hasOwn(modes, name) ? modes[name] : undefined;
    if (gm === undefined) throw errors.matchmakerGameModeNotFound(name);
    if (!gm.actions.find.enabled) {
      throw errors.matchmakerActionDisabled('find', `game mode ${JSON.stringify(name)} does not enable find`);
    }
    return [name, gm];
  });
  for (const region of body.regions ?? []) {
    if (!deps.config.regions.includes(region)) throw errors.matchmakerRegionNotFound(region);
  }
  checkJsonSize('verification_data', body.verification_data);
  const tagsJson = canonicalTags(body.tags);
  // The captcha once; each game mode's find verification (the original verified every mode named).
  for (const [index, [gameMode, gm]] of asked.entries()) {
    const verification = gm.actions.find.verification ?? null;
    if (index > 0 && verification === null) continue;
    await admitPlayer(deps, {
      action: 'find',
      namespaceId: ns.namespace_id,
      gameId: ns.game_id,
      gameMode,
      verification,
      captcha: index === 0 ? captchaOf(ns) : null,
      regions: body.regions ?? Object.keys(gm.regions),
      clientAddr,
      ...(client.userAgent === undefined ? {} : { userAgent: client.userAgent }),
      tokenId: caller.tokenId,
      ...(body.captcha === undefined ? {} : { captchaAnswer: body.captcha }),
      ...(body.verification_data === undefined ? {} : { verificationData: body.verification_data }),
    });
  }
  const [, firstGm] = asked[0] as [string, ResolvedGameMode];
  if (caller.development !== null) {
    const region = body.regions?.[0] ?? Object.keys(firstGm.regions)[0] ?? deps.config.regions[0] ?? '';
    return developmentAnswer(deps, ns.namespace_id, caller.development, region);
  }
  for (const [gameMode, gm] of asked) {
    const regions = (body.regions ?? deps.config.regions).filter((r) => Object.hasOwn(gm.regions, r));
    for (const region of regions) {
      const answer = await takeSlotWithToken(deps, ns, { gameMode, region, tagsJson, clientAddr });
      if (answer !== undefined) return answer;
    }
  }
  throw errors.matchmakerNoCapacity(
    NO_CAPACITY_RETRY_SECONDS,
    body.prevent_auto_create_lobby === true
      ? 'no ready lobby of these game modes and regions has a free slot'
      : 'no ready lobby of these game modes and regions has a free slot, and none is starting with room',
  );
}

/**
 * In one transaction: the client's cap (mm-config max_players_per_client, by address), one slot (`take`)
 * and the player's pending row; then the player token naming the lobby and the player. Undefined when `take`
 * took nothing.
 */
async function takeWithToken(
  deps: Deps,
  ns: NamespaceWish,
  clientAddr: string,
  joinKind: 'normal' | 'direct',
  take: (trx: Db) => Promise<repo.TakenLobby | undefined>,
): Promise<JoinLobbyAnswer | undefined> {
  const now = deps.clock.now();
  const deadline = now + deps.config.runtime.playerConnectTimeoutMs;
  const playerId = newId();
  // Group commit: on SQLite the finds of one moment share a commit (one fsync), each answered once durable.
  const lobby = await inGroupCommit(deps.db, async (trx) => {
    const held = await repo.countClientPlayers(
      trx,
      ns.namespace_id,
      clientAddr,
      ns.mm_max_players_per_client,
    );
    if (held >= ns.mm_max_players_per_client) {
      throw errors.matchmakerTooManyPlayersFromClient(ns.mm_max_players_per_client);
    }
    const taken = await take(trx);
    if (taken === undefined) return undefined;
    await repo.insertPendingPlayer(trx, {
      namespaceId: ns.namespace_id,
      lobbyId: taken.lobby_id,
      hash: playerKey(playerId),
      joinKind,
      now,
      deadline,
      clientAddr,
    });
    return taken;
  });
  if (lobby === undefined) return undefined;
  // Signed after the commit: on SQLite a transaction holds the one connection, and an await inside it (the
  // signature is asynchronous) held every other request of the service for as long as the event loop took.
  const token = await deps.tokens.signPlayerToken({
    namespaceId: ns.namespace_id,
    lobbyId: lobby.lobby_id,
    playerId,
    createTs: now,
    // Whole seconds in the token, rounded up: it must not expire before its slot does.
    expireTs: deadline + 999,
  });
  deps.runtime.wake(ns.namespace_id);
  return joinAnswer(deps, lobby, token);
}

/**
 * A normal slot in the group's fullest lobby with room, trying again when another find held or took the
 * lobby chosen. On PostgreSQL the tries alternate: one takes the fullest lobby no other find holds (so
 * concurrent finds fill lobbies side by side), and when every lobby with room was held, the next waits for
 * the fullest one's lock, so a busy group costs a wait, not a spin. No capacity is answered only once a
 * try took nothing and no lobby of the group has room.
 */
async function takeSlotWithToken(
  deps: Deps,
  ns: NamespaceWish,
  where: { gameMode: string; region: string; tagsJson: string | null; clientAddr: string },
): Promise<JoinLobbyAnswer | undefined> {
  const group = { namespaceId: ns.namespace_id, ...where };
  for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
    const skipLocked = attempt % 2 === 0;
    const answer = await takeWithToken(deps, ns, where.clientAddr, 'normal', (trx) =>
      repo.takeSlot(trx, group, { skipLocked }),
    );
    if (answer !== undefined) return answer;
    // Nothing taken: every lobby is full, or (PostgreSQL) each was held or filled while this find waited.
    if (!(await repo.hasRoom(deps.db, group))) return undefined;
  }
  return undefined;
}

/**
 * POST /matchmaker/lobbies/join: a slot in the lobby named, counted against its direct maximum
 * (max_players_direct), when its game mode enables join. A closed lobby may be joined, as the original
 * allowed ("players can still join using /join"); so may a private custom lobby, by its id.
 */
export async function joinLobby(
  deps: Deps,
  caller: GameClientCaller,
  body: JoinLobbyBody,
  client: GameClient,
): Promise<JoinLobbyAnswer> {
  const clientAddr = client.addr;
  const ns = await clientNamespace(deps, caller);
  const lobby = await repo.findJoinable(deps.db, ns.namespace_id, body.lobby_id);
  if (lobby === undefined) throw errors.matchmakerLobbyNotFound();
  const modes = gameModesOf(ns, deps.config.regions);
  const gm = Object.hasOwn(modes, lobby.lobby_group_name_id) ? modes[lobby.lobby_group_name_id] : undefined;
  if (gm === undefined) throw errors.matchmakerGameModeNotFound(lobby.lobby_group_name_id);
  if (!gm.actions.join.enabled) {
    throw errors.matchmakerActionDisabled(
      'join',
      `game mode ${JSON.stringify(lobby.lobby_group_name_id)} does not enable join`,
    );
  }
  checkJsonSize('verification_data', body.verification_data);
  await admitPlayer(deps, {
    action: 'join',
    namespaceId: ns.namespace_id,
    gameId: ns.game_id,
    gameMode: lobby.lobby_group_name_id,
    verification: gm.actions.join.verification ?? null,
    captcha: captchaOf(ns),
    regions: [lobby.region_id],
    lobby: { lobby_id: lobby.lobby_id, region_id: lobby.region_id, state: null },
    clientAddr,
    ...(client.userAgent === undefined ? {} : { userAgent: client.userAgent }),
    tokenId: caller.tokenId,
    ...(body.captcha === undefined ? {} : { captchaAnswer: body.captcha }),
    ...(body.verification_data === undefined ? {} : { verificationData: body.verification_data }),
  });
  const answer = await takeWithToken(deps, ns, clientAddr, 'direct', (trx) =>
    repo.takeDirectSlot(trx, ns.namespace_id, lobby.lobby_id),
  );
  if (answer !== undefined) return answer;
  const now = await repo.findJoinable(deps.db, ns.namespace_id, body.lobby_id);
  if (now === undefined) throw errors.matchmakerLobbyNotFound();
  throw errors.lobbyFull(now.max_direct);
}

/** find/join/create's answer: where the player connects, and the token to connect with. */
function joinAnswer(deps: Deps, lobby: repo.TakenLobby, token: string): JoinLobbyAnswer {
  const hostname =
    deps.config.runtime.publicHosts[lobby.region_id] ?? new URL(deps.config.publicUrl).hostname;
  const ports: Record<string, JoinPort> = {};
  for (const p of JSON.parse(lobby.ports ?? '[]') as StoredPort[]) {
    const isTls = TLS_PROTOCOLS.has(p.protocol);
    ports[p.name] =
      p.port_end === undefined
        ? { host: `${hostname}:${p.port}`, hostname, port: p.port, is_tls: isTls }
        : { hostname, port_range: { min: p.port, max: p.port_end }, is_tls: isTls };
  }
  const player = { token };
  return {
    lobby: {
      lobby_id: lobby.lobby_id,
      region: { region_id: lobby.region_id, display_name: lobby.region_id },
      ports,
      player,
    },
    ports,
    player,
  };
}

/**
 * A development token's find: the lobby is the developer's own server, at the host and ports the token was
 * minted with, as the original's development tokens answered; no container runs and no slot is taken. Its
 * player token is signed for a lobby id made up for this answer, so no running lobby admits it.
 */
async function developmentAnswer(
  deps: Deps,
  namespaceId: string,
  target: DevelopmentTarget,
  region: string,
): Promise<JoinLobbyAnswer> {
  const lobbyId = newId();
  const now = deps.clock.now();
  const token = await deps.tokens.signPlayerToken({
    namespaceId,
    lobbyId,
    playerId: newId(),
    createTs: now,
    expireTs: now + deps.config.runtime.playerConnectTimeoutMs + 999,
  });
  const ports: Record<string, JoinPort> = {};
  for (const [name, p] of Object.entries(target.ports)) {
    const isTls = TLS_PROTOCOLS.has(p.protocol);
    ports[name] =
      p.port !== undefined
        ? { host: `${target.hostname}:${p.port}`, hostname: target.hostname, port: p.port, is_tls: isTls }
        : {
            hostname: target.hostname,
            ...(p.port_range === undefined ? {} : { port_range: p.port_range }),
            is_tls: isTls,
          };
  }
  const player = { token };
  return {
    lobby: { lobby_id: lobbyId, region: { region_id: region, display_name: region }, ports, player },
    ports,
    player,
  };
}

/** Tags as stored and compared: keys sorted, so equal maps give equal text; none (or {}) is null. */
export function canonicalTags(tags: Record<string, string> | undefined): string | null {
  if (tags === undefined) return null;
  const keys = Object.keys(tags).sort();
  if (keys.length === 0) return null;
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, tags[k]])));
}

/** Any-JSON fields are bounded by their serialized size. */
export function checkJsonSize(field: string, value: unknown): void {
  if (value === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes > MATCHMAKER_LIMITS.jsonBytes) {
    throw errors.validation([
      {
        path: [field, 'too-large'],
        message: `${field} must be at most ${MATCHMAKER_LIMITS.jsonBytes} bytes as JSON`,
      },
    ]);
  }
}

/** Expired player tokens deleted per statement: a pass is bounded however many expire at once. */
const EXPIRY_BATCH = 500;

/**
 * Frees the slots of player tokens whose player never connected within GCM_PLAYER_CONNECT_TIMEOUT: deletes
 * their rows and recounts each lobby they were in, a batch at a time, until none is left.
 */
export async function expirePlayerTokens(deps: Deps): Promise<number> {
  let freed = 0;
  for (;;) {
    const rows = await repo.expiredPending(deps.db, deps.clock.now(), EXPIRY_BATCH);
    if (rows.length === 0) return freed;
    const namespaces = new Set<string>();
    await deps.db.transaction().execute(async (trx) => {
      const lobbies = new Map<string, { namespaceId: string; lobbyId: string }>();
      for (const row of rows) {
        lobbies.set(`${row.namespace_id} ${row.lobby_id}`, {
          namespaceId: row.namespace_id,
          lobbyId: row.lobby_id,
        });
      }
      freed += await repo.deleteExpired(trx, rows, deps.clock.now());
      for (const { namespaceId, lobbyId } of lobbies.values()) {
        await repo.recountPlayers(trx, namespaceId, lobbyId);
        namespaces.add(namespaceId);
      }
    });
    for (const namespaceId of namespaces) deps.runtime.wake(namespaceId);
    if (rows.length < EXPIRY_BATCH) return freed;
  }
}
