import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type {
  Build,
  GameSummary,
  LobbySummary,
  NamespaceFull,
  VersionConfig,
  VersionFull,
} from '@gcm/contract';
import { freePort } from '../helpers/listening.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { api, outputUntilClose, type ServiceProcess, startServiceProcess } from '../helpers/process.js';

/**
 * The README's "Getting started" walk, run as written: the ```sh blocks between its markers, in order, in
 * one bash (stopping at the first failing command), from a directory whose `data/` is the data dir of a
 * real service process, so that `$(cat data/operator-token)` reads its token as it would from the
 * repository root. Only `GCM` is set, because the service cannot count on port 8080 here.
 */

const README = path.join(REPO_ROOT, 'README.md');
const BEGIN = '<!-- getting-started:begin -->';
const END = '<!-- getting-started:end -->';

/** The shell blocks between the markers, joined in order. */
function gettingStartedScript(readme: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README: ${BEGIN} … ${END} not found`);
  const blocks = [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  if (blocks.length === 0) throw new Error('README: no ```sh block between the getting-started markers');
  return blocks.join('\n');
}

function runBash(script: string, cwd: string, env: Record<string, string>) {
  const file = path.join(cwd, 'getting-started.sh');
  writeFileSync(file, script);
  const child = spawn('bash', ['-euo', 'pipefail', file], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputUntilClose(child);
}

describe('README "Getting started"', { timeout: 120_000 }, () => {
  let dir: string;
  let service: ServiceProcess;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-getting-started-'));
    const port = await freePort();
    service = await startServiceProcess({
      PORT: String(port),
      // The presigned upload URLs must name the address the walk reaches the service at.
      GCM_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GCM_DATA_DIR: path.join(dir, 'data'),
    });
  });
  after(async () => {
    await service?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('runs from a game to its lobby logs and prints the lobby', async () => {
    const script = gettingStartedScript(readFileSync(README, 'utf8'));
    const run = await runBash(script, dir, { GCM: service.baseUrl });
    assert.equal(run.code, 0, `the walk failed:\n${run.stderr}\n${run.stdout}`);
    assert.equal(run.stderr, '');
    // Run from a clone, the walk must leave nothing behind for `git status` to show (its files go to a temp dir).
    assert.deepEqual(readdirSync(dir).sort(), ['data', 'getting-started.sh']);

    // What the last command printed: the namespace's lobby logs, read with the cloud token.
    const last = run.stdout.trim().split('\n').at(-1) ?? '';
    const { lobbies } = JSON.parse(last) as { lobbies: LobbySummary[] };
    assert.equal(lobbies.length, 1, last);
    const [lobby] = lobbies as [LobbySummary];
    assert.equal(lobby.lobby_group_name_id, 'default');
    assert.equal(lobby.region_id, 'lnd-atl');
    assert.ok(lobby.start_ts !== undefined && lobby.ready_ts !== undefined, last);
    assert.deepEqual(
      { exit_code: lobby.status.stopped?.exit_code, failed: lobby.status.stopped?.failed },
      { exit_code: 0, failed: false },
    );

    // And the walk left what it says: the namespace runs the version whose game mode runs the build.
    const operator = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
    const get = async <T>(url: string): Promise<T> => {
      const res = await api(service.baseUrl, operator, 'GET', url);
      assert.equal(res.status, 200, `GET ${url}: ${JSON.stringify(res.json)}`);
      return res.json as T;
    };
    const { games } = await get<{ games: GameSummary[] }>('/cloud/games');
    const game = games.find((g) => g.name_id === 'my-game');
    assert.ok(game !== undefined);
    const { namespace } = await get<{ namespace: NamespaceFull }>(
      `/cloud/games/${game.game_id}/namespaces/${lobby.namespace_id}`,
    );
    assert.equal(namespace.name_id, 'prod');
    const { version } = await get<{ version: VersionFull }>(
      `/cloud/games/${game.game_id}/versions/${namespace.version_id}`,
    );
    assert.equal(version.display_name, 'v1.0.0');
    const config = version.config as VersionConfig;
    const buildId = config.matchmaker?.game_modes?.default?.container?.image_id;
    const { build } = await get<{ build: Build }>(
      `/games/${game.game_id}/environments/${lobby.namespace_id}/builds/${buildId}`,
    );
    assert.equal(build.content_length, 3_000_000);
  });
});
