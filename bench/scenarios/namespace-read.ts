import { randomInt } from 'node:crypto';
import { startBaseline } from '../lib/baseline.js';
import { runLoad } from '../lib/load.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, createGameWithNamespace, type RunningService } from '../lib/service.js';

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CDN_USERS = 3;
const RATIO_TARGET = 0.5;

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

/**
 * GET /cloud/games/{g}/namespaces/{ns} with a game cloud token, against a bare node:http server answering
 * the very same body: the ratio says what the framework, auth and store cost on the hottest read.
 */
export const namespaceRead: Scenario = {
  name: 'namespace-read',
  description: 'GET /cloud/games/{g}/namespaces/{ns} (cloud token) vs bare node:http with the same body',
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
    context.log('namespace-read: loading the service');
    const svc = await runLoad({
      ...settings,
      target: 'service GET /cloud/games/{g}/namespaces/{ns}',
      url: serviceUrl,
      headers,
    });
    // Under load the service must still have answered what it answered alone.
    if ((await getText(serviceUrl, headers)) !== body) {
      throw new Error('the service answered another body after the load than before it');
    }

    const ratio = bare.requestsPerSec > 0 ? svc.requestsPerSec / bare.requestsPerSec : 0;
    return {
      title: `namespace-read: ${namespaceRead.description}`,
      rows: [bare, svc],
      comparisons: [
        {
          label: 'ratio service/bare requests/s',
          value: ratio,
          target: `ratio >= ${RATIO_TARGET}`,
          met: ratio >= RATIO_TARGET,
        },
      ],
    };
  },
};
