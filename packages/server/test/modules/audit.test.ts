/**
 * The audit log through the real HTTP stack: each write is recorded with its actor (operator, cloud token,
 * person), operation, resource, ray id and outcome; reads and lobby reports are not; the game and team
 * lists page newest first and only admins (and the operator, and the game's cloud token) read them;
 * retention deletes old events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditEvent, AuditList } from '@gcm/contract';
import { deleteExpiredAuditEvents } from '../../src/modules/audit/audit.service.js';
import { addMember, asPerson, authCall, giveGame, newTeam, type Team } from '../helpers/people.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

/**
 * Pages of two walk the whole list, newest first, without gaps or repeats: the same events, in the same
 * order, as one page of all. Answers that whole list.
 */
async function assertPagesWalk(list: (query: string) => Promise<AuditList>): Promise<AuditEvent[]> {
  const all = (await list('?limit=1000')).events;
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(`?limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`);
    assert.ok(page.events.length <= 2);
    seen.push(...page.events.map((e) => e.event_id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  assert.deepEqual(
    seen,
    all.map((e) => e.event_id),
  );
  return all;
}

describe('audit log', () => {
  let svc: TestService;
  let team: Team;
  let other: Team;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  let otherGame: Awaited<ReturnType<typeof createGameFixture>>;
  let member: string;
  let viewer: string;
  let admin: string;

  async function gameLog(query = '', headers?: Record<string, string>, token?: string | null) {
    const res = await svc.call('GET', `/cloud/games/${game.gameId}/audit${query}`, {
      ...(headers === undefined ? {} : { headers }),
      ...(token === undefined ? {} : { token }),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AuditList>();
  }

  async function newest(): Promise<AuditEvent> {
    const [event] = (await gameLog('?limit=1')).events;
    assert.ok(event !== undefined, 'the game has an audit event');
    return event;
  }

  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'audited');
    other = await newTeam(svc, 'elsewhere');
    game = await createGameFixture(svc, 'audited-game');
    otherGame = await createGameFixture(svc, 'other-game');
    await giveGame(svc, game.gameId, team.teamId);
    await giveGame(svc, otherGame.gameId, other.teamId);
    member = await addMember(svc, team, 'member@audited.example', 'member');
    viewer = await addMember(svc, team, 'viewer@audited.example', 'viewer');
    admin = await addMember(svc, team, 'admin@audited.example', 'admin');
  });
  after(() => svc.close());

  it('records the operator’s writes, with what they made', async () => {
    const events = (await gameLog()).events;
    const made = events.find((e) => e.operation === 'games.namespaces.createGameNamespace');
    assert.ok(made !== undefined, JSON.stringify(events.map((e) => e.operation)));
    assert.deepEqual(made.actor, { kind: 'operator' });
    assert.equal(made.method, 'POST');
    assert.equal(made.path, `/cloud/games/${game.gameId}/namespaces`);
    assert.equal(made.game_id, game.gameId);
    assert.deepEqual(made.resource, { game_id: game.gameId, namespace_id: game.namespaceId });
    assert.equal(made.status, 200);
    assert.equal(made.outcome, 'succeeded');
    const created = events.find((e) => e.operation === 'games.createGame');
    assert.ok(created !== undefined, 'the game’s creation is in its own log');
    assert.deepEqual(created.resource, { game_id: game.gameId });
  });

  it('records a person’s write with their id and email, the ray id and the team', async () => {
    const res = await svc.call('POST', `/cloud/games/${game.gameId}/versions`, {
      token: null,
      headers: asPerson(svc, member),
      body: { display_name: 'by a member', config: {} },
    });
    assert.equal(res.statusCode, 200, res.body);
    const event = await newest();
    assert.equal(event.operation, 'games.versions.createGameVersion');
    assert.equal(event.actor.kind, 'person');
    assert.equal(event.actor.email, 'member@audited.example');
    assert.match(event.actor.user_id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(event.ray_id, res.headers['x-ray-id']);
    assert.equal(event.team_id, team.teamId);
    assert.equal(event.resource.version_id, res.json<{ version_id: string }>().version_id);
  });

  it('records a cloud token’s write with the token’s id', async () => {
    const res = await svc.call('PUT', `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/version`, {
      token: game.cloudToken,
      body: { version_id: game.versionId },
    });
    assert.equal(res.statusCode, 204, res.body);
    const event = await newest();
    assert.deepEqual(event.actor, { kind: 'cloud_token', token_id: game.cloudTokenId });
    assert.equal(event.operation, 'games.namespaces.updateGameNamespaceVersion');
  });

  it('records a refused write as refused, and changes nothing else', async () => {
    const res = await svc.call('DELETE', `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}`, {
      token: null,
      headers: asPerson(svc, viewer),
    });
    assert.equal(res.statusCode, 403, res.body);
    const event = await newest();
    assert.equal(event.outcome, 'refused');
    assert.equal(event.status, 403);
    assert.equal(event.actor.email, 'viewer@audited.example');
    assert.equal(event.ray_id, res.headers['x-ray-id']);
  });

  it('records a token revoked by its id in the token’s game', async () => {
    const minted = await svc.call('POST', `/cloud/games/${game.gameId}/tokens/cloud`);
    const { token_id } = minted.json<{ token_id: string }>();
    const res = await svc.call('DELETE', `/cloud/tokens/${token_id}`, {
      token: null,
      headers: asPerson(svc, admin),
    });
    assert.equal(res.statusCode, 204, res.body);
    const event = await newest();
    assert.equal(event.operation, 'tokens.revokeToken');
    assert.equal(event.game_id, game.gameId);
    assert.equal(event.team_id, team.teamId);
    assert.deepEqual(event.resource, { token_id });
  });

  it('records no reads, no lobby reports and no caller it cannot name', async () => {
    const before = await newest();
    await svc.call('GET', `/cloud/games/${game.gameId}/namespaces`);
    const reporter = await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/tokens/reporter`,
    );
    const reporterToken = reporter.json<{ token: string }>().token;
    const minted = await newest();
    assert.equal(minted.operation, 'games.namespaces.tokens.createReporterToken');
    const lobby = await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies`,
      {
        token: reporterToken,
        body: {
          lobby_id: '0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e01',
          region_id: 'lnd-atl',
          lobby_group_name_id: 'default',
          create_ts: '2026-01-01T00:00:00.000Z',
        },
      },
    );
    assert.ok(lobby.statusCode < 500, lobby.body);
    const anonymous = await svc.call('POST', `/cloud/games/${game.gameId}/versions`, {
      token: null,
      body: { display_name: 'nobody', config: {} },
    });
    assert.equal(anonymous.statusCode, 401);
    assert.notEqual(before.event_id, minted.event_id);
    assert.equal((await newest()).event_id, minted.event_id);
  });

  it('pages newest first with a cursor, without gaps or repeats', async () => {
    const all = await assertPagesWalk(gameLog);
    assert.ok(all.length >= 6, `${all.length} events`);
    const times = all.map((e) => Date.parse(e.ts));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('lets admins, the operator and the game’s cloud token read the game’s log, and nobody else', async () => {
    await gameLog('', asPerson(svc, admin), null);
    await gameLog('', asPerson(svc, team.owner.cookie), null);
    await gameLog('', undefined, game.cloudToken);
    for (const [who, headers, token] of [
      ['member', asPerson(svc, member), null],
      ['viewer', asPerson(svc, viewer), null],
      ['another team’s owner', asPerson(svc, other.owner.cookie), null],
      ['another game’s token', {}, otherGame.cloudToken],
    ] as const) {
      const res = await svc.call('GET', `/cloud/games/${game.gameId}/audit`, { token, headers });
      assert.equal(res.statusCode, 403, `${who}: ${res.body}`);
    }
  });

  it('lists a team’s writes: its games’ and its members’ and invitations’', async () => {
    const invite = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: admin,
      body: { email: 'later@audited.example', role: 'member', organizationId: team.teamId },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const res = await svc.call('GET', `/cloud/teams/${team.teamId}/audit?limit=100`, {
      token: null,
      headers: asPerson(svc, admin),
    });
    assert.equal(res.statusCode, 200, res.body);
    const events = res.json<AuditList>().events;
    const [first] = events;
    assert.equal(first?.operation, 'auth.organization.invite-member');
    assert.equal(first?.actor.email, 'admin@audited.example');
    assert.equal(first?.team_id, team.teamId);
    assert.ok(events.some((e) => e.operation === 'games.versions.createGameVersion'));
    assert.ok(events.some((e) => e.operation === 'auth.organization.accept-invitation'));
    assert.ok(events.every((e) => e.team_id === team.teamId));
    const byOperator = await svc.call('GET', `/cloud/teams/${team.teamId}/audit`);
    assert.equal(byOperator.statusCode, 200, byOperator.body);
    for (const [who, headers, token] of [
      ['member', asPerson(svc, member), null],
      ['another team’s owner', asPerson(svc, other.owner.cookie), null],
      ['a cloud token', {}, game.cloudToken],
    ] as const) {
      const refused = await svc.call('GET', `/cloud/teams/${team.teamId}/audit`, { token, headers });
      assert.equal(refused.statusCode, 403, `${who}: ${refused.body}`);
    }
    const unknown = await svc.call('GET', '/cloud/teams/0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f/audit');
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.equal(unknown.json<{ code: string }>().code, 'TEAM_NOT_FOUND');
    const malformed = await svc.call('GET', '/cloud/teams/audited/audit');
    assert.equal(malformed.statusCode, 400, malformed.body);
  });

  /** Every event, as the operator's list has them, newest first. */
  async function operatorLog(query = '?limit=1000'): Promise<AuditList> {
    const res = await svc.call('GET', `/cloud/audit${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AuditList>();
  }

  async function teamEvents(teamId: string): Promise<AuditEvent[]> {
    const res = await svc.call('GET', `/cloud/teams/${teamId}/audit?limit=1000`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AuditList>().events;
  }

  it('records a member’s refused createGame and validateGame in the team they named', async () => {
    for (const [path, body] of [
      ['/cloud/games', { name_id: 'by-a-member', display_name: 'By a member', team_id: team.teamId }],
      ['/cloud/games/validate', { display_name: 'By a member', team_id: team.teamId }],
    ] as const) {
      const res = await svc.call('POST', path, { token: null, headers: asPerson(svc, member), body });
      assert.equal(res.statusCode, 403, res.body);
      const listed = await svc.call('GET', `/cloud/teams/${team.teamId}/audit?limit=5`, {
        token: null,
        headers: asPerson(svc, admin),
      });
      const event = listed.json<AuditList>().events.find((e) => e.ray_id === res.headers['x-ray-id']);
      assert.ok(event !== undefined, `${path}: the team's admins see it`);
      assert.equal(event.team_id, team.teamId);
      assert.equal(event.outcome, 'refused');
      assert.equal(event.actor.email, 'member@audited.example');
    }
  });

  it('records a call naming a team its caller is not in for the operator only', async () => {
    const res = await svc.call('POST', '/cloud/games', {
      token: null,
      headers: asPerson(svc, other.owner.cookie),
      body: { name_id: 'intruder', display_name: 'Intruder', team_id: team.teamId },
    });
    assert.equal(res.statusCode, 403, res.body);
    const rayId = res.headers['x-ray-id'];
    assert.ok(!(await teamEvents(team.teamId)).some((e) => e.ray_id === rayId), 'not in the named team');
    assert.ok(!(await teamEvents(other.teamId)).some((e) => e.ray_id === rayId), 'nor in the caller’s');
    const event = (await operatorLog()).events.find((e) => e.ray_id === rayId);
    assert.ok(event !== undefined, 'the operator’s list has it');
    assert.equal(event.team_id, undefined);
    assert.equal(event.actor.email, other.owner.email);
  });

  it('lists refused calls to operator-only routes for the operator, who alone reads the list', async () => {
    const body = { name: 'Not yours', slug: 'not-yours', owner_email: 'not-yours@example.com' };
    const byToken = await svc.call('POST', '/cloud/teams', { token: game.cloudToken, body });
    assert.equal(byToken.statusCode, 403, byToken.body);
    const byAdmin = await svc.call('POST', '/cloud/teams', {
      token: null,
      headers: asPerson(svc, admin),
      body,
    });
    assert.equal(byAdmin.statusCode, 403, byAdmin.body);
    const newestTwo = (await operatorLog('?limit=2')).events;
    assert.deepEqual(
      newestTwo.map((e) => [e.ray_id, e.operation, e.actor.kind, e.outcome, e.game_id, e.team_id]),
      [
        [byAdmin.headers['x-ray-id'], 'teams.createTeam', 'person', 'refused', undefined, undefined],
        [byToken.headers['x-ray-id'], 'teams.createTeam', 'cloud_token', 'refused', undefined, undefined],
      ],
    );
    const all = await assertPagesWalk(operatorLog);
    assert.ok(all.some((e) => e.game_id === game.gameId) && all.some((e) => e.team_id === other.teamId));
    for (const [who, headers, token] of [
      ['the owner', asPerson(svc, team.owner.cookie), null],
      ['an admin', asPerson(svc, admin), null],
      ['a cloud token', {}, game.cloudToken],
    ] as const) {
      const refused = await svc.call('GET', '/cloud/audit', { token, headers });
      assert.equal(refused.statusCode, 403, `${who}: ${refused.body}`);
    }
  });

  it('offers no way to change or delete an event', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await svc.call(method, `/cloud/games/${game.gameId}/audit`, { body: {} });
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
  });

  it('deletes events past the retention, and keeps the rest', async () => {
    const kept = (await gameLog('?limit=1000')).events.length;
    assert.equal(await deleteExpiredAuditEvents(svc.deps), 0);
    svc.clock.advance(364 * 86_400_000);
    await svc.call('PUT', `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/version`, {
      body: { version_id: game.versionId },
    });
    svc.clock.advance(2 * 86_400_000);
    const deleted = await deleteExpiredAuditEvents(svc.deps);
    assert.ok(deleted >= kept, `${deleted} deleted of ${kept}`);
    const left = (await gameLog()).events;
    assert.deepEqual(
      left.map((e) => e.operation),
      ['games.namespaces.updateGameNamespaceVersion'],
    );
  });
});
