/**
 * A namespace's game client tokens (public and development) and the first route they may call,
 * `GET /matchmaker/regions`: who mints them, what they carry, that they work in their namespace and are
 * refused everywhere else, and that the original's published client (@rivet-gg/api) reads the regions
 * from a real listening service unmodified.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RivetClient } from '@rivet-gg/api';
import { assertError } from '../helpers/error-answer.js';
import { decodeSegment } from '../helpers/jwt.js';
import { startListening, uploadBuild } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

interface Minted {
  token: string;
  token_id: string;
  expire_ts: string;
}
interface Regions {
  regions: {
    region_id: string;
    provider_display_name: string;
    region_display_name: string;
    datacenter_coord: { latitude: number; longitude: number };
    datacenter_distance_from_client: { kilometers: number; miles: number };
  }[];
}

const REGIONS = 'lnd-atl,lnd-fra,lnd-sfo';

describe('game client tokens and GET /matchmaker/regions', () => {
  let svc: TestService;
  let publicUrl: string;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;
  /** A namespace of game A whose version runs one game mode in lnd-fra and lnd-sfo. */
  let regional: string;

  before(async () => {
    ({ svc, publicUrl } = await startListening({ env: { GCM_REGIONS: REGIONS } }));
    a = await createGameFixture(svc, 'client-a');
    b = await createGameFixture(svc, 'client-b');
    const buildId = await uploadBuild(svc, a, 'server');
    const version = await svc.call('POST', `/cloud/games/${a.gameId}/versions`, {
      body: {
        display_name: 'regional',
        config: {
          matchmaker: {
            game_modes: {
              default: {
                regions: { 'lnd-sfo': {}, 'lnd-fra': {} },
                container: { image_id: buildId, ports: { game: { port: 7777, protocol: 'udp' } } },
              },
            },
          },
        },
      },
    });
    assert.equal(version.statusCode, 200, version.body);
    const ns = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces`, {
      body: {
        name_id: 'regional',
        display_name: 'Regional',
        version_id: version.json<{ version_id: string }>().version_id,
      },
    });
    assert.equal(ns.statusCode, 200, ns.body);
    regional = ns.json<{ namespace_id: string }>().namespace_id;
  });
  after(async () => {
    await svc?.close();
  });

  const base = (gameId: string, namespaceId: string) =>
    `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens`;

  async function mintPublic(gameId: string, namespaceId: string, token?: string | null): Promise<Minted> {
    const res = await svc.call(
      'POST',
      `${base(gameId, namespaceId)}/public`,
      token === undefined ? {} : { token },
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Minted>();
  }
  const regionsOf = (token: string | null) => svc.call('GET', '/matchmaker/regions', { token });

  it('mints a public token for the namespace: a JWT of audience public naming it, minted for no person', async () => {
    const minted = await mintPublic(a.gameId, a.namespaceId, a.cloudToken);
    assert.deepEqual(Object.keys(minted).sort(), ['expire_ts', 'token', 'token_id']);
    const claims = decodeSegment(minted.token.split('.')[1]);
    assert.equal(claims.aud, 'public');
    assert.equal(claims.namespace_id, a.namespaceId);
    assert.equal(claims.game_id, a.gameId);
    const listed = await svc.call('GET', `/cloud/games/${a.gameId}/tokens?limit=100`);
    const row = listed
      .json<{ tokens: { token_id: string; kind: string; namespace_id: string; user_id?: string }[] }>()
      .tokens.find((t) => t.token_id === minted.token_id);
    assert.deepEqual(row && { kind: row.kind, ns: row.namespace_id, user: row.user_id }, {
      kind: 'public',
      ns: a.namespaceId,
      user: undefined,
    });
  });

  it('lists the regions the namespace’s version runs in, else every region of the service', async () => {
    const everywhere = await regionsOf((await mintPublic(a.gameId, a.namespaceId)).token);
    assert.equal(everywhere.statusCode, 200, everywhere.body);
    assert.deepEqual(
      everywhere.json<Regions>().regions.map((r) => r.region_id),
      ['lnd-atl', 'lnd-fra', 'lnd-sfo'],
    );
    const some = await regionsOf((await mintPublic(a.gameId, regional)).token);
    assert.equal(some.statusCode, 200, some.body);
    assert.deepEqual(some.json<Regions>().regions, [
      {
        region_id: 'lnd-fra',
        provider_display_name: 'Game Cloud Management',
        region_display_name: 'lnd-fra',
        datacenter_coord: { latitude: 0, longitude: 0 },
        datacenter_distance_from_client: { kilometers: 0, miles: 0 },
      },
      {
        region_id: 'lnd-sfo',
        provider_display_name: 'Game Cloud Management',
        region_display_name: 'lnd-sfo',
        datacenter_coord: { latitude: 0, longitude: 0 },
        datacenter_distance_from_client: { kilometers: 0, miles: 0 },
      },
    ]);
  });

  it('refuses a public token on every other route, and every other caller on the matchmaker’s', async () => {
    const { token } = await mintPublic(a.gameId, a.namespaceId);
    for (const [method, url] of [
      ['GET', `/cloud/games/${a.gameId}`],
      ['GET', `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}`],
      ['GET', '/cloud/auth/inspect'],
      ['GET', '/cloud/games'],
      ['POST', `${base(a.gameId, a.namespaceId)}/public`],
      ['POST', '/matchmaker/lobbies/ready'],
    ] as const) {
      assertError(await svc.call(method, url, { token }), 403, 'API_FORBIDDEN');
    }
    assertError(await regionsOf(svc.operatorToken), 403, 'API_FORBIDDEN');
    assertError(await regionsOf(a.cloudToken), 403, 'API_FORBIDDEN');
    assertError(await regionsOf(null), 401, 'API_UNAUTHORIZED');
  });

  it('is minted by the game’s cloud token and members, not another game’s token nor a viewer', async () => {
    assertError(
      await svc.call('POST', `${base(a.gameId, a.namespaceId)}/public`, { token: b.cloudToken }),
      403,
      'API_FORBIDDEN',
    );
    assertError(
      await svc.call('POST', `${base(a.gameId, b.namespaceId)}/public`, { token: a.cloudToken }),
      404,
      'NAMESPACE_NOT_FOUND',
    );
    const team = await newTeam(svc, 'client-team');
    await giveGame(svc, a.gameId, team.teamId);
    const member = await addMember(svc, team, 'member@client.example', 'member');
    const viewer = await addMember(svc, team, 'viewer@client.example', 'viewer');
    const url = `${base(a.gameId, a.namespaceId)}/public`;
    const byMember = await svc.call('POST', url, { token: null, headers: asPerson(svc, member) });
    assert.equal(byMember.statusCode, 200, byMember.body);
    assertError(
      await svc.call('POST', url, { token: null, headers: asPerson(svc, viewer) }),
      403,
      'API_FORBIDDEN',
    );
  });

  it('stops working once revoked, and with its namespace', async () => {
    const minted = await mintPublic(a.gameId, a.namespaceId);
    assert.equal((await regionsOf(minted.token)).statusCode, 200);
    const revoked = await svc.call('DELETE', `/cloud/tokens/${minted.token_id}`, { token: a.cloudToken });
    assert.equal(revoked.statusCode, 204, revoked.body);
    assertError(await regionsOf(minted.token), 401, 'TOKEN_REVOKED');

    const doomed = await svc.call('POST', `/cloud/games/${b.gameId}/namespaces`, {
      body: { name_id: 'doomed', display_name: 'Doomed', version_id: b.versionId },
    });
    const doomedId = doomed.json<{ namespace_id: string }>().namespace_id;
    const { token } = await mintPublic(b.gameId, doomedId);
    assert.equal((await regionsOf(token)).statusCode, 200);
    const gone = await svc.call('DELETE', `/cloud/games/${b.gameId}/namespaces/${doomedId}`);
    assert.equal(gone.statusCode, 204, gone.body);
    assertError(await regionsOf(token), 401, 'TOKEN_REVOKED');
  });

  describe('development tokens', () => {
    const dev = (body: unknown, token?: string) =>
      svc.call('POST', `${base(a.gameId, a.namespaceId)}/development`, {
        body,
        ...(token === undefined ? {} : { token }),
      });
    const validate = (body: unknown) =>
      svc.call('POST', `${base(a.gameId, a.namespaceId)}/development/validate`, {
        body,
        token: a.cloudToken,
      });

    it('mints one that keeps the developer’s host and ports, and may list the regions', async () => {
      const res = await dev(
        {
          hostname: '192.168.1.20',
          ports: {
            game: { port: 7777, protocol: 'udp' },
            web: { port_range: { min: 8000, max: 8010 }, protocol: 'http' },
          },
          lobby_ports: [{ label: 'admin', target_port: 9000, proxy_protocol: 'tcp' }],
        },
        a.cloudToken,
      );
      assert.equal(res.statusCode, 200, res.body);
      const minted = res.json<Minted>();
      assert.equal(decodeSegment(minted.token.split('.')[1]).aud, 'development');
      const row = await svc.deps.db
        .selectFrom('tokens')
        .select(['kind', 'development_json'])
        .where('token_id', '=', minted.token_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.kind, 'development');
      assert.deepEqual(JSON.parse(row.development_json ?? 'null'), {
        hostname: '192.168.1.20',
        ports: {
          game: { port: 7777, protocol: 'udp' },
          web: { port_range: { min: 8000, max: 8010 }, protocol: 'http' },
          admin: { port: 9000, protocol: 'tcp' },
        },
      });
      const regions = await regionsOf(minted.token);
      assert.equal(regions.statusCode, 200, regions.body);
      assertError(
        await svc.call('GET', `/cloud/games/${a.gameId}`, { token: minted.token }),
        403,
        'API_FORBIDDEN',
      );
    });

    it('refuses a host or ports that break a rule with every rule broken, and validate lists them', async () => {
      const bad = {
        hostname: 'not a host!',
        lobby_ports: [
          { label: 'game', target_port: 70_000, proxy_protocol: 'udp' },
          { label: 'game', port_range: { min: 9000, max: 8000 }, proxy_protocol: 'tcp' },
          { label: 'Bad Label', proxy_protocol: 'http' },
        ],
      };
      const expected = [
        ['hostname', 'invalid'],
        ['lobby-ports', '0', 'port', 'out-of-range'],
        ['lobby-ports', '1', 'label-not-unique'],
        ['lobby-ports', '1', 'port-range', 'invalid'],
        ['lobby-ports', '2', 'label-invalid'],
        ['lobby-ports', '2', 'port-or-range'],
      ];
      const refused = assertError<{ code: string; metadata: { errors: { path: string[] }[] } }>(
        await dev(bad),
        400,
        'VALIDATION_ERROR',
      );
      assert.deepEqual(
        refused.metadata.errors.map((e) => e.path),
        expected,
      );
      const checked = await validate(bad);
      assert.equal(checked.statusCode, 200, checked.body);
      assert.deepEqual(
        checked.json<{ errors: { path: string[] }[] }>().errors.map((e) => e.path),
        expected,
      );
      const fine = await validate({
        hostname: 'dev-box.local',
        lobby_ports: [{ label: 'game', target_port: 7777, proxy_protocol: 'udp' }],
      });
      assert.deepEqual(fine.json(), { errors: [] });
      for (const hostname of ['::1', '[2001:db8::1]', 'localhost', '10.0.0.1']) {
        assert.deepEqual((await validate({ hostname, lobby_ports: [] })).json(), { errors: [] }, hostname);
      }
      for (const hostname of ['', 'a'.repeat(254), '999.1.1.1', '-bad.example', '1::2::3']) {
        assert.notDeepEqual((await validate({ hostname, lobby_ports: [] })).json(), { errors: [] }, hostname);
      }
      const many = Array.from({ length: 65 }, (_, i) => ({
        label: `p${i}`,
        target_port: 1000 + i,
        proxy_protocol: 'tcp',
      }));
      assert.deepEqual(
        (await validate({ hostname: 'dev', lobby_ports: many }))
          .json<{ errors: { path: string[] }[] }>()
          .errors.map((e) => e.path),
        [['ports', 'too-many']],
      );
      // The schema holds the protocols to the version config's vocabulary.
      assertError(
        await validate({
          hostname: 'dev',
          lobby_ports: [{ label: 'x', target_port: 1, proxy_protocol: 'quic' }],
        }),
        400,
        'API_BAD_BODY',
      );
    });
  });

  describe('the published client of the original API (@rivet-gg/api)', () => {
    it('lists the regions with a public token, and a cloud route refuses that token', async () => {
      const { token } = await mintPublic(a.gameId, regional);
      const client = new RivetClient({ environment: publicUrl, token });
      const listed = await client.matchmaker.regions.list();
      assert.deepEqual(
        listed.regions.map((r) => [r.regionId, r.regionDisplayName, r.providerDisplayName]),
        [
          ['lnd-fra', 'lnd-fra', 'Game Cloud Management'],
          ['lnd-sfo', 'lnd-sfo', 'Game Cloud Management'],
        ],
      );
      assert.deepEqual(listed.regions[0]?.datacenterCoord, { latitude: 0, longitude: 0 });
      await assert.rejects(client.cloud.games.games.getGameById(a.gameId), (err: unknown) => {
        assert.equal((err as { statusCode?: number }).statusCode, 403);
        return true;
      });
    });
  });
});
