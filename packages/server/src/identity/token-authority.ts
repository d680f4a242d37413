import { createHash, createPrivateKey, type KeyObject, randomBytes, sign as signEd25519 } from 'node:crypto';
import type { DevelopmentTarget } from '@gcm/contract';
import { importJWK, type JWK, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { Db } from '../db/open-db.js';
import { AppError, errors } from '../errors.js';
import type { CacheCoherence, Invalidation } from '../lib/cache-coherence.js';
import type { Clock } from '../lib/clock.js';
import { ReadCache } from '../lib/read-cache.js';
import type { LobbyCaller, TokenCaller } from './callers.js';
import { hashLobbyToken, isLobbyToken, LOBBY_TOKEN_PREFIX, LOBBY_TOKEN_SHAPE } from './lobby-tokens.js';
import * as repo from './token-store.js';

/** The signed kinds of token: the JWT audience, and the `kind` column of their row. */
export type SignedTokenKind = 'cloud' | 'reporter' | 'public' | 'development';

const ISSUER = 'game-cloud-management';
/** The audiences a bearer token may have. */
const AUDIENCES: SignedTokenKind[] = ['cloud', 'reporter', 'public', 'development'];
/** The kinds minted for one namespace: their claims name it, a cloud token's never does. */
const NAMESPACE_KINDS: ReadonlySet<SignedTokenKind> = new Set(['reporter', 'public', 'development']);
/**
 * The audience of device link tokens (interface 2.5): signed with the same keys, but bearer verification
 * accepts only AUDIENCES, so one can never authenticate a request; and a bearer token is never a link.
 */
const DEVICE_LINK_AUDIENCE = 'device_link';
/** A player token's audience: never one AUDIENCES accepts, so it authenticates no request. */
const PLAYER_AUDIENCE = 'player';
type VerifyKey = Awaited<ReturnType<typeof importJWK>>;
const CACHE_SIZE = 10_000;
/**
 * How coarsely a token's last use is recorded: a use is written only when the recorded one is at least this
 * old, so a token costs at most one write a minute (per instance, at worst), never one per request.
 */
export const LAST_USE_GRANULARITY_MS = 60_000;
interface CloudClaims {
  kind: SignedTokenKind;
  tokenId: string;
  gameId: string;
  namespaceId: string | null;
  exp: number;
}

/** `iat` and `exp` in whole seconds, as JWTs count. */
function lifetime(times: { createTs: number; expireTs: number }) {
  return { iat: Math.floor(times.createTs / 1000), exp: Math.floor(times.expireTs / 1000) };
}

const BEARER = /^Bearer +(\S+)\s*$/i;
/** How much of an Authorization value's end keys the hot path's memo: within an Ed25519 JWT's signature. */
const HEADER_TAIL_CHARS = 32;

/** The token of a `Bearer <token>` header value; undefined when the value has another form. */
function bearerToken(header: string): string | undefined {
  return BEARER.exec(header)?.[1];
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function newOperatorTokenSecret(): string {
  return `gcm_op_${randomBytes(32).toString('base64url')}`;
}

/**
 * Signs and checks bearer tokens. Keys come from the database so every instance signs and verifies with
 * the same keys; they are immutable once written, which is what makes caching them safe.
 */
export class TokenAuthority {
  private verifyKeys = new Map<string, VerifyKey>();
  /** The newest key, and its JWS protected header already encoded (the same for every token it signs). */
  private signing: { kid: string; key: KeyObject; header: string } | undefined;
  private operatorHashes = new Set<string>();
  private lastKeyReload = 0;
  /**
   * Tokens whose signature already checked out, by token text. A signature never stops being valid, so
   * only the Ed25519 check is skipped; expiry and the revocation row are still checked on every request.
   */
  private readonly signatures = new ReadCache<string, CloudClaims>({
    enabled: true,
    maxEntries: CACHE_SIZE,
  });
  /**
   * Token rows by id; only revocation changes what the check reads, and `forget` drops it then: here after
   * the commit, on other instances when they hear the revocation's invalidation (cache-coherence.ts). (A
   * cached row's last_used_ts goes stale: `usesRecorded` covers it.)
   */
  private readonly rows: ReadCache<string, repo.TokenRow>;
  /**
   * The caller a cached row and its token's claims made, so the hot path builds no new object per request.
   * Keyed by the row object: a revocation drops the row from `rows` and the next read is a new object, so
   * an entry never outlives the row it was made from; the times are checked again on every use.
   */
  private readonly callers = new WeakMap<repo.TokenRow, { claims: CloudClaims; caller: TokenCaller }>();
  /**
   * Authorization header values seen on the hot path and their tokens, by the last characters of the value
   * (a JWT's signature): finding one hashes those few characters instead of the whole token, and the full
   * value is compared before its token is used. A value whose tail another value took is looked up anew.
   */
  private readonly headerTokens = new Map<string, { header: string; token: string }>();
  /** The last use this process recorded (or began recording) per token id, newer than a cached row's. */
  private readonly usesRecorded = new Map<string, number>();
  /** Use records under way, so closing can wait for them before the store goes. */
  private readonly pendingUses = new Set<Promise<void>>();
  private readonly onUseRecordError: (err: unknown) => void;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: { caches: CacheCoherence; onUseRecordError: (err: unknown) => void },
  ) {
    const { caches } = options;
    this.rows = caches.newCache(CACHE_SIZE);
    caches.listen({
      apply: (invalidation: Invalidation) => {
        if (invalidation.kind === 'tokens') for (const id of invalidation.tokenIds) this.forget(id);
      },
      clear: () => this.rows.clear(),
    });
    this.onUseRecordError = options.onUseRecordError;
  }

  /**
   * Called after a token row changed (revocation) has committed, so the next request reads it anew. The
   * write must also have published the change to other instances (CacheCoherence.publish).
   */
  forget(tokenId: string): void {
    this.rows.invalidate(tokenId);
  }

  /** Loads keys and the operator token hashes; `overrideToken` (GCM_OPERATOR_TOKEN) replaces the stored ones. */
  async init(overrideToken: string | undefined): Promise<void> {
    await this.reloadKeys();
    if (overrideToken !== undefined) {
      this.operatorHashes = new Set([sha256Hex(overrideToken)]);
    } else {
      const rows = await repo.loadOperatorTokenHashes(this.db);
      this.operatorHashes = new Set(rows.map((r) => r.token_sha256));
    }
  }

  private async reloadKeys(): Promise<void> {
    this.lastKeyReload = this.clock.now();
    const rows = await repo.loadSigningKeys(this.db);
    for (const row of rows) {
      if (!this.verifyKeys.has(row.key_id)) {
        this.verifyKeys.set(row.key_id, await importJWK(JSON.parse(row.public_jwk) as JWK, 'EdDSA'));
      }
    }
    const newest = rows.at(-1);
    if (newest !== undefined && this.signing?.kid !== newest.key_id) {
      this.signing = {
        kid: newest.key_id,
        key: createPrivateKey({ key: JSON.parse(newest.private_jwk) as JWK, format: 'jwk' }),
        header: base64url(JSON.stringify({ alg: 'EdDSA', kid: newest.key_id, typ: 'JWT' })),
      };
    }
  }

  async signToken(claims: {
    kind: SignedTokenKind;
    tokenId: string;
    gameId: string;
    namespaceId: string | null;
    createTs: number;
    expireTs: number;
  }) {
    const body = claims.namespaceId === null ? {} : { namespace_id: claims.namespaceId };
    return this.sign({
      game_id: claims.gameId,
      ...body,
      iss: ISSUER,
      aud: claims.kind,
      jti: claims.tokenId,
      ...lifetime(claims),
    });
  }

  /** A device link token names its link (`sub`) and carries no grant of any kind. */
  async signDeviceLinkToken(claims: { linkId: string; createTs: number; expireTs: number }) {
    return this.sign({ iss: ISSUER, aud: DEVICE_LINK_AUDIENCE, sub: claims.linkId, ...lifetime(claims) });
  }

  /**
   * A player token (find/join/create): names its namespace, lobby and player, and expires with the slot it
   * holds (GCM_PLAYER_CONNECT_TIMEOUT). Single use is the store's: the lobby_players row of its player id.
   */
  async signPlayerToken(claims: {
    namespaceId: string;
    lobbyId: string;
    playerId: string;
    createTs: number;
    expireTs: number;
  }) {
    return this.sign({
      iss: ISSUER,
      aud: PLAYER_AUDIENCE,
      sub: claims.playerId,
      namespace_id: claims.namespaceId,
      lobby_id: claims.lobbyId,
      ...lifetime(claims),
    });
  }

  /**
   * A player token's namespace and lobby, if it is one this service signed (expired or not: the caller
   * tells an expired token from an unknown one); undefined for anything else.
   */
  async verifyPlayerToken(
    token: string,
  ): Promise<{ namespaceId: string; lobbyId: string; playerId: string; expired: boolean } | undefined> {
    if (token.split('.').length !== 3) return undefined;
    let payload: JWTPayload;
    let expired = false;
    try {
      ({ payload } = await this.verify(token, PLAYER_AUDIENCE));
    } catch (err) {
      if (!(err instanceof joseErrors.JWTExpired && err.claim === 'exp')) return undefined;
      payload = err.payload;
      expired = true;
    }
    const { namespace_id: namespaceId, lobby_id: lobbyId, sub: playerId } = payload;
    if (typeof namespaceId !== 'string' || typeof lobbyId !== 'string' || typeof playerId !== 'string') {
      return undefined;
    }
    return { namespaceId, lobbyId, playerId, expired };
  }

  /**
   * Signs with the newest key. The claims' order is the token's, and signing is deterministic: the same
   * claims and key give the same text (stored tokens are signed again from their rows, see signStoredToken).
   * The text is exactly jose's SignJWT's (a test holds it to that; jose verifies), but signed synchronously
   * with node:crypto: jose signs through WebCrypto, whose hop to the thread pool and back cost a find about
   * 0.08 ms of CPU more than the 0.04 ms signature itself (docs/testing-and-benchmarks.md).
   */
  private async sign(claims: JWTPayload): Promise<string> {
    if (this.signing === undefined) throw new Error('no signing key loaded');
    const input = `${this.signing.header}.${base64url(JSON.stringify(claims))}`;
    return `${input}.${signEd25519(null, Buffer.from(input), this.signing.key).toString('base64url')}`;
  }

  /** Checks the signature (one of our keys), issuer, audience and expiry by the injected clock. */
  private verify(token: string, audience: string | string[]) {
    return jwtVerify(token, (header) => this.keyFor(header.kid), {
      algorithms: ['EdDSA'],
      issuer: ISSUER,
      audience,
      currentDate: new Date(this.clock.now()),
    });
  }

  /**
   * The link a device_link_token names and when it expires, or 400 TOKEN_INVALID (malformed, forged,
   * another kind of token). An expired token still names its link: jose checks the signature, issuer and
   * audience before the expiry, so the payload of its JWTExpired error is genuine, and the service can
   * delete the expired link it names and answer TOKEN_EXPIRED.
   */
  async verifyDeviceLinkToken(token: string): Promise<{ linkId: string; expireTs: number }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await this.verify(token, DEVICE_LINK_AUDIENCE));
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired && err.claim === 'exp';
      if (!expired) throw errors.deviceLinkTokenInvalid();
      payload = err.payload;
    }
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') {
      throw errors.deviceLinkTokenInvalid();
    }
    return { linkId: payload.sub, expireTs: payload.exp * 1000 };
  }

  /** Returns the caller for an Authorization header value, or throws the 401 that explains why not. */
  async authenticate(header: string | undefined): Promise<TokenCaller> {
    if (header === undefined) throw errors.unauthorized();
    const token = bearerToken(header);
    if (token === undefined) throw errors.unauthorized('the Authorization header must be "Bearer <token>"');
    // A cloud token seen before skips the hash: the common case pays one map lookup.
    const known = this.signatures.peek(token);
    if (known !== undefined) return this.checkCloudToken(known);
    if (this.operatorHashes.has(sha256Hex(token))) return { kind: 'operator' };
    if (isLobbyToken(token)) return this.checkLobbyToken(token);
    if (token.split('.').length !== 3) throw errors.unauthorized('the bearer token is not valid');
    const claims = await this.signatures.get(token, () => this.verifySignature(token));
    if (claims === undefined) throw errors.unauthorized('the bearer token is not valid');
    return this.checkCloudToken(claims);
  }

  /**
   * The caller, when the header holds a good token whose check needs nothing but memory (its signature and
   * row are cached, or it is the operator's): the common request then costs no promise. Undefined in every
   * other case, good or bad, which `authenticate` then decides and explains.
   */
  cachedCaller(header: string): TokenCaller | undefined {
    const tail = header.slice(-HEADER_TAIL_CHARS);
    const seen = this.headerTokens.get(tail);
    const token = seen !== undefined && seen.header === header ? seen.token : bearerToken(header);
    if (token === undefined) return undefined;
    const claims = this.signatures.peek(token);
    if (claims === undefined) {
      return this.operatorHashes.has(sha256Hex(token)) ? { kind: 'operator' } : undefined;
    }
    if (seen?.header !== header) {
      if (this.headerTokens.size >= CACHE_SIZE) this.headerTokens.clear();
      this.headerTokens.set(tail, { header, token });
    }
    const row = this.rows.peek(claims.tokenId);
    if (row === undefined) return undefined;
    const made = this.callers.get(row);
    if (made !== undefined && made.claims === claims) {
      // What verdict() decides from time alone; the rest depends on the claims and row, which are the same.
      const now = this.clock.now();
      if (claims.exp * 1000 <= now || row.expire_ts <= now) return undefined;
      this.noteUse(claims.tokenId, row.last_used_ts);
      return made.caller;
    }
    const verdict = this.verdict(claims, row);
    if (verdict instanceof AppError) return undefined;
    this.callers.set(row, { claims, caller: Object.freeze(verdict) });
    return verdict;
  }

  /**
   * Whether the header holds a token of a shape this service issues, decided from memory with no hash, read
   * or signature check: a lobby token of its exact length, or a JWT whose header names a key this instance
   * has loaded. An address over its failure limit has only such tokens checked (http/rate-limits.ts).
   */
  plausible(header: string): boolean {
    const token = bearerToken(header);
    if (token === undefined) return false;
    if (token.startsWith(LOBBY_TOKEN_PREFIX)) return LOBBY_TOKEN_SHAPE.test(token);
    const parts = token.split('.');
    // A JWS header of ours is about a hundred characters: a longer one is not worth parsing.
    if (parts.length !== 3 || (parts[0]?.length ?? 0) > 256) return false;
    try {
      const { kid } = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString()) as { kid?: unknown };
      return typeof kid === 'string' && this.verifyKeys.has(kid);
    } catch {
      return false;
    }
  }

  /** A lobby's token works while its lobby has not stopped; a stopped one says so (LOBBY_TOKEN_STOPPED). */
  private async checkLobbyToken(token: string): Promise<LobbyCaller> {
    const row = await repo.findLobbyByTokenHash(this.db, hashLobbyToken(token));
    if (row === undefined) throw errors.unauthorized('the bearer token is not valid');
    if (row.run_state === 'stopped') throw errors.lobbyTokenStopped();
    return { kind: 'lobby', gameId: row.game_id, namespaceId: row.namespace_id, lobbyId: row.lobby_id };
  }

  private async checkCloudToken(claims: CloudClaims): Promise<TokenCaller> {
    if (claims.exp * 1000 <= this.clock.now()) throw errors.tokenExpired();
    const row = await this.rows.get(claims.tokenId, () => repo.findToken(this.db, claims.tokenId));
    const verdict = this.verdict(claims, row);
    if (verdict instanceof AppError) throw verdict;
    return verdict;
  }

  /** The caller a verified token's row makes, or the error that says why it makes none; notes the use. */
  private verdict(claims: CloudClaims, row: repo.TokenRow | undefined): TokenCaller | AppError {
    const now = this.clock.now();
    if (claims.exp * 1000 <= now) return errors.tokenExpired();
    const { tokenId, gameId, namespaceId } = claims;
    if (
      row === undefined ||
      row.kind !== claims.kind ||
      row.game_id !== gameId ||
      row.namespace_id !== namespaceId
    ) {
      return errors.unauthorized('the bearer token is not valid');
    }
    if (row.revoke_ts !== null) return errors.tokenRevoked();
    if (row.expire_ts <= now) return errors.tokenExpired();
    this.noteUse(tokenId, row.last_used_ts);
    const times = { tokenId, createTs: row.create_ts, expireTs: row.expire_ts };
    if (claims.kind === 'reporter' && namespaceId !== null) {
      return { kind: 'namespace_reporter', gameId, namespaceId, ...times };
    }
    if ((claims.kind === 'public' || claims.kind === 'development') && namespaceId !== null) {
      const development =
        claims.kind === 'development' && row.development_json !== null
          ? (JSON.parse(row.development_json) as DevelopmentTarget)
          : null;
      return { kind: 'game_client', token: claims.kind, gameId, namespaceId, development, ...times };
    }
    return { kind: 'game_cloud', gameId, userId: row.user_id, ...times };
  }

  /**
   * Records that the token was just used, when the recorded use is a minute old or more. The request does
   * not wait: the write runs beside it and a failure is only logged, so the check still costs one read.
   */
  private noteUse(tokenId: string, storedTs: number | null): void {
    const now = this.clock.now();
    const since = now - LAST_USE_GRANULARITY_MS;
    const known = Math.max(
      storedTs ?? Number.NEGATIVE_INFINITY,
      this.usesRecorded.get(tokenId) ?? Number.NEGATIVE_INFINITY,
    );
    if (known > since) return;
    // Forgetting every entry at once costs at most one more (conditional) write per token.
    if (this.usesRecorded.size >= CACHE_SIZE) this.usesRecorded.clear();
    this.usesRecorded.set(tokenId, now);
    const write = repo
      .recordTokenUse(this.db, tokenId, now, since)
      .catch((err: unknown) => this.onUseRecordError(err))
      .finally(() => this.pendingUses.delete(write));
    this.pendingUses.add(write);
  }

  /** Waits for the use records under way (before the store is closed; tests, before reading them). */
  async settle(): Promise<void> {
    while (this.pendingUses.size > 0) await Promise.all(this.pendingUses);
  }

  private async verifySignature(token: string): Promise<CloudClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await this.verify(token, AUDIENCES));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw errors.tokenExpired();
      throw errors.unauthorized('the bearer token is not valid');
    }
    const { jti, game_id: gameId, namespace_id: namespaceId, exp, aud } = payload;
    const kind = AUDIENCES.find((a) => a === aud || (Array.isArray(aud) && aud.length === 1 && aud[0] === a));
    if (
      kind === undefined ||
      typeof jti !== 'string' ||
      typeof gameId !== 'string' ||
      typeof exp !== 'number' ||
      NAMESPACE_KINDS.has(kind) !== (typeof namespaceId === 'string')
    ) {
      throw errors.unauthorized('the bearer token is not valid');
    }
    return {
      kind,
      tokenId: jti,
      gameId,
      namespaceId: typeof namespaceId === 'string' ? namespaceId : null,
      exp,
    };
  }

  private async keyFor(kid: string | undefined): Promise<VerifyKey> {
    if (kid === undefined) throw new Error('token has no kid');
    let key = this.verifyKeys.get(kid);
    // An unknown kid may be a key another instance added since we loaded; reload at most once a minute so
    // forged kids cannot turn every request into a database read.
    if (key === undefined && this.clock.now() - this.lastKeyReload > 60_000) {
      await this.reloadKeys();
      key = this.verifyKeys.get(kid);
    }
    if (key === undefined) throw new Error('unknown kid');
    return key;
  }
}
