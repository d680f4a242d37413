import { importJWK, type JWK, SignJWT } from 'jose';
import type { TestService } from './service.js';

/** The claims of a compact JWT, read without checking its signature. */
export function claimsOf(jwt: string): Record<string, unknown> {
  const segment = jwt.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
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
