import {
  checkDisplayName,
  checkNameId,
  GAME_DISPLAY_NAME_MAX_BYTES,
  type NamespaceList,
  type PageQuery,
  quote,
} from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import { gameExists, lockGame } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors, type ValidationErrorItem } from '../../errors.js';
import { isBcryptHash } from '../../lib/bcrypt-format.js';
import type { Invalidation } from '../../lib/cache-coherence.js';
import { toTimestamp } from '../../lib/clock.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { newId } from '../../lib/ids.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import type { ReadCache } from '../../lib/read-cache.js';
import { revokeTokensOf } from '../tokens/token-revocation.js';
import { versionExists, versionToRunNotFound } from '../versions/versions.service.js';
import type { GameNamespacesWrite, NamespaceWrite } from './namespaces.repository.js';
import * as repo from './namespaces.repository.js';

export const NAMESPACE_DEFAULTS = {
  cdnAuthType: 'none',
  lobbyCountMax: 256,
  maxPlayersPerClient: 8,
} as const;
export const LOBBY_COUNT_MAX_LIMIT = 32767;
export const MAX_CDN_AUTH_USERS = 32;
const CDN_USER_MAX_BYTES = 64;
/** Views kept at most; the oldest is dropped first. */
const VIEW_CACHE_ENTRIES = 10_000;

/** What services of other modules that read namespaces take besides Deps (made in the composition root). */
export interface WithNamespaces {
  readonly namespaces: Namespaces;
}

/**
 * Says which of game and namespace is missing, once the cheap happy path has failed. Takes the handle in
 * use, because inside a transaction a query on another handle would wait for this one forever on SQLite.
 */
async function namespaceNotFound(db: Db, gameId: string): Promise<never> {
  if (!(await gameExists(db, gameId))) throw errors.gameNotFound();
  throw errors.namespaceNotFound();
}

function namespaceNameIdTaken(nameId: string): ValidationErrorItem {
  return {
    path: ['name-id', 'not-unique'],
    message: `name_id ${quote(nameId)} is taken by another namespace of this game`,
  };
}

/** A page of the game's namespaces, oldest first (the order of the game's `namespaces`). */
export async function listNamespaces(deps: Deps, gameId: string, query: PageQuery): Promise<NamespaceList> {
  const page = readPage('namespaces', query);
  const rows = await repo.listNamespacePage(deps.db, gameId, page.after, page.limit + 1);
  // Only an empty page needs the game looked up: a game with namespaces exists.
  if (rows.length === 0 && !(await gameExists(deps.db, gameId))) throw errors.gameNotFound();
  const { items, cursor } = pageOf('namespaces', rows, page.limit, (r) => ({
    ts: r.create_ts,
    id: r.namespace_id,
  }));
  return {
    namespaces: items.map((r) => ({ ...r, create_ts: toTimestamp(r.create_ts) })),
    ...cursorField(cursor),
  };
}

export type NamespaceView = NonNullable<Awaited<ReturnType<typeof loadNamespaceView>>>;

function viewKey(gameId: string, namespaceId: string): string {
  return `${gameId}/${namespaceId}`;
}

async function loadNamespaceView(db: Db, gameId: string, namespaceId: string) {
  const rows = await repo.findNamespaceWithUserNames(db, gameId, namespaceId);
  const row = rows[0];
  if (row === undefined) return undefined;
  const users = rows.flatMap((r) => (r.user_name === null ? [] : [{ user: r.user_name }]));
  return {
    namespace_id: row.namespace_id,
    version_id: row.version_id,
    name_id: row.name_id,
    display_name: row.display_name,
    create_ts: toTimestamp(row.create_ts),
    config: {
      cdn: {
        auth_type: row.cdn_auth_type,
        auth_user_list: users,
        domains: [],
        enable_domain_public_auth: row.cdn_enable_domain_public_auth === 1,
      },
      identity: {},
      kv: {},
      matchmaker: {
        lobby_count_max: row.mm_lobby_count_max,
        max_players_per_client: row.mm_max_players_per_client,
        max_players_per_client_hosting: row.mm_max_players_per_client_hosting,
        max_players_per_client_proxy: row.mm_max_players_per_client_proxy,
        max_players_per_client_tor: row.mm_max_players_per_client_tor,
        max_players_per_client_vpn: row.mm_max_players_per_client_vpn,
      },
    },
  };
}

// Basic auth sends "user:password", so a colon cannot be part of a user name.
const FORBIDDEN_IN_CDN_USER = /[\s:\p{Cc}\p{Cf}]/u;

function checkCdnUserName(user: string): ValidationErrorItem[] {
  const bytes = Buffer.byteLength(user, 'utf8');
  if (bytes === 0) {
    return [
      { path: ['user', 'too-short'], message: `user is empty; it needs 1 to ${CDN_USER_MAX_BYTES} bytes` },
    ];
  }
  const found: ValidationErrorItem[] = [];
  if (bytes > CDN_USER_MAX_BYTES) {
    found.push({
      path: ['user', 'too-long'],
      message: `user is ${bytes} bytes of UTF-8; at most ${CDN_USER_MAX_BYTES}`,
    });
  }
  if (FORBIDDEN_IN_CDN_USER.test(user)) {
    found.push({
      path: ['user', 'invalid'],
      message:
        'user may hold no white space, control or format characters, and no ":" (basic auth splits on it)',
    });
  }
  return found;
}

/** Each Namespaces' view cache, for cachedViewsOf: a seam of the tests, kept out of the class's type. */
const viewCaches = new WeakMap<Namespaces, { readonly size: number }>();

/** Views held now; for the tests that check the cache is used (SQLite) or off (PostgreSQL). */
export function cachedViewsOf(namespaces: Namespaces): number {
  return viewCaches.get(namespaces)?.size ?? 0;
}

/**
 * The namespaces module: its operations, and the cache of rendered namespaces (interface 4.2) that only it
 * can reach. The composition root makes one per process.
 *
 * Namespace rows and their CDN users are written only through a `NamespaceWrite` (or, retiring a game, a
 * `GameNamespacesWrite`) handle, and the only place that makes one is `write` (or `deleteAllOfGame`) below,
 * which drops the cached views once the transaction is over. So no write, here or in another module, can
 * leave a stale view behind; test/modules/namespace-writes.test.ts keeps it so.
 */
export class Namespaces {
  readonly #views: ReadCache<string, NamespaceView>;

  /** On a shared store, other instances' writes reach the view cache through `deps.caches`. */
  constructor(private readonly deps: Deps) {
    const { caches } = deps;
    const views = caches.newCache<string, NamespaceView>(VIEW_CACHE_ENTRIES);
    caches.listen({
      apply: (invalidation: Invalidation) => {
        if (invalidation.kind === 'namespace') {
          views.invalidate(viewKey(invalidation.gameId, invalidation.namespaceId));
        } else if (invalidation.kind === 'game-namespaces') {
          const prefix = viewKey(invalidation.gameId, '');
          views.invalidateWhere((key) => key.startsWith(prefix));
        }
      },
      clear: () => views.clear(),
    });
    this.#views = views;
    viewCaches.set(this, views);
  }

  /**
   * Runs `work` in a transaction with a handle on one namespace. Other instances hear of the change when it
   * commits (the invalidation is published inside the transaction); this one drops the view after the
   * transaction ends, committed or not: a view loaded meanwhile is not kept either (ReadCache's generation).
   */
  private async write<T>(
    gameId: string,
    namespaceId: string,
    work: (w: NamespaceWrite) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const result = await work({ db: trx, gameId, namespaceId } as unknown as NamespaceWrite);
        await this.deps.caches.publish(trx, { kind: 'namespace', gameId, namespaceId });
        return result;
      });
    } finally {
      // Every cache of namespaces (this view, the matchmaker's namespace config) drops it.
      this.deps.caches.wrote({ kind: 'namespace', gameId, namespaceId });
    }
  }

  /**
   * The namespace's view when the read cache holds it, without a promise (what `get` answers at once
   * then); undefined when `get` has to ask the store.
   */
  cached(gameId: string, namespaceId: string): NamespaceView | undefined {
    return this.#views.peek(viewKey(gameId, namespaceId));
  }

  /** The namespace as 4.2 renders it; served from the cache when the store allows caching. */
  async get(gameId: string, namespaceId: string): Promise<NamespaceView> {
    const view = await this.#views.get(viewKey(gameId, namespaceId), () =>
      loadNamespaceView(this.deps.db, gameId, namespaceId),
    );
    if (view === undefined) return namespaceNotFound(this.deps.db, gameId);
    return view;
  }

  async create(
    gameId: string,
    input: { name_id: string; display_name: string; version_id: string },
  ): Promise<string> {
    const namespaceId = newId();
    const now = this.deps.clock.now();
    const caps = NAMESPACE_DEFAULTS.maxPlayersPerClient;
    try {
      await this.write(gameId, namespaceId, async (w) => {
        // The game's lock: a game being retired cannot gain a namespace its retirement does not see.
        if (!(await lockGame(w.db, gameId))) throw errors.gameNotFound();
        const found: ValidationErrorItem[] = [
          ...checkDisplayName(input.display_name, GAME_DISPLAY_NAME_MAX_BYTES),
          ...checkNameId(input.name_id),
        ];
        if (
          found.every((e) => e.path[0] !== 'name-id') &&
          (await repo.namespaceNameIdTaken(w.db, gameId, input.name_id))
        ) {
          found.push(namespaceNameIdTaken(input.name_id));
        }
        if (found.length > 0) throw errors.validation(found);
        if (!(await versionExists(w.db, gameId, input.version_id))) {
          throw await versionToRunNotFound(w.db, gameId);
        }
        await repo.insertNamespace(w, {
          version_id: input.version_id,
          previous_version_id: null,
          name_id: input.name_id,
          display_name: input.display_name,
          create_ts: now,
          update_ts: now,
          cdn_auth_type: NAMESPACE_DEFAULTS.cdnAuthType,
          cdn_enable_domain_public_auth: 0,
          mm_lobby_count_max: NAMESPACE_DEFAULTS.lobbyCountMax,
          mm_max_players_per_client: caps,
          mm_max_players_per_client_hosting: caps,
          mm_max_players_per_client_proxy: caps,
          mm_max_players_per_client_tor: caps,
          mm_max_players_per_client_vpn: caps,
          delete_ts: null,
          purge_ts: null,
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw errors.validation([namespaceNameIdTaken(input.name_id)]);
      throw err;
    }
    return namespaceId;
  }

  private updateOrThrow(
    gameId: string,
    namespaceId: string,
    values: Parameters<typeof repo.updateNamespace>[1],
  ): Promise<void> {
    return this.write(gameId, namespaceId, async (w) => {
      if (!(await repo.updateNamespace(w, values))) await namespaceNotFound(w.db, gameId);
    });
  }

  async setVersion(gameId: string, namespaceId: string, versionId: string): Promise<void> {
    const { db, clock } = this.deps;
    if (!(await versionExists(db, gameId, versionId))) {
      // A missing namespace or game outranks a missing version: check the path first.
      if ((await repo.findNamespace(db, gameId, namespaceId)) === undefined) {
        await namespaceNotFound(db, gameId);
      }
      throw await versionToRunNotFound(db, gameId);
    }
    // The deployment's event is queued in its transaction, and only when the version really changed.
    await this.write(gameId, namespaceId, async (w) => {
      const previous = await repo.lockedVersionOf(w);
      // The version it ran before stays the previous one until a switch to another: the image collector
      // keeps both versions' images, so switching back is instant.
      const values = {
        version_id: versionId,
        update_ts: clock.now(),
        ...(previous === undefined || previous === versionId ? {} : { previous_version_id: previous }),
      };
      if (!(await repo.updateNamespace(w, values))) {
        return namespaceNotFound(w.db, gameId);
      }
      if (previous === versionId) return;
      await this.deps.webhooks.gameEvent(w.db, gameId, {
        type: 'version.deployed',
        resourceKey: `namespace:${namespaceId}`,
        data: {
          namespace_id: namespaceId,
          version_id: versionId,
          ...(previous === undefined ? {} : { previous_version_id: previous }),
        },
      });
    });
    // Committed: the runtime starts the new version's lobbies and retires the old ones.
    this.deps.runtime.wake(namespaceId);
  }

  async updateMatchmakerConfig(
    gameId: string,
    namespaceId: string,
    input: { lobby_count_max: number; max_players: number },
  ): Promise<void> {
    const found: ValidationErrorItem[] = [];
    if (input.lobby_count_max < 1) {
      found.push({ path: ['lobby-count', 'too-low'], message: 'lobby_count_max is 0; at least 1' });
    }
    if (input.lobby_count_max > LOBBY_COUNT_MAX_LIMIT) {
      found.push({
        path: ['lobby-count', 'too-high'],
        message: `lobby_count_max is ${input.lobby_count_max}; at most ${LOBBY_COUNT_MAX_LIMIT}`,
      });
    }
    if (input.max_players < 1) {
      found.push({ path: ['max-players', 'too-low'], message: 'max_players is 0; at least 1' });
    }
    if (found.length > 0) throw errors.validation(found);
    const caps = input.max_players;
    await this.updateOrThrow(gameId, namespaceId, {
      mm_lobby_count_max: input.lobby_count_max,
      mm_max_players_per_client: caps,
      mm_max_players_per_client_hosting: caps,
      mm_max_players_per_client_proxy: caps,
      mm_max_players_per_client_tor: caps,
      mm_max_players_per_client_vpn: caps,
      update_ts: this.deps.clock.now(),
    });
    // A new lobby cap may let the runtime start lobbies it held back.
    this.deps.runtime.wake(namespaceId);
  }

  async upsertCdnAuthUser(
    gameId: string,
    namespaceId: string,
    input: { user: string; password: string },
  ): Promise<void> {
    const found = checkCdnUserName(input.user);
    if (found.length > 0) throw errors.validation(found);
    if (!isBcryptHash(input.password)) throw errors.cdnInvalidPassword();
    const now = this.deps.clock.now();
    await this.write(gameId, namespaceId, async (w) => {
      // Touching the namespace first locks it, so two adds cannot both see 31 users and make 33.
      if (!(await repo.updateNamespace(w, { update_ts: now }))) await namespaceNotFound(w.db, gameId);
      if ((await repo.countCdnAuthUsersExcept(w.db, namespaceId, input.user)) >= MAX_CDN_AUTH_USERS) {
        throw errors.cdnTooManyUsers(MAX_CDN_AUTH_USERS);
      }
      await repo.upsertCdnAuthUser(w, {
        user_name: input.user,
        password_hash: input.password,
        create_ts: now,
      });
    });
  }

  async removeCdnAuthUser(gameId: string, namespaceId: string, user: string): Promise<void> {
    await this.write(gameId, namespaceId, async (w) => {
      if (!(await repo.updateNamespace(w, { update_ts: this.deps.clock.now() }))) {
        await namespaceNotFound(w.db, gameId);
      }
      if (!(await repo.deleteCdnAuthUser(w, user))) throw errors.cdnAuthUserNotFound(user);
    });
  }

  setCdnAuthType(gameId: string, namespaceId: string, authType: 'none' | 'basic'): Promise<void> {
    return this.updateOrThrow(gameId, namespaceId, {
      cdn_auth_type: authType,
      update_ts: this.deps.clock.now(),
    });
  }

  setDomainPublicAuth(gameId: string, namespaceId: string, enabled: boolean): Promise<void> {
    return this.updateOrThrow(gameId, namespaceId, {
      cdn_enable_domain_public_auth: enabled ? 1 : 0,
      update_ts: this.deps.clock.now(),
    });
  }

  /**
   * DELETE .../namespaces/{namespace_id}, in one transaction: the namespace is marked deleted (every
   * operation on it answers 404 from the commit on) and its name_id freed, its CDN users deleted, its
   * reporter tokens revoked. Its lobbies and builds are purged afterwards in batches (purge.service.ts).
   */
  async delete(gameId: string, namespaceId: string): Promise<void> {
    const now = this.deps.clock.now();
    const revoked = await this.write(gameId, namespaceId, async (w) => {
      // The game's lock first: a version being created (it holds the same lock) either commits before, and
      // the purge sees the builds it names, or validates after, and no longer finds this namespace's builds.
      if (!(await lockGame(w.db, gameId))) throw errors.gameNotFound();
      if (!(await repo.markNamespaceDeleted(w, now))) throw errors.namespaceNotFound();
      return revokeTokensOf(w.db, this.deps.caches, { gameId, namespaceId }, now);
    });
    for (const tokenId of revoked) this.deps.tokens.forget(tokenId);
  }

  /**
   * Retiring a game: runs `withGame` (the game's own changes) and marks every namespace of the game deleted,
   * as `delete` does, in one transaction; every cached view of the game is dropped once it is over.
   */
  async deleteAllOfGame<T>(gameId: string, withGame: (trx: Db) => Promise<T>): Promise<T> {
    const now = this.deps.clock.now();
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        const result = await withGame(trx);
        await repo.markGameNamespacesDeleted({ db: trx, gameId } as unknown as GameNamespacesWrite, now);
        await this.deps.caches.publish(trx, { kind: 'game-namespaces', gameId });
        return result;
      });
    } finally {
      this.deps.caches.wrote({ kind: 'game-namespaces', gameId });
    }
  }

  /** The purge of a deleted namespace finished (purge.service.ts). */
  markPurged(gameId: string, namespaceId: string): Promise<void> {
    const now = this.deps.clock.now();
    return this.write(gameId, namespaceId, (w) => repo.markNamespacePurged(w, now));
  }
}

/** What other modules read of namespaces' rows: the full game view, and the purge of deleted ones. */
export {
  listNamespaceSummaries,
  namespaceIdsOfGame,
  namespacesToPurge,
  unpurgedNamespacesOf,
} from './namespaces.repository.js';
