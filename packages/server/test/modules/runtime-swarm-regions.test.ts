/**
 * A region of a Docker Swarm with no ready node says so: the service runs GCM_RUNTIME=swarm on a one-node
 * swarm (test/helpers/swarm-world.ts) whose node serves `eu` only; the namespace's rollout names the regions that
 * cannot run lobbies and why, and `gcm deploy --wait` shows it on its progress line and in its error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NamespaceRollout } from '@gcm/contract';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { addMember, giveGame, newTeam } from '../helpers/people.js';
import { deploy, runtimeGame, uploadBuild } from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { startSwarmService, swarmSkipReason, useSwarmEngine } from '../helpers/swarm-world.js';
import { until } from '../helpers/until.js';

const skip = swarmSkipReason('runtime-swarm-regions.test.ts');
/** This file's host ports: other runtime test files use other ranges, so files can run side by side. */
const PORT_RANGE = '29900-29999';
/** A lobby starts in seconds on an idle machine (a push to the registry first); a loaded 2-core one is slower. */
const WAIT_MS = 90_000;

// Each test waits for a few such steps: its own limit is above the sum, so a slow step names itself.
describe('a swarm region with no ready node', { skip, timeout: 300_000 }, () => {
  const engine = useSwarmEngine();
  let svc: TestService;
  let publicUrl: string;
  let dir: string;
  /** The first test's game: us never has a node, so its rollout names us once that test is done. */
  let regionsGame: { gameId: string; namespaceId: string } | undefined;

  before(async () => {
    ({ svc, publicUrl } = await startSwarmService({ engine, portRange: PORT_RANGE }));
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-swarm-regions-'));
  });
  after(async () => {
    await svc?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const rolloutOf = async (ids: { gameId: string; namespaceId: string }) => {
    const res = await svc.call('GET', `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/rollout`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<NamespaceRollout>();
  };

  it("runs eu's lobbies, and the rollout says why us, then a drained eu, run none", async () => {
    const ids = await runtimeGame(svc, 'swarm-regions');
    regionsGame = ids;
    const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
    await deploy(svc, ids, { default: { buildId, min: 1, max: 1, regions: ['eu', 'us'] } });

    let rollout = await rolloutOf(ids);
    /** Until the rollout, as it is then, matches `check`. */
    const rolloutUntil = (what: string, check: (r: NamespaceRollout) => boolean) =>
      until(
        what,
        WAIT_MS,
        async () => {
          rollout = await rolloutOf(ids);
          return check(rollout);
        },
        200,
      );
    const euReady = (r: NamespaceRollout) =>
      r.groups.some((g) => g.region_id === 'eu' && g.lobbies.ready_idle === 1);
    await rolloutUntil("eu's idle lobby ready", euReady);
    assert.equal(rollout.complete, false);
    assert.deepEqual(rollout.problems, [
      { region_id: 'us', message: 'no ready node: no node of the swarm is labelled gcm.region=us' },
    ]);
    const us = rollout.groups.find((g) => g.region_id === 'us');
    assert.deepEqual(us?.lobbies, { starting: 0, ready_idle: 0, ready_busy: 0, closed: 0, stopping: 0 });

    // The node drained: the swarm moves its lobby off (lost with it), and eu has no ready node either.
    await engine.swarm.drain(engine.nodeId);
    try {
      await rolloutUntil('the rollout to say eu has no ready node', (r) =>
        r.problems.some((p) => p.region_id === 'eu'),
      );
      const eu = rollout.problems.find((p) => p.region_id === 'eu');
      assert.match(
        eu?.message ?? '',
        /^no ready node: 1 node is labelled gcm\.region=eu, none ready and active \([^:]+: drain\)$/,
      );
      assert.deepEqual(
        rollout.problems.map((p) => p.region_id),
        ['eu', 'us'],
      );
      await rolloutUntil("eu's lobby lost with its node", (r) => {
        const group = r.groups.find((g) => g.region_id === 'eu');
        return group !== undefined && Object.values(group.lobbies).every((n) => n === 0);
      });
    } finally {
      await engine.swarm.activate(engine.nodeId);
    }
    // Active again: eu's problem is gone and its idle lobby is back; us still has none.
    await rolloutUntil("eu's idle lobby ready again", euReady);
    assert.deepEqual(
      rollout.problems.map((p) => p.region_id),
      ['us'],
    );
  });

  it('gcm deploy --wait shows the problem and exits 1 at its timeout', async () => {
    const ids = await runtimeGame(svc, 'swarm-wait');
    const token = await svc.call('POST', `/cloud/games/${ids.gameId}/tokens/cloud`);
    assert.equal(token.statusCode, 200, token.body);
    const env = {
      GCM_CONFIG_DIR: path.join(dir, 'cli'),
      GCM_URL: publicUrl,
      GCM_TOKEN: token.json<{ token: string }>().token,
    };
    const archive = path.join(dir, 'server.tar');
    writeFileSync(archive, engine.image.archive);
    // JSON is YAML: the version config, without image_id (deploy names the pushed build there).
    const config = path.join(dir, 'gcm.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        matchmaker: {
          game_modes: {
            default: {
              idle_lobbies: { min: 1, max: 1 },
              regions: { eu: {}, us: {} },
              container: { network_mode: 'host', ports: { game: { port: 7777, protocol: 'tcp' } } },
            },
          },
        },
      }),
    );
    const result = await runCli(
      [
        'deploy',
        archive,
        '--namespace',
        'prod',
        '--config',
        config,
        '--wait',
        '--wait-timeout',
        '20',
        '--wait-interval-ms',
        '200',
      ],
      env,
      WAIT_MS,
    );
    assert.equal(result.code, 1, result.stderr);
    const problem = 'no ready node: no node of the swarm is labelled gcm.region=us';
    assert.ok(result.stderr.includes(`us: 0/1 ready — ${problem}`), result.stderr);
    assert.ok(
      result.stderr.includes(`error: the version's idle lobbies were not ready within 20 s; us: ${problem}`),
      result.stderr,
    );
  });

  it("the dashboard's overview names the region that cannot run lobbies, and stays accessible", {
    skip: dashboardSkipReason('runtime-swarm-regions.test.ts dashboard', { sqliteOnly: true }),
  }, async () => {
    const ids = regionsGame;
    assert.ok(ids !== undefined, 'the first test made the game');
    const team = await newTeam(svc, 'swarm');
    await addMember(svc, team, 'viewer-swarm@example.com', 'viewer');
    await giveGame(svc, ids.gameId, team.teamId);
    const web = new DashboardBrowser(await launchBrowser(), publicUrl);
    try {
      for (const look of LOOKS) {
        const { context, page } = await web.signedIn('viewer-swarm@example.com', {
          ...look,
          bypassCSP: true,
        });
        await page.goto(`${publicUrl}/teams/${team.teamId}/games/${ids.gameId}`);
        const problems = page.locator('section.rollout .rollout-problems');
        await problems.waitFor();
        assert.deepEqual(await problems.getByRole('listitem').allInnerTexts(), [
          'us: no ready node: no node of the swarm is labelled gcm.region=us',
        ]);
        await web.check(page, 'rollout-problems', look.suffix);
        await context.close();
      }
    } finally {
      await web.browser.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
