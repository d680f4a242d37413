import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { ACCOUNT_LIMITS, AUTH_BASE_PATH } from '../../identity/accounts.js';
import { ratePassword } from './password-strength.js';

/** The calls that set a password, the field that holds it, and the fields an attacker would know. */
const NEW_PASSWORDS: ReadonlyMap<string, { field: string; knownFields: readonly string[] }> = new Map([
  [`${AUTH_BASE_PATH}/sign-up/email`, { field: 'password', knownFields: ['email', 'name'] }],
  [`${AUTH_BASE_PATH}/change-password`, { field: 'newPassword', knownFields: [] }],
  [`${AUTH_BASE_PATH}/reset-password`, { field: 'newPassword', knownFields: [] }],
]);

const SIGN_IN = `${AUTH_BASE_PATH}/sign-in/email`;

/** The calls that hash a password (or check one, which hashes it too). */
const HASHING_CALLS = new Set([SIGN_IN, ...NEW_PASSWORDS.keys()]);

/**
 * The service's own rules for better-auth's password calls, before better-auth sees one: a locked account's
 * sign-in is refused (429), a weak new password too (400 PASSWORD_TOO_WEAK), and any of them while the
 * instance's password hashing queue is full (503). Answers what to do with better-auth's status afterwards:
 * count a failed sign-in against the account.
 */
export async function guardPasswordCall(
  deps: Deps,
  path: string,
  body: unknown,
): Promise<(status: number) => Promise<void>> {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const newPassword = NEW_PASSWORDS.get(path);
  if (newPassword !== undefined) assertStrongEnough(deps, fields, newPassword.field, newPassword.knownFields);
  const email = path === SIGN_IN && typeof fields.email === 'string' ? fields.email : undefined;
  if (email !== undefined) await deps.signIns.check(email);
  if (HASHING_CALLS.has(path) && deps.passwordHashing.saturated) throw errors.passwordHashingBusy();
  return async (status) => {
    if (email !== undefined && status === 401) await deps.signIns.failed(email);
  };
}

function assertStrongEnough(
  deps: Deps,
  fields: Record<string, unknown>,
  field: string,
  knownFields: readonly string[],
): void {
  const minScore = deps.config.accounts.passwordMinScore;
  const password = fields[field];
  // Outside the length limits better-auth refuses it itself, with its own code (PASSWORD_TOO_SHORT, …).
  if (
    minScore === 0 ||
    typeof password !== 'string' ||
    password.length < ACCOUNT_LIMITS.passwordMin ||
    password.length > ACCOUNT_LIMITS.passwordMax
  ) {
    return;
  }
  const known = knownFields.map((name) => fields[name]).filter((v): v is string => typeof v === 'string');
  const verdict = ratePassword(password, known);
  if (verdict.score < minScore) throw errors.passwordTooWeak(field, verdict, minScore);
}
