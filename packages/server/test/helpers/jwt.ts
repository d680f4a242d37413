import assert from 'node:assert/strict';
import { importJWK, type JWK, SignJWT } from 'jose';
import type { TestService } from './service.js';

/** The JSON of one part of a compact JWT (its header or its claims). */
export function decodeSegment(segment: string | undefined): Record<string, unknown> {
  assert.ok(segment !== undefined, 'the JWT has no such part');
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** One part of a compact JWT holding `value`, for a test that builds a token by hand. */
export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The claims of a compact JWT, read without checking its signature. */
export function claimsOf(jwt: string): Record<string, unknown> {
  return decodeSegment(jwt.split('.')[1]);
}

export type Signer = (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>;

/**
 * Signs what the test chooses with the service's own key, as a thief of that key could: tokens the
 * service never minted, to show which of their claims it checks beyond the signature. The header defaults
 * to the one the service writes.
 */
export async function serviceSigner(svc: Pick<TestService, 'deps'>): Promise<Signer> {
  const key = await svc.deps.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
  const privateKey = await importJWK(JSON.parse(key.private_jwk) as JWK, 'EdDSA');
  return (claims, header = { alg: 'EdDSA', kid: key.key_id, typ: 'JWT' }) =>
    // jose types the header by its required `alg`; a test may leave it out on purpose.
    new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(privateKey);
}
