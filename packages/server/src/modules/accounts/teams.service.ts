import type { CreateTeamBody, CreateTeamResponse } from '@gcm/contract';
import { APIError } from 'better-auth';
import { teamExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { AppError, errors } from '../../errors.js';
import { operatorSignUp, resetCapture } from '../../identity/accounts.js';
import { toTimestamp } from '../../lib/clock.js';
import { revokeStrandedPersonTokens } from '../tokens/tokens.service.js';
import * as teams from './teams.repository.js';

/**
 * The operator's way in for people (README "People and teams"): a team with its first owner. An email with
 * no account gets one, with no password: its owner sets one through the reset token, which is mailed (and,
 * without SMTP, also answered here for the operator to pass on). Then the owner invites the rest.
 */
export async function createTeam(deps: Deps, input: CreateTeamBody): Promise<CreateTeamResponse> {
  const email = input.owner_email.toLowerCase();
  // Before anything is written: a taken slug must not leave a new account behind.
  if (await teams.teamSlugTaken(deps.db, input.slug)) throw slugTaken();
  const context = await deps.accounts.$context;
  let user = await context.internalAdapter.findUserByEmail(email);
  let setup: CreateTeamResponse['password_setup'];
  const created = user === null;
  if (user === null) {
    const name = input.owner_name ?? email.slice(0, email.indexOf('@')).slice(0, 100);
    const made = await operatorSignUp.run(true, () =>
      context.internalAdapter.createUser({ email, name, emailVerified: false }, { method: 'admin' }),
    );
    user = { user: made, accounts: [] };
  }
  const owner = user.user;
  let teamId: string;
  try {
    const team = await deps.accounts.api.createOrganization({
      body: { name: input.name, slug: input.slug, userId: owner.id, keepCurrentActiveOrganization: true },
    });
    teamId = team.id;
  } catch (err) {
    // Another team took the slug since the check: the account made for this team goes with it.
    if (created) await context.internalAdapter.deleteUser(owner.id);
    throw translate(err);
  }
  if (created) {
    // Once the team exists, so the mail names it and a failed team sends none.
    const capture: { token?: string; team?: string } = { team: input.name };
    await resetCapture.run(capture, () => deps.accounts.api.requestPasswordReset({ body: { email } }));
    if (deps.config.smtpUrl === undefined && capture.token !== undefined) {
      setup = { token: capture.token, expire_ts: toTimestamp(deps.clock.now() + 3_600_000) };
    }
  }
  return {
    team_id: teamId,
    owner: { user_id: owner.id, email: owner.email, new_account: created },
    ...(setup === undefined ? {} : { password_setup: setup }),
  };
}

/** Gives a game to a team, or (null) back to the operator alone. */
export async function setGameTeam(deps: Deps, gameId: string, teamId: string | null): Promise<void> {
  if (teamId !== null && !(await teamExists(deps.db, teamId))) throw errors.teamNotFound();
  // The game's events go to another team's endpoints from now on: every instance's lists are redone.
  let result: { numUpdatedRows: bigint };
  try {
    result = await deps.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('games')
        .set({ team_id: teamId })
        .where('game_id', '=', gameId)
        .where('delete_ts', 'is', null)
        .executeTakeFirst();
      await deps.webhooks.publish(trx);
      return updated;
    });
  } finally {
    deps.webhooks.changed();
  }
  if (result.numUpdatedRows === 0n) throw errors.gameNotFound();
  // People of the old team no longer act for the game: the tokens minted for them go.
  await revokeStrandedPersonTokens(deps, { gameId });
}

/** better-auth's refusal (a taken slug, say) as the service's error. */
function translate(err: unknown): unknown {
  if (!(err instanceof APIError)) return err;
  const body = err.body as { code?: string; message?: string } | undefined;
  const code = body?.code;
  if (code === 'ORGANIZATION_ALREADY_EXISTS' || code === 'ORGANIZATION_SLUG_ALREADY_TAKEN')
    return slugTaken();
  return new AppError(
    400,
    'AUTH_REFUSED',
    body?.message ?? 'refused',
    code === undefined ? undefined : { auth_code: code },
  );
}

function slugTaken() {
  return errors.badBody('slug is taken by another team; team slugs are unique', { field: 'slug' });
}
