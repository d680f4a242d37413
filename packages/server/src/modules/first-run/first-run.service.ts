import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CompleteSetupBody, CompleteSetupResponse } from '@gcm/contract';
import { APIError } from 'better-auth';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { AppError, errors } from '../../errors.js';
import { AUTH_BASE_PATH, operatorSignUp } from '../../identity/accounts.js';
import type { Clock } from '../../lib/clock.js';
import { guardPasswordCall } from '../accounts/auth-call-guards.js';
import * as repo from './first-run.repository.js';

/** The data dir's copy of the open link's secret (0600), deleted once the link is used. */
export const SETUP_FILE = 'first-run-setup';

/** The dashboard's page of the link (packages/dashboard Setup). */
export function setupPageUrl(baseUrl: string, secret: string): string {
  return `${baseUrl}/setup/${secret}`;
}

/**
 * At start: the open setup link's secret, or undefined when there is none. A store with no team gets one
 * link, made once and kept in the store, so a restart (or another instance on the same PostgreSQL) shows the
 * same link until it is used; a store with a team (made by the operator before the link was used, or before
 * this version) has its link retired for good. The secret is written to the data dir for the operator, and
 * the file deleted once the link is gone.
 */
export async function openFirstRunSetup(
  db: Db,
  dataDir: string,
  clock: Clock,
): Promise<{ secret: string } | undefined> {
  let row = await repo.getSetup(db);
  if (row === undefined) {
    const teams = await repo.anyTeam(db);
    await repo.insertSetupIfAbsent(db, {
      secret: randomBytes(32).toString('base64url'),
      create_ts: clock.now(),
      use_ts: teams ? clock.now() : null,
    });
    row = await repo.getSetup(db);
  }
  if (row !== undefined && row.use_ts === null && (await repo.anyTeam(db))) {
    await repo.retireSetup(db, clock.now());
    row = await repo.getSetup(db);
  }
  const file = path.join(dataDir, SETUP_FILE);
  if (row === undefined || row.use_ts !== null) {
    rmSync(file, { force: true });
    return undefined;
  }
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${row.secret}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return { secret: row.secret };
}

/** Constant time: how much of a guess matches must not show in how long the refusal takes. */
function secretMatches(given: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/**
 * Throws unless `secret` opens the setup: SETUP_DONE once it was used (whatever the secret: nothing is left
 * to guard), or when a team exists (the link is retired then), SETUP_LINK_INVALID for any other secret.
 */
export async function assertSetupOpen(deps: Deps, secret: string): Promise<void> {
  const row = await repo.getSetup(deps.db);
  if (row === undefined || row.use_ts !== null) throw setupDone();
  if (!secretMatches(secret, row.secret)) throw errors.setupLinkInvalid();
  if (await repo.anyTeam(deps.db)) {
    await repo.retireSetup(deps.db, deps.clock.now());
    throw setupDone('a team was made another way (POST /cloud/teams) before the link was used');
  }
}

/**
 * The setup itself: the first team, its owner's account (with the password rules of sign-up) and a session
 * for them. The link is claimed in the store before anything is made, so of any number of setups at once,
 * on any number of instances, one proceeds; a failure after the claim opens the link again.
 */
export async function completeSetup(
  deps: Deps,
  input: CompleteSetupBody,
): Promise<{ answer: CompleteSetupResponse; cookies: string[] }> {
  await assertSetupOpen(deps, input.secret);
  const email = input.email.toLowerCase();
  await guardPasswordCall(deps, `${AUTH_BASE_PATH}/sign-up/email`, {
    email,
    name: input.name,
    password: input.password,
  });
  const context = await deps.accounts.$context;
  if ((await context.internalAdapter.findUserByEmail(email)) !== null) {
    throw errors.badBody('this email has an account already: choose another for the team’s owner', {
      field: 'email',
    });
  }
  const claimedAt = deps.clock.now();
  if (!(await repo.claimSetup(deps.db, input.secret, claimedAt))) throw setupDone();
  let userId: string | undefined;
  try {
    const signedUp = await operatorSignUp.run(true, () =>
      deps.accounts.api.signUpEmail({
        body: { name: input.name, email, password: input.password },
        asResponse: true,
      }),
    );
    const made = (await signedUp.json()) as { user?: { id?: unknown } };
    if (!signedUp.ok || typeof made.user?.id !== 'string') {
      throw new Error(`sign-up of the first owner answered ${signedUp.status}`);
    }
    userId = made.user.id;
    const team = await deps.accounts.api.createOrganization({
      body: { name: input.team_name, slug: input.team_slug, userId },
    });
    await repo.recordSetupTeam(deps.db, team.id);
    return {
      answer: { team_id: team.id, user_id: userId, email },
      cookies: signedUp.headers.getSetCookie(),
    };
  } catch (err) {
    if (userId !== undefined) await context.internalAdapter.deleteUser(userId);
    await repo.releaseSetup(deps.db, claimedAt);
    throw translate(err);
  }
}

/** After a setup: this instance's copy of the secret goes (another instance's goes at its next start). */
export function removeSetupFile(dataDir: string): void {
  rmSync(path.join(dataDir, SETUP_FILE), { force: true });
}

function setupDone(why = 'it was used'): AppError {
  return errors.setupDone(why);
}

/** better-auth's refusal as the service's error. */
function translate(err: unknown): unknown {
  if (!(err instanceof APIError)) return err;
  const body = err.body as { code?: string; message?: string } | undefined;
  return new AppError(
    400,
    'AUTH_REFUSED',
    body?.message ?? 'refused',
    body?.code === undefined ? undefined : { auth_code: body.code },
  );
}
