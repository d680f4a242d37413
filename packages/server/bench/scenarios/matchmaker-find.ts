import { randomBytes } from 'node:crypto';
import { startBaseline, startMinimalFastify } from '../lib/baseline.js';
import { runLoad } from '../lib/load.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';

/** Issue 37's goal for the service's find: finds/s on 2 cores with ready lobbies available. */
const FINDS_PER_SEC_TARGET = 1_000;

/**
 * A canned answer in the shape of the original's FindLobbyResponse (fern/definition/matchmaker/lobbies.yml,
 * with JoinLobby, JoinPort and JoinPlayer of matchmaker/common.yml): one lobby with a UDP game port and a
 * TLS port, and a player token of a signed JWT's length.
 */
function cannedFindResponse(): string {
  // Keys in the order a response schema serializes them (required ones first), so both servers send one text.
  const ports = {
    default: { hostname: '203.0.113.7', is_tls: false, host: '203.0.113.7:7777', port: 7777 },
    websocket: { hostname: 'lobby-7.game.example', is_tls: true, host: '203.0.113.7:7443', port: 7443 },
  };
  const player = {
    token: `eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.${randomBytes(160).toString('base64url')}.${randomBytes(64).toString('base64url')}`,
  };
  return JSON.stringify({
    lobby: {
      lobby_id: '01937b2e-7c1a-7d3e-9f00-5a1b2c3d4e5f',
      region: { region_id: 'bench-r1', display_name: 'Bench region 1' },
      ports,
      player,
    },
    ports,
    player,
  });
}

/**
 * Baselines for issue 37's `POST /matchmaker/lobbies/find`, prepared before the service has the route: a bare
 * node:http server answering a canned find, and the minimal Fastify app with the same route (body schema of
 * FindLobbyRequest, response schema of FindLobbyResponse, the token check, rate limit, security header,
 * metrics and logger of the namespace-read comparison), both at the run's connections.
 *
 * TODO(issue 37, find): load the service's own find here once it exists (a namespace public token, ready
 * lobbies with free slots made beforehand, each find's player connecting or expiring so slots do not run
 * out), and compare it with both rows: ratio to the minimal Fastify app (target >= 0.8) and finds/s (target
 * >= 1,000 with p99 < 50 ms) on SQLite and on PostgreSQL. Until then this scenario reports no service row.
 */
export const matchmakerFind: Scenario = {
  name: 'matchmaker-find',
  description:
    'POST /matchmaker/lobbies/find baselines: bare node:http and a minimal Fastify app, canned answer',
  supportsPostgres: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const body = cannedFindResponse();
    const token = `bench_pub_${randomBytes(32).toString('base64url')}`;
    const request = JSON.stringify({ game_modes: ['default'], regions: ['bench-r1'] });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const bare = await startBaseline(context.registry, context.workDir, 'matchmaker-find', body);
    const fastify = await startMinimalFastify(context.registry, context.workDir, 'matchmaker-find', {
      token,
      findBody: body,
    });
    for (const baseUrl of [bare.baseUrl, fastify.baseUrl]) {
      const res = await fetch(`${baseUrl}/matchmaker/lobbies/find`, {
        method: 'POST',
        headers,
        body: request,
      });
      const text = await res.text();
      if (res.status !== 200 || text !== body) {
        throw new Error(`${baseUrl} answered the find with ${res.status}, not the canned body: ${text}`);
      }
    }

    const settings = {
      connections: context.connections,
      pipelining: context.pipelining,
      durationSec: context.durationSec,
      warmupSec: context.warmupSec,
      method: 'POST' as const,
      headers,
      body: request,
    };
    context.log('matchmaker-find: loading the bare node:http server');
    const bareRow = await runLoad({
      ...settings,
      target: 'bare node:http, canned find',
      url: `${bare.baseUrl}/matchmaker/lobbies/find`,
    });
    context.log('matchmaker-find: loading the minimal Fastify app');
    const fastifyRow = await runLoad({
      ...settings,
      target: 'minimal Fastify, POST /matchmaker/lobbies/find',
      url: `${fastify.baseUrl}/matchmaker/lobbies/find`,
    });
    const ratio = bareRow.requestsPerSec > 0 ? fastifyRow.requestsPerSec / bareRow.requestsPerSec : 0;
    return {
      title: `matchmaker-find: ${matchmakerFind.description}`,
      rows: [bareRow, fastifyRow],
      comparisons: [
        {
          label: 'ratio minimal Fastify/bare finds/s (the framework and its hooks; no target)',
          value: ratio,
          target: 'none',
          met: true,
        },
      ],
      notes: [
        `Answer ${Buffer.byteLength(body)} bytes, request ${Buffer.byteLength(request)} bytes.`,
        `TODO: the service's own find is not measured yet (issue 37); its targets: >= ${FINDS_PER_SEC_TARGET} ` +
          'finds/s with p99 < 50 ms, and >= 0.8 of the minimal Fastify row.',
      ],
    };
  },
};
