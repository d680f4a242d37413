import { randomInt } from 'node:crypto';
import os from 'node:os';
import { startBaseline, startMinimalFastify } from '../lib/baseline.js';
import { pidOf } from '../lib/children.js';
import { interleave, interleavedReport } from '../lib/interleave.js';
import { type LoadResult, runLoad } from '../lib/load.js';
import type { Comparison, Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, createGameWithNamespace, instances, type RunningService, startPeer } from '../lib/service.js';

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CDN_USERS = 3;
const RATIO_TARGET = 0.5;
/** Issue 37: the service at this share of the minimal Fastify app of the same route and hooks. */
const FASTIFY_RATIO_TARGET = 0.8;
/** A string in the format of a bcrypt hash; the service checks the format only. */
function fakeBcryptHash(): string {
  let rest = '';
  for (let i = 0; i < 53; i++) rest += BCRYPT_ALPHABET[randomInt(BCRYPT_ALPHABET.length)];
  return `$2b$10$${rest}`;
}

/** A game, a version, a namespace with a few CDN users, and a cloud token of the game. */
async function createFixture(service: RunningService) {
  const { gameId, namespaceId } = await createGameWithNamespace(service, 'bench-ns-read', 'Bench Game');
  for (let i = 1; i <= CDN_USERS; i++) {
    await apiOk(service, 'POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/auth-user`, {
      body: { user: `cdn-user-${i}`, password: fakeBcryptHash() },
    });
  }
  const { token: cloudToken } = await apiOk<{ token: string }>(
    service,
    'POST',
    `/cloud/games/${gameId}/tokens/cloud`,
  );
  return { gameId, namespaceId, cloudToken };
}

async function getText(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text}`);
  return text;
}

function ratioToBare(label: string, bare: LoadResult, svc: LoadResult): Comparison {
  const ratio = bare.requestsPerSec > 0 ? svc.requestsPerSec / bare.requestsPerSec : 0;
  return { label, value: ratio, target: `ratio >= ${RATIO_TARGET}`, met: ratio >= RATIO_TARGET };
}

function ratioToFastify(label: string, fastify: LoadResult, svc: LoadResult): Comparison {
  const ratio = fastify.requestsPerSec > 0 ? svc.requestsPerSec / fastify.requestsPerSec : 0;
  return {
    label,
    value: ratio,
    target: `ratio >= ${FASTIFY_RATIO_TARGET}`,
    met: ratio >= FASTIFY_RATIO_TARGET,
  };
}

/**
 * GET /cloud/games/{g}/namespaces/{ns} with a game cloud token, against a bare node:http server answering
 * the very same body (what the framework, auth and store cost on the hottest read) and against the minimal
 * Fastify app of the same route, schemas and kinds of hooks (bench/minimal-fastify-server.ts: what our own
 * code costs on top of the framework). The three are loaded one after another in the same run. Under
 * `--pg` the service runs on PostgreSQL, and is measured alone and then with a second instance on the same
 * database, the connections of one autocannon run alternating between the two.
 */
export const namespaceRead: Scenario = {
  name: 'namespace-read',
  description:
    'GET /cloud/games/{g}/namespaces/{ns} (cloud token) vs bare node:http and a minimal Fastify app with the same body',
  supportsPostgres: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const { service } = context;
    const { gameId, namespaceId, cloudToken } = await createFixture(service);
    const serviceUrl = `${service.baseUrl}/cloud/games/${gameId}/namespaces/${namespaceId}`;
    const headers = { authorization: `Bearer ${cloudToken}` };
    const body = await getText(serviceUrl, headers);
    context.log(`namespace-read: response body is ${Buffer.byteLength(body)} bytes`);

    const baseline = await startBaseline(context.registry, context.workDir, 'namespace-read', body);
    if ((await getText(`${baseline.baseUrl}/`)) !== body) {
      throw new Error('the baseline server does not answer the same body as the service');
    }

    const fastify = await startMinimalFastify(context.registry, context.workDir, 'namespace-read', {
      token: cloudToken,
      namespaceBody: body,
    });
    const fastifyUrl = `${fastify.baseUrl}/cloud/games/${gameId}/namespaces/${namespaceId}`;
    if ((await getText(fastifyUrl, headers)) !== body) {
      throw new Error('the minimal Fastify app does not answer the same body as the service');
    }

    const settings = {
      connections: context.connections,
      pipelining: context.pipelining,
      durationSec: context.durationSec,
      warmupSec: context.warmupSec,
    };
    context.log('namespace-read: loading the bare node:http server');
    const bare = await runLoad({
      ...settings,
      target: 'bare node:http, same body',
      url: `${baseline.baseUrl}/`,
    });
    context.log('namespace-read: loading the minimal Fastify app');
    const minimal = await runLoad({
      ...settings,
      target: 'minimal Fastify, same route and hooks',
      url: fastifyUrl,
      headers,
    });
    context.log('namespace-read: loading the service');
    const onPostgres = context.postgres !== undefined;
    const svc = await runLoad({
      ...settings,
      target: onPostgres ? `service, ${instances(1)}` : 'service GET /cloud/games/{g}/namespaces/{ns}',
      url: serviceUrl,
      headers,
    });
    // Under load the service must still have answered what it answered alone.
    if ((await getText(serviceUrl, headers)) !== body) {
      throw new Error('the service answered another body after the load than before it');
    }
    context.log('namespace-read: the minimal Fastify app and the service in turn');
    const rounds = interleavedReport(
      {
        label: onPostgres ? `, ${instances(1)}` : '',
        minimal: 'minimal Fastify',
        unit: 'requests',
        target: FASTIFY_RATIO_TARGET,
      },
      await interleave(
        settings,
        { pid: pidOf(fastify.child), load: { url: fastifyUrl, headers } },
        { pid: pidOf(service.child), load: { url: serviceUrl, headers } },
      ),
    );
    if (!onPostgres) {
      return {
        title: `namespace-read: ${namespaceRead.description}`,
        rows: [bare, minimal, svc],
        notes: rounds.notes,
        comparisons: [
          ratioToBare('ratio service/bare requests/s', bare, svc),
          ratioToFastify('ratio service/minimal Fastify requests/s', minimal, svc),
          ...rounds.comparisons,
        ],
      };
    }

    context.log('namespace-read: starting a second instance on the same database');
    const peer = await startPeer(context.registry, context.workDir, service, 'service (second instance)');
    const urls = [serviceUrl, serviceUrl.replace(service.baseUrl, peer.baseUrl)];
    // Its own read of the store: same namespace, and the token made through the first instance holds.
    if ((await getText(urls[1] as string, headers)) !== body) {
      throw new Error('the second instance answers another body than the first');
    }
    context.log('namespace-read: loading both instances');
    const pair = await runLoad({
      ...settings,
      target: `service, ${instances(2)}`,
      url: urls,
      headers,
    });
    for (const url of urls) {
      if ((await getText(url, headers)) !== body) {
        throw new Error(`${url} answered another body after the load than before it`);
      }
    }
    return {
      title: `namespace-read on PostgreSQL: ${namespaceRead.description}`,
      rows: [bare, minimal, svc, pair],
      notes: [
        ...rounds.notes,
        `${instances(2)}: one autocannon run whose ${settings.connections} connections alternate between ` +
          `the two (${settings.connections / 2} each), so requests/s is their sum and p50/p99 come from one ` +
          `histogram of both. The load generator, both instances and PostgreSQL share this machine's ` +
          `${os.cpus().length} cores, so this says what running a second instance costs or gains here, ` +
          'not what one on a machine of its own would add.',
      ],
      comparisons: [
        ratioToBare(`ratio service/bare requests/s, ${instances(1)}`, bare, svc),
        ratioToFastify(`ratio service/minimal Fastify requests/s, ${instances(1)}`, minimal, svc),
        ...rounds.comparisons,
        ratioToBare(`ratio service/bare requests/s, ${instances(2)}`, bare, pair),
        {
          label: `requests/s, ${instances(2)} / ${instances(1)}`,
          value: pair.requestsPerSec / svc.requestsPerSec,
          target: '>= 1.0 (a second instance must never make it slower)',
          met: pair.requestsPerSec >= svc.requestsPerSec,
        },
      ],
    };
  },
};
