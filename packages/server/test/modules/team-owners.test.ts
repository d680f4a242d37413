/**
 * A team never loses its last owner, however its owners' calls race: 20 teams, each with two owners who at
 * the same moment both leave, both step down, remove each other or demote each other. On PostgreSQL the
 * two owners of every other team call through two instances, so what keeps the rule there is the lock they
 * share in the store, not either process's memory; the rest call through one, where the calls meet
 * closest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { KEYED_LOCK_WAIT_MS } from '../../src/db/keyed-lock.js';
import { assertError } from '../helpers/error-answer.js';
import { addMember, authCall, newTeam } from '../helpers/people.js';
import { onPostgres, testDatabaseUrl } from '../helpers/postgres.js';
import { secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';

const TEAMS = 20;

interface RacingTeam {
  teamId: string;
  /** Member ids of the two owners, `a` then `b`. */
  memberIds: { a: string; b: string };
  /** Where each owner's calls go. */
  via: { a: TestService; b: TestService };
}

describe('team owners: the last one stays, however calls race', { timeout: 300_000 }, () => {
  let svc: TestService;
  /** The second instance on PostgreSQL; the first again on SQLite (one process owns the store). */
  let other: TestService;
  before(async () => {
    svc = await startTestService();
    other = onPostgres ? await secondInstance(svc) : svc;
  });
  after(async () => {
    if (other !== svc) await other.close();
    await svc.close();
  });

  /** Two people, and `count` teams where both are owners (a made each one and invited b as an owner). */
  async function ownersOfTeams(
    tag: string,
    count = TEAMS,
  ): Promise<{ cookies: { a: string; b: string }; teams: RacingTeam[] }> {
    const base = await newTeam(svc, `${tag}-base`);
    const b = { cookie: await addMember(svc, base, `second-${tag}@example.com`, 'member') };
    const a = { cookie: base.owner.cookie };
    const teams = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const made = await authCall(svc, 'POST', '/organization/create', {
          cookie: a.cookie,
          body: { name: `${tag} ${i}`, slug: `${tag}-${i}`, keepCurrentActiveOrganization: true },
        });
        assert.equal(made.statusCode, 200, made.body);
        const teamId = made.json<{ id: string }>().id;
        const invite = await authCall(svc, 'POST', '/organization/invite-member', {
          cookie: a.cookie,
          body: { email: `second-${tag}@example.com`, role: 'owner', organizationId: teamId },
        });
        assert.equal(invite.statusCode, 200, invite.body);
        const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
          cookie: b.cookie,
          body: { invitationId: invite.json<{ id: string }>().id },
        });
        assert.equal(accept.statusCode, 200, accept.body);
        const full = await authCall(
          svc,
          'GET',
          `/organization/get-full-organization?organizationId=${teamId}`,
          {
            cookie: a.cookie,
          },
        );
        assert.equal(full.statusCode, 200, full.body);
        const members = full.json<{ members: { id: string; role: string; user: { email: string } }[] }>()
          .members;
        const idOf = (email: string) => members.find((m) => m.user.email === email)?.id as string;
        assert.deepEqual(
          members.map((m) => m.role),
          ['owner', 'owner'],
        );
        return {
          teamId,
          memberIds: { a: idOf(base.owner.email), b: idOf(`second-${tag}@example.com`) },
          via: { a: svc, b: i % 2 === 0 ? svc : other },
        };
      }),
    );
    return { cookies: { a: a.cookie, b: b.cookie }, teams };
  }

  /** Owners of each team, read from the store. */
  async function ownerCounts(teams: RacingTeam[]): Promise<number[]> {
    const rows = await svc.deps.db
      .selectFrom('team_members')
      .select(['team_id', sql<number>`count(*)`.as('owners')])
      .where(
        'team_id',
        'in',
        teams.map((t) => t.teamId),
      )
      .where('role', '=', 'owner')
      .groupBy('team_id')
      .execute();
    const byTeam = new Map(rows.map((r) => [r.team_id, Number(r.owners)]));
    return teams.map((t) => byTeam.get(t.teamId) ?? 0);
  }

  /**
   * Sends both owners' calls of every team at once, then checks that each team has exactly one owner left,
   * that one call of each pair succeeded, and that the other was refused with `refused` (status, code,
   * better-auth's code).
   */
  async function race(
    tag: string,
    call: (owner: 'a' | 'b', team: RacingTeam) => { path: string; body: Record<string, unknown> },
    refused: { status: number; code: string; authCode: string },
  ): Promise<void> {
    const { cookies, teams } = await ownersOfTeams(tag);
    const answers = await Promise.all(
      teams.map(async (team) =>
        Promise.all(
          (['a', 'b'] as const).map((who) => {
            const { path, body } = call(who, team);
            return authCall(team.via[who], 'POST', path, { cookie: cookies[who], body });
          }),
        ),
      ),
    );
    assert.deepEqual(await ownerCounts(teams), Array(TEAMS).fill(1), 'a team was left with no owner');
    for (const pair of answers) {
      const [won, lost] = [...pair].sort((x, y) => x.statusCode - y.statusCode) as [
        LightMyRequestResponse,
        LightMyRequestResponse,
      ];
      assert.equal(won.statusCode, 200, won.body);
      const body = assertError<{ code: string; metadata?: { auth_code?: string } }>(
        lost,
        refused.status,
        refused.code,
      );
      assert.equal(body.metadata?.auth_code, refused.authCode, lost.body);
    }
  }

  it('lets one of two owners leave at once, and refuses the other', async () => {
    await race(
      'leave',
      (_, team) => ({ path: '/organization/leave', body: { organizationId: team.teamId } }),
      {
        status: 400,
        code: 'AUTH_REFUSED',
        authCode: 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER',
      },
    );
  });

  it('lets one of two owners step down at once, and refuses the other', async () => {
    await race(
      'step-down',
      (who, team) => ({
        path: '/organization/update-member-role',
        body: { memberId: team.memberIds[who], role: 'admin', organizationId: team.teamId },
      }),
      { status: 400, code: 'AUTH_REFUSED', authCode: 'YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER' },
    );
  });

  it('lets one of two owners remove the other at once; the removed one can no longer remove', async () => {
    await race(
      'remove',
      (who, team) => ({
        path: '/organization/remove-member',
        body: { memberIdOrEmail: team.memberIds[who === 'a' ? 'b' : 'a'], organizationId: team.teamId },
      }),
      { status: 400, code: 'AUTH_REFUSED', authCode: 'MEMBER_NOT_FOUND' },
    );
  });

  it(
    'waits for the team’s lock held in the store, and answers 503 once it waited too long',
    pgOnly,
    async () => {
      const { cookies, teams } = await ownersOfTeams('held', 2);
      // The second team's owners call through two instances.
      const team = teams[1] as RacingTeam;
      // Another instance in the middle of a change of this team's members, as far as the store can tell.
      const holder = new pg.Client({ connectionString: await testDatabaseUrl(svc.dataDir) });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `team-members:${team.teamId}`,
        ]);
        const started = Date.now();
        const waited = await authCall(svc, 'POST', '/organization/leave', {
          cookie: cookies.a,
          body: { organizationId: team.teamId },
        });
        assertError(waited, 503, 'STORE_UNAVAILABLE');
        assert.ok(
          Date.now() - started >= KEYED_LOCK_WAIT_MS - 100,
          `answered after ${Date.now() - started} ms`,
        );
        const pending = authCall(team.via.b, 'POST', '/organization/leave', {
          cookie: cookies.b,
          body: { organizationId: team.teamId },
        });
        await holder.query('commit');
        const left = await pending;
        assert.equal(left.statusCode, 200, left.body);
      } finally {
        await holder.end();
      }
      assert.deepEqual(await ownerCounts([team]), [1]);
    },
  );

  it('lets one of two owners demote the other at once; the demoted one can no longer demote', async () => {
    await race(
      'demote',
      (who, team) => ({
        path: '/organization/update-member-role',
        body: {
          memberId: team.memberIds[who === 'a' ? 'b' : 'a'],
          role: 'member',
          organizationId: team.teamId,
        },
      }),
      { status: 403, code: 'API_FORBIDDEN', authCode: 'YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER' },
    );
  });
});
