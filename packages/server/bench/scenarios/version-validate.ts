import { performance } from 'node:perf_hooks';
import type { VersionConfig } from '@gcm/contract';
import { validateVersion } from '@gcm/contract';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, BENCH_REGIONS, createGameWithNamespace, type RunningService } from '../lib/service.js';

const GAME_MODES = 32;
const PORTS = 16;
const ENV_VARS = 64;
const PURE_RUNS = 300;
const HTTP_RUNS = 100;
const TARGET_MS = 5;

/** The largest configuration the limits allow in every dimension at once, and valid: every rule runs. */
function largestConfig(imageIds: readonly string[]): VersionConfig {
  const gameModes: NonNullable<NonNullable<VersionConfig['matchmaker']>['game_modes']> = {};
  for (let g = 0; g < GAME_MODES; g++) {
    const ports: Record<string, { port: number; protocol: 'udp' | 'https' }> = {};
    for (let p = 0; p < PORTS; p++)
      ports[`port-${p}`] = { port: 7000 + p, protocol: p % 2 ? 'udp' : 'https' };
    const env: Record<string, string> = {};
    for (let e = 0; e < ENV_VARS; e++) env[`SETTING_${e}`] = `value-${g}-${e}`;
    const regions: Record<string, { tier: string; idle_lobbies: { min: number; max: number } }> = {};
    for (const r of BENCH_REGIONS) regions[r] = { tier: 'basic-1d2', idle_lobbies: { min: 1, max: 4 } };
    gameModes[`mode-${g}`] = {
      max_players: 16,
      regions,
      container: { image_id: imageIds[g] ?? '', args: ['--mode', `mode-${g}`], env, ports },
      actions: {
        find: {
          enabled: true,
          verification: { url: 'https://verify.example.com/find', headers: { 'x-k': 'v' } },
        },
      },
    };
  }
  return { matchmaker: { game_modes: gameModes } };
}

/** A game with a namespace and `count` completed builds (tiny files), whose ids the game modes name. */
async function gameWithBuilds(service: RunningService, count: number) {
  const { gameId, namespaceId } = await createGameWithNamespace(service, 'bench-validate', 'Bench Validate');
  const builds = `/games/${gameId}/environments/${namespaceId}/builds`;
  const imageIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const { build_id, presigned_requests } = await apiOk<{
      build_id: string;
      presigned_requests: { url: string }[];
    }>(service, 'POST', `${builds}/prepare`, {
      body: { name: `build ${i}`, image_file: { path: 'image.tar', content_length: 16 } },
    });
    const put = await fetch(presigned_requests[0]?.url ?? '', { method: 'PUT', body: Buffer.alloc(16, i) });
    await put.arrayBuffer();
    if (put.status !== 200) throw new Error(`build upload answered ${put.status}`);
    await apiOk(service, 'POST', `${builds}/${build_id}/complete`);
    imageIds.push(build_id);
  }
  return { gameId, imageIds };
}

function median(sorted: number[]): number {
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/** Times the pure validator in this process, then the HTTP endpoint (JSON parse and schema check included). */
export const versionValidate: Scenario = {
  name: 'version-validate',
  description: `validate a config of ${GAME_MODES} game modes x ${BENCH_REGIONS.length} regions x ${PORTS} ports x ${ENV_VARS} env vars`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const { service } = context;
    const { gameId, imageIds } = await gameWithBuilds(service, GAME_MODES);
    const config = largestConfig(imageIds);
    const body = JSON.stringify({ display_name: 'bench largest', config });
    const facts = {
      regions: BENCH_REGIONS,
      existingDisplayNames: [],
      hostNetworkingEnabled: false,
      buildIds: new Set(imageIds),
    };
    const input = { display_name: 'bench largest', config };
    const found = validateVersion(input, facts);
    if (found.length > 0) throw new Error(`the benchmark config is not valid: ${JSON.stringify(found[0])}`);

    const pure: number[] = [];
    for (let i = 0; i < PURE_RUNS + 30; i++) {
      const start = performance.now();
      validateVersion(input, facts);
      if (i >= 30) pure.push(performance.now() - start);
    }
    pure.sort((a, b) => a - b);

    const url = `${service.baseUrl}/cloud/games/${gameId}/versions/validate`;
    const headers = { authorization: `Bearer ${service.operatorToken}`, 'content-type': 'application/json' };
    const http: number[] = [];
    for (let i = 0; i < HTTP_RUNS + 10; i++) {
      const start = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200 || text !== '{"errors":[],"error_count":0}')
        throw new Error(`validate answered ${res.status}: ${text}`);
      if (i >= 10) http.push(performance.now() - start);
    }
    http.sort((a, b) => a - b);
    context.log(`version-validate: body is ${Buffer.byteLength(body)} bytes`);

    const pureMedian = median(pure);
    return {
      title: `version-validate: ${versionValidate.description}`,
      rows: [],
      notes: [
        `request body: ${(Buffer.byteLength(body) / 1024).toFixed(0)} KiB`,
        `pure validator, ${PURE_RUNS} runs: median ${pureMedian.toFixed(2)} ms, p99 ${percentile(pure, 0.99).toFixed(2)} ms`,
        `POST .../versions/validate over HTTP, ${HTTP_RUNS} sequential runs: median ${median(http).toFixed(2)} ms, ` +
          `p99 ${percentile(http, 0.99).toFixed(2)} ms (JSON parsing and schema check included)`,
      ],
      comparisons: [
        {
          label: 'median ms per validation (pure validator)',
          value: pureMedian,
          target: `< ${TARGET_MS} ms`,
          met: pureMedian < TARGET_MS,
        },
      ],
    };
  },
};
