import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, createGameWithNamespace, type RunningService, startService } from '../lib/service.js';

const FLOOD_CONNECTIONS = 16;
/** A sign-in may wait long behind the others (seconds on a busy 2-core machine): it is not a failure here. */
const SIGN_IN_TIMEOUT_MS = 60_000;
const OTHER_CALLERS = 2;
const PASSWORD = 'correct horse battery staple';
/** The other caller's p99 under the flood with the cap on, at most this many milliseconds. */
const TARGET_P99_MS = 100;

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * `callers` loops of one GET after another for `seconds`, each timed in full however long it takes (a load
 * generator's timeout would turn the slowest answers, the point here, into errors without a figure).
 */
async function timeCalls(url: string, token: string, callers: number, seconds: number): Promise<Latencies> {
  const until = performance.now() + seconds * 1000;
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) {
        const start = performance.now();
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`the other caller got ${res.status}`);
        times.push(performance.now() - start);
      }
    }),
  );
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? Number.NaN;
  return { count: times.length, p50: at(0.5), p99: at(0.99), max: times.at(-1) ?? Number.NaN };
}

/** `connections` loops of one sign-in after another for `seconds`: how many got in. */
async function floodSignIns(
  target: { service: RunningService; origin: string },
  connections: number,
  seconds: number,
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let signedIn = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const res = await fetch(`${target.service.baseUrl}/auth/sign-in/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: target.origin },
          body: JSON.stringify({ email: 'flood@bench.example', password: PASSWORD }),
          signal: AbortSignal.timeout(SIGN_IN_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`a sign-in of the flood got ${res.status}`);
        signedIn += 1;
      }
    }),
  );
  return signedIn;
}

function describe(latencies: Latencies): string {
  return (
    `${latencies.count} calls, p50 ${latencies.p50.toFixed(1)} ms, p99 ${latencies.p99.toFixed(1)} ms, ` +
    `max ${latencies.max.toFixed(0)} ms`
  );
}

/** A fresh service with `env`, one account to sign in to, and a game whose cloud token reads it. */
async function floodTarget(context: ScenarioContext, label: string, env: Record<string, string>) {
  const service = await startService(context.registry, mkdtempSync(path.join(context.workDir, 'flood-')), {
    name: `sign-in-flood ${label}`,
    // One client address floods: the per-address limit would refuse it long before the hashes queue.
    env: { ...env, GCM_SIGNUP: 'open', GCM_RATE_LIMIT_ACCOUNT_CALLS: '0' },
  });
  // GCM_PUBLIC_URL's default, the origin better-auth takes writes from.
  const origin = `http://localhost:${new URL(service.baseUrl).port}`;
  const signUp = await fetch(`${service.baseUrl}/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'flood@bench.example', password: PASSWORD, name: 'Flood' }),
  });
  if (signUp.status !== 200) throw new Error(`sign-up answered ${signUp.status}: ${await signUp.text()}`);
  const { gameId } = await createGameWithNamespace(service, 'bench-flood', 'Bench Flood');
  const { token } = await apiOk<{ token: string }>(service, 'POST', `/cloud/games/${gameId}/tokens/cloud`);
  return { service, origin, gameUrl: `${service.baseUrl}/cloud/games/${gameId}`, token };
}

async function stop(service: RunningService): Promise<void> {
  service.child.process.kill('SIGTERM');
  await service.child.exited;
}

/**
 * Another caller's latency (a game's cloud token reading its game, one GET after another) while 16
 * connections sign in as fast as they can: on a service with no cap on password hashes
 * (GCM_PASSWORD_HASH_CONCURRENCY=0), then on one with the default cap, each fresh and stopped after.
 */
export const signInFlood: Scenario = {
  name: 'sign-in-flood',
  description: `${OTHER_CALLERS} callers' GET /cloud/games/{id} while ${FLOOD_CONNECTIONS} connections sign in, password hash cap off vs on`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const notes: string[] = [];
    const flooded: Record<string, Latencies> = {};
    for (const [label, env] of [
      ['cap off', { GCM_PASSWORD_HASH_CONCURRENCY: '0' }],
      ['cap on (default)', {}],
    ] as const) {
      const target = await floodTarget(context, label, env);
      try {
        const alone = await timeCalls(target.gameUrl, target.token, OTHER_CALLERS, context.durationSec);
        const [signedIn, crowded] = await Promise.all([
          floodSignIns(target, FLOOD_CONNECTIONS, context.durationSec),
          timeCalls(target.gameUrl, target.token, OTHER_CALLERS, context.durationSec),
        ]);
        notes.push(`${label}: ${signedIn} sign-ins completed (the flood runs until its last one ends)`);
        flooded[label] = crowded;
        notes.push(`${label}: other caller alone: ${describe(alone)}`);
        notes.push(`${label}: other caller during the flood: ${describe(crowded)}`);
        context.log(
          `sign-in-flood ${label}: p99 ${alone.p99.toFixed(1)} ms alone, ${crowded.p99.toFixed(1)} flooded`,
        );
      } finally {
        await stop(target.service);
      }
    }
    const capped = flooded['cap on (default)']?.p99 ?? Number.NaN;
    return {
      title: `sign-in-flood: ${signInFlood.description}`,
      rows: [],
      notes,
      comparisons: [
        {
          label: "other caller's p99 during the flood, cap on (ms)",
          value: capped,
          target: `< ${TARGET_P99_MS} ms`,
          met: capped < TARGET_P99_MS,
        },
      ],
    };
  },
};
