import {
  type CaptchaAnswer,
  type CreateCustomLobbyBody,
  type DevelopmentTarget,
  type FindLobbyBody,
  type JoinLobbyAnswer,
  type JoinLobbyBody,
  type JoinPort,
  MATCHMAKER_LIMITS,
  type ResolvedGameMode,
} from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import type { Deps, LobbyPlacementResult } from '../../deps.js';
import { errors } from '../../errors.js';
import type { GameClientCaller } from '../../identity/callers.js';
import type { AddressClass } from '../../lib/address-classes.js';
import { newId } from '../../lib/ids.js';
import { captchaOf, gameModesOf, type NamespaceWish } from '../runtime/runtime.service.js';
import { admitPlayer } from './admission.js';
import { waitForReady } from './lobby-ready-wait.js';
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

/** Who asks, as admission sees them: the client's address (GCM_TRUST_PROXY applied) and User-Agent. */
export interface GameClient {
  addr: string;
  userAgent: string | undefined;
}

/**
 * POST /matchmaker/lobbies/find: the first game mode and region, in the order given (without regions: each
 * region the mode runs in, in GCM_REGIONS' order), with a ready, open lobby that has a normal slot; the slot
 * is the player's from this answer until its token is used or expires (GCM_PLAYER_CONNECT_TIMEOUT).
 */
export async function findLobby(
  deps: Deps,
  caller: GameClientCaller,
  body: FindLobbyBody,
  client: GameClient,
): Promise<JoinLobbyAnswer> {
  const clientAddr = client.addr;
  const ns = await clientNamespace(deps, caller);
  const modes = gameModesOf(ns, deps.config.regions);
  const asked: [string, ResolvedGameMode][] = body.game_modes.map((name) => [
    name,
    gameModeFor(modes, name, 'find'),
  ]);
  for (const region of body.regions ?? []) {
    if (!deps.config.regions.includes(region)) throw errors.matchmakerRegionNotFound(region);
  }
  checkJsonSize('verification_data', body.verification_data);
  const tagsJson = canonicalTags(body.tags);
  // As the original (MATCHMAKER_TAGS_DISABLED): tags need every game mode named to be taggable. Ignoring
  // them would find untagged lobbies the player did not ask for; matching them made each new tag a lobby.
  const untaggable = asked.find(([, gm]) => !gm.taggable);
  if (tagsJson !== null && untaggable !== undefined) throw tagsNotAllowed(untaggable[0]);
  const [firstName, firstMode] = asked[0] as [string, ResolvedGameMode];
  const maxPlayers = dynamicMaxPlayers(firstMode, firstName, body.max_players);
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
      captcha: index === 0 ? captchaOf(ns, deps.config.regions) : null,
      regions: body.regions ?? Object.keys(gm.regions),
      ...askedBy(caller, client, body),
    });
  }
  if (caller.development !== null) {
    const region = body.regions?.[0] ?? Object.keys(firstMode.regions)[0] ?? deps.config.regions[0] ?? '';
    return developmentAnswer(deps, ns.namespace_id, caller.development, region);
  }
  const groups = asked.flatMap(([gameMode, gm]) =>
    (body.regions ?? deps.config.regions)
      .filter((r) => Object.hasOwn(gm.regions, r))
      .map((region) => ({ gameMode, region })),
  );
  for (const { gameMode, region } of groups) {
    const answer = await takeSlotWithToken(deps, ns, { gameMode, region, tagsJson, clientAddr });
    if (answer !== undefined) return answer;
  }
  const full = 'no ready lobby of these game modes and regions has a free slot';
  if (body.prevent_auto_create_lobby === true) {
    throw errors.matchmakerNoCapacity(NO_CAPACITY_RETRY_SECONDS, full, 'prevent-auto-create-lobby');
  }
  if (deps.runtime.kind === 'none') throw noRuntime(full);
  // A starting lobby with room first (its player waits for its ready as a new one's would), else a new one:
  // twice, since a find that lost the last placement to another may find room in the lobby that one placed.
  let refused: PlacementRefusal | undefined;
  for (let round = 0; round < 2; round++) {
    for (const { gameMode, region } of groups) {
      const where = { gameMode, region, tagsJson };
      const waiting = await holdStartingSlot(deps, ns, clientAddr, where);
      if (waiting !== undefined) return answerWhenReady(deps, ns, waiting);
      const placed = await placeWithSlot(deps, ns, clientAddr, {
        ...where,
        ...(maxPlayers === undefined || gameMode !== firstName ? {} : { maxPlayers }),
      });
      if (placed.placed) return answerWhenReady(deps, ns, placed);
      refused = placed;
      if (placed.why === 'namespace-full') break;
    }
  }
  throw noRoom(ns, refused, full);
}

/** find's or create's tags on a game mode that is not taggable: 400 naming the field and the game mode. */
function tagsNotAllowed(gameMode: string) {
  return errors.validation([
    {
      path: ['tags', 'not-allowed'],
      message: `game mode ${JSON.stringify(gameMode)} is not taggable: leave tags out`,
    },
  ]);
}

/** Who asks and what they answered, as admission reads it, from find's, join's or create's body. */
function askedBy(
  caller: GameClientCaller,
  client: GameClient,
  body: { captcha?: CaptchaAnswer; verification_data?: unknown },
) {
  return {
    clientAddr: client.addr,
    ...(client.userAgent === undefined ? {} : { userAgent: client.userAgent }),
    tokenId: caller.tokenId,
    ...(body.captcha === undefined ? {} : { captchaAnswer: body.captcha }),
    ...(body.verification_data === undefined ? {} : { verificationData: body.verification_data }),
  };
}

/** find/join/create's game mode by name, when the namespace's version has it and it enables the action. */
function gameModeFor(
  modes: Record<string, ResolvedGameMode>,
  name: string,
  action: 'find' | 'join' | 'create',
): ResolvedGameMode {
  const gm = Object.hasOwn(modes, name) ? modes[name] : undefined;
  if (gm === undefined) throw errors.matchmakerGameModeNotFound(name);
  if (!gm.actions[action].enabled) {
    throw errors.matchmakerActionDisabled(
      action,
      `game mode ${JSON.stringify(name)} does not enable ${action}`,
    );
  }
  return gm;
}

/**
 * A request's max_players, for a lobby it creates: only when the game mode allows_dynamic_max_players, and
 * at most its largest count (the original's MATCHMAKER_DYNAMIC_MAX_PLAYERS_* rules, as a 400 naming it).
 */
function dynamicMaxPlayers(
  gm: ResolvedGameMode,
  name: string,
  asked: number | undefined,
): number | undefined {
  if (asked === undefined) return undefined;
  if (!gm.allow_dynamic_max_players) {
    throw errors.validation([
      {
        path: ['max_players', 'not-allowed'],
        message: `game mode ${JSON.stringify(name)} does not allow_dynamic_max_players: leave max_players out`,
      },
    ]);
  }
  const max = Math.max(gm.max_players, gm.max_players_direct);
  if (asked > max) {
    throw errors.validation([
      {
        path: ['max_players', 'too-large'],
        message: `max_players must be at most ${max}, game mode ${JSON.stringify(name)}'s own maximum`,
      },
    ]);
  }
  return asked;
}

type PlacementRefusal = Extract<LobbyPlacementResult, { placed: false }> & {
  gameMode?: string;
  region?: string;
};

const noRuntime = (prefix: string) =>
  errors.matchmakerNoCapacity(
    NO_CAPACITY_RETRY_SECONDS,
    `${prefix}, and this service runs no lobbies itself (GCM_RUNTIME=none): only the lobbies the data plane runs take players`,
    'no-runtime',
  );

/** MATCHMAKER_NO_CAPACITY naming why no lobby could be created (metadata.reason). */
function noRoom(ns: NamespaceWish, refused: PlacementRefusal | undefined, prefix: string) {
  if (refused === undefined) return errors.matchmakerNoCapacity(NO_CAPACITY_RETRY_SECONDS, prefix);
  if (refused.why === 'no-runtime') return noRuntime(prefix);
  const where = `region ${JSON.stringify(refused.region ?? '')}`;
  const why: Record<typeof refused.why, string> = {
    'namespace-full': `the namespace runs its lobby_count_max (${ns.mm_lobby_count_max}) lobbies already`,
    'host-full': `${where}'s host runs GCM_RUNTIME_MAX_LOBBIES_PER_HOST lobbies already`,
    'host-share': `${where}'s host keeps the free slots it has left for other namespaces' idle lobbies (its GCM_RUNTIME_MAX_LOBBIES_PER_HOST is shared between them)`,
    'no-ports': `${where}'s host has no free port of GCM_RUNTIME_PORT_RANGE left`,
    'not-run': `game mode ${JSON.stringify(refused.gameMode ?? '')} runs no lobby in ${where} (no build in its container, or no host for the region)`,
    image: `game mode ${JSON.stringify(refused.gameMode ?? '')}'s build failed to load on ${where}'s host; its lobbies wait for the retry`,
  };
  return errors.matchmakerNoCapacity(
    NO_CAPACITY_RETRY_SECONDS,
    `${prefix}, and no lobby can be created: ${why[refused.why]}`,
    refused.why,
  );
}

/** A slot held for a player in a lobby that is not ready yet: the player's id and the slot's deadline. */
interface HeldSlot {
  lobbyId: string;
  playerId: string;
  now: number;
  deadline: number;
}

/** Until the lobby is ready, and then GCM_PLAYER_CONNECT_TIMEOUT from there at the latest. */
function heldSlot(deps: Deps): Omit<HeldSlot, 'lobbyId'> {
  const now = deps.clock.now();
  const { readyWaitMs, playerConnectTimeoutMs } = deps.config.runtime;
  return { playerId: newId(), now, deadline: now + readyWaitMs + playerConnectTimeoutMs };
}

/** In the slot's transaction: the client's cap (max_players_per_client), then the player's pending row. */
async function checkCapAndHold(
  deps: Deps,
  trx: Db,
  ns: NamespaceWish,
  clientAddr: string,
  joinKind: 'normal' | 'direct',
  slot: HeldSlot,
): Promise<void> {
  await assertClientCap(deps, trx, ns, clientAddr);
  await repo.insertPendingPlayer(trx, {
    namespaceId: ns.namespace_id,
    lobbyId: slot.lobbyId,
    hash: playerKey(slot.playerId),
    joinKind,
    now: slot.now,
    deadline: slot.deadline,
    clientAddr,
  });
}

async function assertClientCap(deps: Deps, trx: Db, ns: NamespaceWish, clientAddr: string): Promise<void> {
  const cap = clientCap(deps, ns, clientAddr);
  assertUnderCap(cap, await repo.countClientPlayers(trx, ns.namespace_id, clientAddr, cap.max));
}

function assertUnderCap(cap: ClientCap, held: number): void {
  if (held >= cap.max) throw errors.matchmakerTooManyPlayersFromClient(cap.max, cap.addressClass);
}

/** A normal slot in a starting lobby of the group with room; undefined when none has. */
async function holdStartingSlot(
  deps: Deps,
  ns: NamespaceWish,
  clientAddr: string,
  where: { gameMode: string; region: string; tagsJson: string | null },
): Promise<HeldSlot | undefined> {
  const slot = heldSlot(deps);
  return deps.db.transaction().execute(async (trx) => {
    const taken = await repo.takeStartingSlot(trx, { namespaceId: ns.namespace_id, ...where });
    if (taken === undefined) return undefined;
    const held = { ...slot, lobbyId: taken.lobby_id };
    // A client at its cap throws here, and the slot just taken is rolled back with the rest.
    await checkCapAndHold(deps, trx, ns, clientAddr, 'normal', held);
    return held;
  });
}

/** A new lobby through the runtime's placement, with the player's slot in the same transaction. */
async function placeWithSlot(
  deps: Deps,
  ns: NamespaceWish,
  clientAddr: string,
  lobby: {
    gameMode: string;
    region: string;
    tagsJson: string | null;
    maxPlayers?: number;
    publicity?: 'public' | 'private';
    lobbyConfigJson?: string | null;
  },
): Promise<({ placed: true } & HeldSlot) | PlacementRefusal> {
  const slot = heldSlot(deps);
  const placed = await deps.runtime.placeNow({
    namespaceId: ns.namespace_id,
    ...lobby,
    within: async (trx, lobbyId) => {
      await checkCapAndHold(deps, trx, ns, clientAddr, 'normal', { ...slot, lobbyId });
      await repo.recountPlayers(trx, ns.namespace_id, lobbyId);
    },
  });
  if (!placed.placed) return { ...placed, gameMode: lobby.gameMode, region: lobby.region };
  return { placed: true, ...slot, lobbyId: placed.lobbyId };
}

/**
 * Waits (GCM_MATCHMAKER_READY_WAIT_SECONDS at most) for the lobby the player holds a slot in to be ready,
 * then answers as find does. A lobby that is not ready in time, or stopped, frees the slot: 503.
 */
async function answerWhenReady(deps: Deps, ns: NamespaceWish, slot: HeldSlot): Promise<JoinLobbyAnswer> {
  const waitMs = deps.config.runtime.readyWaitMs;
  const waited = await waitForReady(deps, ns.namespace_id, slot.lobbyId, waitMs);
  if (!waited.ready) {
    await deps.db
      .transaction()
      .execute((trx) => repo.releasePending(trx, ns.namespace_id, slot.lobbyId, playerKey(slot.playerId)));
    deps.runtime.wake(ns.namespace_id);
    throw errors.matchmakerNoCapacity(
      NO_CAPACITY_RETRY_SECONDS,
      waited.why === 'timeout'
        ? `the lobby started for this request was not ready within GCM_MATCHMAKER_READY_WAIT_SECONDS (${waitMs / 1000} s)`
        : 'the lobby started for this request stopped before it was ready',
      waited.why === 'timeout' ? 'ready-timeout' : 'lobby-stopped',
    );
  }
  return answerHeld(deps, ns, waited.lobby, slot, true);
}

/**
 * POST /matchmaker/lobbies/create: a custom lobby of a game mode whose actions.create is enabled (and
 * enable_public/enable_private for its publicity), with its tags (taggable), max_players
 * (allow_dynamic_max_players) and lobby_config (the container's GCM_LOBBY_CONFIG); the creator holds its
 * first slot, answered once the lobby is ready, as find's auto-create is. A private lobby is never found
 * nor listed: players join it by id.
 */
export async function createLobby(
  deps: Deps,
  caller: GameClientCaller,
  body: CreateCustomLobbyBody,
  client: GameClient,
): Promise<JoinLobbyAnswer> {
  const clientAddr = client.addr;
  const ns = await clientNamespace(deps, caller);
  const modes = gameModesOf(ns, deps.config.regions);
  const name = body.game_mode;
  const gm = gameModeFor(modes, name, 'create');
  const publicity = body.publicity ?? 'public';
  if (!(publicity === 'public' ? gm.actions.create.enable_public : gm.actions.create.enable_private)) {
    throw errors.matchmakerActionDisabled(
      'create',
      `game mode ${JSON.stringify(name)} does not enable ${publicity} custom lobbies`,
    );
  }
  const region = body.region ?? deps.config.regions.find((r) => Object.hasOwn(gm.regions, r));
  if (region !== undefined && !deps.config.regions.includes(region)) {
    throw errors.matchmakerRegionNotFound(region);
  }
  if (region === undefined || !Object.hasOwn(gm.regions, region)) {
    throw errors.validation([
      {
        path: ['region', 'not-enabled'],
        message: `game mode ${JSON.stringify(name)} runs in no region ${region === undefined ? 'of the service' : JSON.stringify(region)}`,
      },
    ]);
  }
  const tagsJson = canonicalTags(body.tags);
  if (tagsJson !== null && !gm.taggable) throw tagsNotAllowed(name);
  const maxPlayers = dynamicMaxPlayers(gm, name, body.max_players);
  checkJsonSize('verification_data', body.verification_data);
  checkJsonSize('lobby_config', body.lobby_config);
  await admitPlayer(deps, {
    action: 'create',
    namespaceId: ns.namespace_id,
    gameId: ns.game_id,
    gameMode: name,
    verification: gm.actions.create.verification ?? null,
    captcha: captchaOf(ns, deps.config.regions),
    regions: [region],
    ...askedBy(caller, client, body),
    create: {
      publicity,
      tags: body.tags ?? {},
      max_players: maxPlayers ?? null,
      lobby_config: body.lobby_config ?? null,
    },
  });
  if (caller.development !== null) {
    return developmentAnswer(deps, ns.namespace_id, caller.development, region);
  }
  const prefix = 'no custom lobby can be created';
  if (deps.runtime.kind === 'none') throw noRuntime(prefix);
  const placed = await placeWithSlot(deps, ns, clientAddr, {
    gameMode: name,
    region,
    tagsJson,
    publicity,
    lobbyConfigJson: body.lobby_config === undefined ? null : JSON.stringify(body.lobby_config),
    ...(maxPlayers === undefined ? {} : { maxPlayers }),
  });
  if (!placed.placed) throw noRoom(ns, placed, prefix);
  return answerWhenReady(deps, ns, placed);
}

interface ClientCap {
  max: number;
  addressClass?: AddressClass;
}

/**
 * The players one client address may hold in the namespace: max_players_per_client, or the lowest cap of
 * the classes (hosting, proxy, Tor, VPN) the address is in, naming that class (mm-config sets all five
 * alike today, so a classed address is refused at the same count, but told why).
 */
function clientCap(deps: Deps, ns: NamespaceWish, clientAddr: string): ClientCap {
  let cap: ClientCap = { max: ns.mm_max_players_per_client };
  for (const addressClass of deps.addressClasses.classesOf(clientAddr)) {
    const max = ns[`mm_max_players_per_client_${addressClass}`];
    if (max <= cap.max) cap = { max, addressClass };
  }
  return cap;
}

/**
 * Atomically: the client's cap (mm-config max_players_per_client, by address), one slot of `target` and the
 * player's pending row (repo.takeAndHold); then the player token naming the lobby and the player. Undefined
 * when nothing was taken.
 */
async function takeWithToken(
  deps: Deps,
  ns: NamespaceWish,
  clientAddr: string,
  joinKind: 'normal' | 'direct',
  target: repo.SlotTarget,
): Promise<JoinLobbyAnswer | undefined> {
  const now = deps.clock.now();
  const deadline = now + deps.config.runtime.playerConnectTimeoutMs;
  const playerId = newId();
  const cap = clientCap(deps, ns, clientAddr);
  const { held, lobby } = await repo.takeAndHold(deps.db, target, {
    namespaceId: ns.namespace_id,
    hash: playerKey(playerId),
    joinKind,
    now,
    deadline,
    clientAddr,
    cap: cap.max,
  });
  assertUnderCap(cap, held);
  if (lobby === undefined) return undefined;
  // Signed after the commit: on SQLite a transaction holds the one connection, and an await inside it (the
  // signature was asynchronous once) held every other request of the service for as long as the event loop
  // took.
  // Only a lobby's first player changes what the reconciler counts (an idle lobby became busy).
  const wake = lobby.player_count === 1;
  return answerHeld(deps, ns, lobby, { lobbyId: lobby.lobby_id, playerId, now, deadline }, wake);
}

/** A held slot's player token: whole seconds in the token, rounded up, so it never expires before its slot. */
function signHeld(deps: Deps, namespaceId: string, slot: HeldSlot): Promise<string> {
  return deps.tokens.signPlayerToken({
    namespaceId,
    lobbyId: slot.lobbyId,
    playerId: slot.playerId,
    createTs: slot.now,
    expireTs: slot.deadline + 999,
  });
}

/**
 * The answer for a slot held in `lobby`, with its player token; the reconciler woken when `wake` (the lobby's
 * players changed what it counts). Not on every find: each wake is a pass over every live lobby, and a burst
 * of finds into busy lobbies kept the reconciler passing back to back.
 */
async function answerHeld(
  deps: Deps,
  ns: NamespaceWish,
  lobby: Parameters<typeof joinAnswer>[1],
  slot: HeldSlot,
  wake: boolean,
): Promise<JoinLobbyAnswer> {
  const token = await signHeld(deps, ns.namespace_id, slot);
  if (wake) deps.runtime.wake(ns.namespace_id);
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
    const answer = await takeWithToken(deps, ns, where.clientAddr, 'normal', {
      kind: 'group',
      group,
      skipLocked,
    });
    if (answer !== undefined) return answer;
    // Nothing taken: every lobby is full, or (PostgreSQL) each was held or filled while this find waited.
    if (!(await repo.hasRoom(deps.db, group))) return undefined;
  }
  return undefined;
}

/**
 * POST /matchmaker/lobbies/join: a slot in the lobby named, counted against its direct maximum
 * (max_players_direct), when its game mode enables join. A closed lobby may be joined, as the original
 * allowed ("players can still join using /join"); so may a private custom lobby, by its id. A development
 * token's join answers the developer's own server, as its find and create do (the original's mock lobby),
 * whatever lobby it names: it takes no slot, and no running lobby admits its player token.
 */
export async function joinLobby(
  deps: Deps,
  caller: GameClientCaller,
  body: JoinLobbyBody,
  client: GameClient,
): Promise<JoinLobbyAnswer> {
  const clientAddr = client.addr;
  const ns = await clientNamespace(deps, caller);
  if (caller.development !== null) {
    checkJsonSize('verification_data', body.verification_data);
    return developmentAnswer(deps, ns.namespace_id, caller.development, deps.config.regions[0] ?? '');
  }
  const lobby = await repo.findJoinable(deps.db, ns.namespace_id, body.lobby_id);
  if (lobby === undefined) throw errors.matchmakerLobbyNotFound();
  const gm = gameModeFor(gameModesOf(ns, deps.config.regions), lobby.lobby_group_name_id, 'join');
  checkJsonSize('verification_data', body.verification_data);
  await admitPlayer(deps, {
    action: 'join',
    namespaceId: ns.namespace_id,
    gameId: ns.game_id,
    gameMode: lobby.lobby_group_name_id,
    verification: gm.actions.join.verification ?? null,
    captcha: captchaOf(ns, deps.config.regions),
    regions: [lobby.region_id],
    lobby: { lobby_id: lobby.lobby_id, region_id: lobby.region_id, state: null },
    ...askedBy(caller, client, body),
  });
  const answer = await takeWithToken(deps, ns, clientAddr, 'direct', {
    kind: 'lobby',
    namespaceId: ns.namespace_id,
    lobbyId: lobby.lobby_id,
  });
  if (answer !== undefined) return answer;
  const now = await repo.findJoinable(deps.db, ns.namespace_id, body.lobby_id);
  if (now === undefined) throw errors.matchmakerLobbyNotFound();
  throw errors.lobbyFull(now.max_direct);
}

/** find/join/create's answer: where the player connects, and the token to connect with. */
function joinAnswer(deps: Deps, lobby: repo.TakenLobby, token: string): JoinLobbyAnswer {
  const hostname =
    lobby.public_host ??
    deps.config.runtime.publicHosts[lobby.region_id] ??
    new URL(deps.config.publicUrl).hostname;
  const ports: Record<string, JoinPort> = {};
  for (const p of JSON.parse(lobby.ports ?? '[]') as StoredPort[]) {
    ports[p.name] =
      p.port_end === undefined
        ? joinPort(hostname, p.protocol, p.port)
        : joinPort(hostname, p.protocol, undefined, { min: p.port, max: p.port_end });
  }
  return answerOf(lobby.lobby_id, lobby.region_id, ports, token);
}

/** One port of the answer: `port` (and `host`) for a single port, else its `port_range` when it has one. */
function joinPort(
  hostname: string,
  protocol: string,
  port: number | undefined,
  range?: { min: number; max: number },
): JoinPort {
  const isTls = TLS_PROTOCOLS.has(protocol);
  if (port !== undefined) return { host: `${hostname}:${port}`, hostname, port, is_tls: isTls };
  return { hostname, ...(range === undefined ? {} : { port_range: range }), is_tls: isTls };
}

function answerOf(
  lobbyId: string,
  region: string,
  ports: Record<string, JoinPort>,
  token: string,
): JoinLobbyAnswer {
  const player = { token };
  return {
    lobby: { lobby_id: lobbyId, region: { region_id: region, display_name: region }, ports, player },
    ports,
    player,
  };
}

/**
 * A development token's find, create or join: the lobby is the developer's own server, at the host and
 * ports the token was minted with, as the original's development tokens answered; no container runs and no
 * slot is taken. Its player token is signed for a lobby id made up for this answer, so no running lobby
 * admits it.
 */
async function developmentAnswer(
  deps: Deps,
  namespaceId: string,
  target: DevelopmentTarget,
  region: string,
): Promise<JoinLobbyAnswer> {
  const lobbyId = newId();
  const now = deps.clock.now();
  const deadline = now + deps.config.runtime.playerConnectTimeoutMs;
  const token = await signHeld(deps, namespaceId, { lobbyId, playerId: newId(), now, deadline });
  const ports: Record<string, JoinPort> = {};
  for (const [name, p] of Object.entries(target.ports)) {
    ports[name] = joinPort(target.hostname, p.protocol, p.port, p.port_range);
  }
  return answerOf(lobbyId, region, ports, token);
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
