import { createHash, randomBytes } from 'node:crypto';
import { importJWK, type JWK, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Db } from '../../db/open-db.js';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { ReadCache } from '../../lib/read-cache.js';

/** Who is calling, decided once per request before any data is read. */
export type Caller =
  | { kind: 'operator' }
  | { kind: 'game_cloud'; gameId: string; tokenId: string; createTs: number; expireTs: number }
  | {
      kind: 'namespace_reporter';
      gameId: string;
      namespaceId: string;
      tokenId: string;
      createTs: number;
      expireTs: number;
    };

/** The signed kinds of token: the JWT audience, and the `kind` column of their row. */
export type SignedTokenKind = 'cloud' | 'reporter';

const ISSUER = 'game-cloud-management';
const AUDIENCES: SignedTokenKind[] = ['cloud', 'reporter'];
type VerifyKey = Awaited<ReturnType<typeof importJWK>>;
const CACHE_SIZE = 10_000;
interface CloudClaims {
  kind: SignedTokenKind;
  tokenId: string;
  gameId: string;
  namespaceId: string | null;
  exp: number;
}

function findTokenRow(db: Db, tokenId: string) {
  return db
    .selectFrom('tokens')
    .select(['game_id', 'namespace_id', 'kind', 'create_ts', 'expire_ts', 'revoke_ts'])
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
}
type TokenRow = NonNullable<Awaited<ReturnType<typeof findTokenRow>>>;

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
  private signing: { kid: string; key: VerifyKey } | undefined;
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
  /** Token rows by id; only revocation changes one, and `forget` drops it then. */
  private readonly rows: ReadCache<string, TokenRow>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: { cacheRows: boolean },
  ) {
    this.rows = new ReadCache({ enabled: options.cacheRows, maxEntries: CACHE_SIZE });
  }

  /** Called after a token row changed (revocation), so the next request reads it anew. */
  forget(tokenId: string): void {
    this.rows.invalidate(tokenId);
  }

  /** Loads keys and the operator token hashes; `overrideToken` (GCM_OPERATOR_TOKEN) replaces the stored ones. */
  async init(overrideToken: string | undefined): Promise<void> {
    await this.reloadKeys();
    if (overrideToken !== undefined) {
      this.operatorHashes = new Set([sha256Hex(overrideToken)]);
    } else {
      const rows = await this.db.selectFrom('operator_tokens').select('token_sha256').execute();
      this.operatorHashes = new Set(rows.map((r) => r.token_sha256));
    }
  }

  private async reloadKeys(): Promise<void> {
    this.lastKeyReload = this.clock.now();
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('create_ts', 'asc').execute();
    for (const row of rows) {
      if (!this.verifyKeys.has(row.key_id)) {
        this.verifyKeys.set(row.key_id, await importJWK(JSON.parse(row.public_jwk) as JWK, 'EdDSA'));
      }
    }
    const newest = rows.at(-1);
    if (newest !== undefined && this.signing?.kid !== newest.key_id) {
      this.signing = {
        kid: newest.key_id,
        key: await importJWK(JSON.parse(newest.private_jwk) as JWK, 'EdDSA'),
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
    if (this.signing === undefined) throw new Error('no signing key loaded');
    const body = claims.namespaceId === null ? {} : { namespace_id: claims.namespaceId };
    return new SignJWT({ game_id: claims.gameId, ...body })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.signing.kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(claims.kind)
      .setJti(claims.tokenId)
      .setIssuedAt(Math.floor(claims.createTs / 1000))
      .setExpirationTime(Math.floor(claims.expireTs / 1000))
      .sign(this.signing.key);
  }

  /** Returns the caller for an Authorization header value, or throws the 401 that explains why not. */
  async authenticate(header: string | undefined): Promise<Caller> {
    if (header === undefined) throw errors.unauthorized();
    const match = /^Bearer +(\S+)\s*$/i.exec(header);
    if (match === null) throw errors.unauthorized('the Authorization header must be "Bearer <token>"');
    const token = match[1] as string;
    // A cloud token seen before skips the hash: the common case pays one map lookup.
    const known = this.signatures.peek(token);
    if (known !== undefined) return this.checkCloudToken(known);
    if (this.operatorHashes.has(sha256Hex(token))) return { kind: 'operator' };
    if (token.split('.').length !== 3) throw errors.unauthorized('the bearer token is not valid');
    const claims = await this.signatures.get(token, () => this.verifySignature(token));
    if (claims === undefined) throw errors.unauthorized('the bearer token is not valid');
    return this.checkCloudToken(claims);
  }

  private async checkCloudToken(claims: CloudClaims): Promise<Caller> {
    if (claims.exp * 1000 <= this.clock.now()) throw errors.tokenExpired();
    const { tokenId, gameId, namespaceId } = claims;
    const row = await this.rows.get(tokenId, () => findTokenRow(this.db, tokenId));
    if (
      row === undefined ||
      row.kind !== claims.kind ||
      row.game_id !== gameId ||
      row.namespace_id !== namespaceId
    ) {
      throw errors.unauthorized('the bearer token is not valid');
    }
    if (row.revoke_ts !== null) throw errors.tokenRevoked();
    if (row.expire_ts <= this.clock.now()) throw errors.tokenExpired();
    const times = { tokenId, createTs: row.create_ts, expireTs: row.expire_ts };
    if (claims.kind === 'reporter' && namespaceId !== null) {
      return { kind: 'namespace_reporter', gameId, namespaceId, ...times };
    }
    return { kind: 'game_cloud', gameId, ...times };
  }

  private async verifySignature(token: string): Promise<CloudClaims> {
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(token, (header) => this.keyFor(header.kid), {
        algorithms: ['EdDSA'],
        issuer: ISSUER,
        audience: AUDIENCES,
        currentDate: new Date(this.clock.now()),
      }));
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
      (kind === 'reporter') !== (typeof namespaceId === 'string')
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
