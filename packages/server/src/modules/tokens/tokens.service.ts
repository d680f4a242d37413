import {
  type CreateDevelopmentTokenBody,
  checkDevelopmentTarget,
  type DevelopmentTarget,
  developmentPortsOf,
  lobbyPortsAsPorts,
  type PageQuery,
  type TokenList,
  type ValidateDevelopmentTokenBody,
} from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import { assertGameExists, lockGame, namespaceExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import { isTeamRole } from '../../identity/roles.js';
import type { SignedTokenKind } from '../../identity/token-authority.js';
import { findToken } from '../../identity/token-store.js';
import { DAY_MS, toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { revokeStrandedTokens } from './token-revocation.js';
import * as repo from './tokens.repository.js';

/** The person a token is minted for: a signed-in person, or the person a minting cloud token is for. */
export function mintedFor(caller: Caller): string | null {
  if (caller.kind === 'person') return caller.userId;
  // A person's token mints for that person: what it makes answers to their role, as they do.
  return caller.kind === 'game_cloud' ? caller.userId : null;
}

/**
 * Mints a signed cloud token for one game; the row makes it revocable and is written before it is handed
 * out, under the game's lock, so a retirement committing meanwhile cannot miss it and leave it unrevoked.
 */
export async function createCloudToken(deps: Deps, gameId: string, caller: Caller) {
  const claims = await deps.db.transaction().execute(async (trx) => {
    if (!(await lockGame(trx, gameId))) throw errors.gameNotFound();
    return recordToken(deps, trx, { kind: 'cloud', gameId, namespaceId: null, userId: mintedFor(caller) });
  });
  return signMinted(deps, claims);
}

/**
 * A token the hosting data plane uses to write one namespace's lobby log, and nothing else; minted under the
 * game's lock, which deleting the namespace and retiring the game take first too, so neither committing
 * meanwhile can miss the token and leave it unrevoked.
 */
export async function createReporterToken(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  caller: Caller,
) {
  return createNamespaceToken(deps, gameId, namespaceId, {
    kind: 'reporter',
    userId: mintedFor(caller),
    development: null,
  });
}

/**
 * A namespace's public token, which game clients ship with: it may matchmake in the namespace and nothing
 * else. Minted for no person, so a member who mints it and leaves the team does not break every copy of the
 * game (a person's tokens are revoked when they go); the studio revokes it by its id.
 */
export async function createPublicToken(deps: Deps & WithNamespaces, gameId: string, namespaceId: string) {
  return createNamespaceToken(deps, gameId, namespaceId, { kind: 'public', userId: null, development: null });
}

/**
 * A development token: a public token for a developer's machine, which keeps the host and ports lobbies
 * found with it are to point at (docs/interface-notes.md). A body that breaks a rule is 400 VALIDATION_ERROR.
 */
export async function createDevelopmentToken(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  body: CreateDevelopmentTokenBody,
) {
  const ports = developmentPortsOf(body);
  const problems = checkDevelopmentTarget(body.hostname, ports);
  if (problems.length > 0) throw errors.validation(problems);
  const development: DevelopmentTarget = {
    hostname: body.hostname,
    ports: Object.fromEntries(ports.map(([label, port]) => [label, port])),
  };
  return createNamespaceToken(deps, gameId, namespaceId, { kind: 'development', userId: null, development });
}

/** The original's validate: every rule the host and ports break, as `{errors}`; nothing is minted. */
export async function validateDevelopmentToken(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  body: ValidateDevelopmentTokenBody,
) {
  await deps.namespaces.get(gameId, namespaceId);
  return { errors: checkDevelopmentTarget(body.hostname, lobbyPortsAsPorts(body.lobby_ports)) };
}

/**
 * A token of one namespace, minted under the game's lock, which deleting the namespace and retiring the
 * game take first too, so neither committing meanwhile can miss the token and leave it unrevoked.
 */
async function createNamespaceToken(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
  token: { kind: SignedTokenKind; userId: string | null; development: DevelopmentTarget | null },
) {
  // The usual 404s (which of game and namespace is missing) before the locked write.
  await deps.namespaces.get(gameId, namespaceId);
  const claims = await deps.db.transaction().execute(async (trx) => {
    if (!(await lockGame(trx, gameId))) throw errors.gameNotFound();
    if (!(await namespaceExists(trx, gameId, namespaceId))) throw errors.namespaceNotFound();
    return recordToken(deps, trx, { ...token, gameId, namespaceId });
  });
  return signMinted(deps, claims);
}

async function signMinted(deps: Deps, claims: Awaited<ReturnType<typeof recordToken>>) {
  const token = await deps.tokens.signToken(claims);
  return { token, token_id: claims.tokenId, expire_ts: toTimestamp(claims.expireTs) };
}

/**
 * Writes the row of a new signed token (in `db`, which may be a transaction) and returns the claims to sign
 * it with. The row is what makes a token valid and revocable, so it exists before any text is handed out.
 */
export async function recordToken(
  deps: Deps,
  db: Db,
  token: {
    kind: SignedTokenKind;
    gameId: string;
    namespaceId: string | null;
    userId: string | null;
    development?: DevelopmentTarget | null;
  },
) {
  const tokenId = newId();
  const createTs = deps.clock.now();
  const expireTs = createTs + deps.config.cloudTokenTtlDays * DAY_MS;
  await repo.insertToken(db, {
    token_id: tokenId,
    kind: token.kind,
    game_id: token.gameId,
    namespace_id: token.namespaceId,
    create_ts: createTs,
    expire_ts: expireTs,
    revoke_ts: null,
    last_used_ts: null,
    user_id: token.userId,
    development_json: token.development == null ? null : JSON.stringify(token.development),
  });
  return {
    kind: token.kind,
    gameId: token.gameId,
    namespaceId: token.namespaceId,
    tokenId,
    createTs,
    expireTs,
  };
}

/**
 * The text of a stored token, signed again from its row. Ed25519 signatures are deterministic, so the same
 * row and key always give the same text: a caller can hand a token out more than once without the text
 * ever being stored. Undefined when there is no such row.
 */
export async function signStoredToken(deps: Deps, tokenId: string): Promise<string | undefined> {
  const row = await findToken(deps.db, tokenId);
  if (row === undefined) return undefined;
  return deps.tokens.signToken({
    kind: row.kind as SignedTokenKind,
    tokenId,
    gameId: row.game_id,
    namespaceId: row.namespace_id,
    createTs: row.create_ts,
    expireTs: row.expire_ts,
  });
}

/** The text of a stored token (see signStoredToken), or 404 when its row is gone. */
export async function storedTokenText(deps: Deps, tokenId: string): Promise<string> {
  const token = await signStoredToken(deps, tokenId);
  if (token === undefined) throw errors.tokenNotFound();
  return token;
}

/**
 * The operator may revoke any token; a game's token only tokens of its own game, and a person tokens of the
 * games of the teams where they are admin or owner (tokens of games outside their teams are not found).
 */
export async function revokeToken(deps: Deps, caller: Caller, tokenId: string): Promise<void> {
  let gameId: string | undefined;
  if (caller.kind === 'person') {
    const row = await findToken(deps.db, tokenId);
    const teamId = row === undefined ? undefined : await deps.people.teamOfGame(row.game_id);
    if (row === undefined || teamId === undefined || !caller.teams.has(teamId)) throw errors.tokenNotFound();
    deps.people.assertTeamRole(caller, teamId, 'admin');
    gameId = row.game_id;
  } else {
    gameId = caller.kind === 'operator' ? undefined : caller.gameId;
  }
  // The invalidation goes out with the commit, so every instance stops accepting the token together.
  const revoked = await deps.db.transaction().execute(async (trx) => {
    const done = await repo.revokeToken(trx, tokenId, deps.clock.now(), gameId);
    if (done) await deps.caches.publish(trx, { kind: 'tokens', tokenIds: [tokenId] });
    return done;
  });
  deps.tokens.forget(tokenId);
  if (revoked) return;
  // Revoking twice is not an error, but only for a token the caller could have revoked.
  if (!(await repo.tokenExists(deps.db, tokenId, gameId))) throw errors.tokenNotFound();
}

/**
 * A page of the game's tokens, newest first: revoked and expired ones too (with revoke_ts, and an
 * expire_ts in the past), so a studio can audit them. What is never stored cannot be listed: no token
 * text, no hash.
 */
export async function listTokens(deps: Deps, gameId: string, query: PageQuery): Promise<TokenList> {
  const page = readPage('tokens', query);
  // A retired game keeps its (revoked) token rows, so their presence does not prove the game is there.
  await assertGameExists(deps, gameId);
  const rows = await repo.listGameTokens(deps.db, gameId, page.after, page.limit + 1);
  const { items, cursor } = pageOf('tokens', rows, page.limit, (r) => ({ ts: r.create_ts, id: r.token_id }));
  return {
    tokens: items.map((r) => ({
      token_id: r.token_id,
      kind: r.kind as SignedTokenKind,
      namespace_id: r.namespace_id,
      create_ts: toTimestamp(r.create_ts),
      expire_ts: toTimestamp(r.expire_ts),
      last_used_ts: r.last_used_ts === null ? null : toTimestamp(r.last_used_ts),
      revoke_ts: r.revoke_ts === null ? null : toTimestamp(r.revoke_ts),
      ...(r.user_id === null ? {} : { user_id: r.user_id }),
    })),
    ...cursorField(cursor),
  };
}

export async function inspect(deps: Deps, caller: Caller) {
  if (caller.kind === 'operator') return { agent: { operator: {} } };
  if (caller.kind === 'person') {
    return {
      agent: {
        person: {
          user_id: caller.userId,
          email: caller.email,
          name: caller.name,
          teams: [...caller.teams].map(([team_id, role]) => ({ team_id, role })),
        },
      },
    };
  }
  if (caller.kind === 'namespace_reporter') {
    return {
      agent: {
        namespace_reporter: {
          game_id: caller.gameId,
          namespace_id: caller.namespaceId,
          token_id: caller.tokenId,
          create_ts: toTimestamp(caller.createTs),
          expire_ts: toTimestamp(caller.expireTs),
        },
      },
    };
  }
  // The auth hook lets no lobby or game client token reach /cloud routes (auth.ts, rules `lobby`, `matchmaker`).
  if (caller.kind === 'lobby') throw errors.forbidden('a lobby token may only make its lobby’s own calls');
  if (caller.kind === 'game_client') {
    throw errors.forbidden('a public or development token may only matchmake in its namespace');
  }
  // Names, so that `gcm whoami` and the login can say which game, team and person, not only ids.
  const { game, person } = await repo.findTokenNames(deps.db, caller.gameId, caller.userId);
  return {
    agent: {
      game_cloud: {
        game_id: caller.gameId,
        token_id: caller.tokenId,
        create_ts: toTimestamp(caller.createTs),
        expire_ts: toTimestamp(caller.expireTs),
        ...(game === undefined ? {} : { game: { name_id: game.name_id, display_name: game.display_name } }),
        ...(game?.team_id == null || game.team_name == null
          ? {}
          : { team: { team_id: game.team_id, name: game.team_name } }),
        ...(person === undefined
          ? {}
          : {
              minted_for: {
                user_id: person.id,
                email: person.email,
                name: person.name,
                ...(person.role !== null && isTeamRole(person.role) ? { role: person.role } : {}),
              },
            }),
      },
    },
  };
}

/**
 * After a change of who is in a team (or of which team owns a game): the tokens minted for people who may
 * no longer hold one stop working at once (README "People and teams").
 */
export async function revokeStrandedPersonTokens(
  deps: Deps,
  scope: { teamId: string } | { gameId: string } | 'all',
): Promise<number> {
  const revoked = await deps.db
    .transaction()
    .execute((trx) => revokeStrandedTokens(trx, deps.caches, scope, deps.clock.now()));
  for (const tokenId of revoked) deps.tokens.forget(tokenId);
  return revoked.length;
}
