/**
 * A bcrypt hash as crypt(3) writes it: version 2a/2b/2y, a two-digit cost from 04 to 31, then 22 characters
 * of salt and 31 of hash in bcrypt's own base64 alphabet. Only the format is checked: the service never
 * needs the plaintext, and the CDN edge verifies passwords against the stored hash.
 */
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

export function isBcryptHash(value: string): boolean {
  return BCRYPT_HASH.test(value);
}
