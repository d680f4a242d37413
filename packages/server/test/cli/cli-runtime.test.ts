/**
 * `gcm` over the lobbies the service runs: the lobby list's state and players, `gcm lobbies stop`, and
 * `gcm deploy --wait` until the new version's idle lobbies are ready, or exit 1 with the failed lobbies'
 * exit codes. The real binary against a real listening service; lobby rows are written as the reconciler
 * writes them (helpers/runtime-lobbies.ts), so no Docker engine is needed here.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GetAnalyticsMatchmakerLiveResponse } from '@gcm/contract';
import { createGameWorld } from '../helpers/api-world.js';
import { finished, lineReader, runCli, startCli } from '../helpers/cli.js';
import { startListening } from '../helpers/listening.js';
import {
  find,
  mintPublicToken,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import { createGameFixture, type TestService } from '../helpers/service.js';
import { sqliteOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

describe('gcm and the lobbies the service runs', sqliteOnly, () => {
  let svc: TestService;
  let publicUrl: string;
  let dir: string;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-cli-runtime-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function game(nameId: string) {
    const fx = await createGameFixture(svc, nameId);
    const env = { GCM_CONFIG_DIR: path.join(dir, nameId), GCM_URL: publicUrl, GCM_TOKEN: fx.cloudToken };
    return { ...fx, env };
  }

  it('lists a running lobby’s state and players, and stops it', async () => {
    const g = await game('cli-stop');
    const lobby = await seedRuntimeLobby(svc, g, { runState: 'ready', playerCount: 2, maxPlayers: 8 });
    const list = await runCli(['lobbies', 'list', '--namespace', 'prod'], g.env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /PLAYERS\s+STATUS/);
    assert.match(list.stdout, new RegExp(`${lobby.lobbyId}.*2/8\\s+ready`));

    const stopped = await runCli(['lobbies', 'stop', lobby.lobbyId], g.env);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /stopping/);
    const again = await runCli(['--json', 'lobbies', 'stop', lobby.lobbyId], g.env);
    assert.deepEqual(JSON.parse(again.stdout), { lobby_id: lobby.lobbyId, did_remove: false });
    const after = await runCli(['lobbies', 'list', '--namespace', 'prod'], g.env);
    assert.match(after.stdout, new RegExp(`${lobby.lobbyId}.*stopping`));

    const reported = await svc.call(
      'POST',
      `/cloud/games/${g.gameId}/namespaces/${g.namespaceId}/logs/lobbies`,
      {
        body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' },
      },
    );
    const reportedId = reported.json<{ lobby_id: string }>().lobby_id;
    const refused = await runCli(['lobbies', 'stop', reportedId], g.env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /LOBBY_NOT_RUNTIME/);
    assert.equal((await runCli(['lobbies', 'stop', 'not-an-id'], g.env)).code, 2);
  });

  /** Deploys a gcm init config (one idle lobby wanted in each region) with --wait; returns the child. */
  async function deployWaiting(g: Awaited<ReturnType<typeof game>>, extra: string[] = []) {
    const config = path.join(dir, `${g.gameId}.yaml`);
    if (!existsSync(config)) {
      const init = await runCli(['init', config], { GCM_CONFIG_DIR: g.env.GCM_CONFIG_DIR });
      assert.equal(init.code, 0, init.stderr);
    }
    const image = path.join(dir, `${g.gameId}.tar`);
    writeFileSync(image, `server image of ${g.gameId}`);
    const child = startCli(
      [
        'deploy',
        image,
        '--namespace',
        'prod',
        '--config',
        config,
        '--wait',
        '--wait-interval-ms',
        '100',
        ...extra,
      ],
      g.env,
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const done = finished(child, 120_000);
    await until('the wait shows its progress', 60_000, () => /lnd-atl: 0\/1 ready/.test(stderr), 20);
    const ns = await svc.call('GET', `/cloud/games/${g.gameId}/namespaces/${g.namespaceId}`);
    const versionId = ns.json<{ namespace: { version_id: string } }>().namespace.version_id;
    assert.notEqual(versionId, g.versionId, 'the namespace runs the new version');
    return { done, versionId, stderr: () => stderr };
  }

  it('shows a lobby with its latest resource sample', async () => {
    const g = await game('cli-show');
    const lobby = await seedRuntimeLobby(svc, g, { runState: 'ready', playerCount: 1, maxPlayers: 4 });
    const bare = await runCli(['lobbies', 'show', lobby.lobbyId, '--namespace', 'prod'], g.env);
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(bare.stdout, /Status\s+ready/);
    assert.match(bare.stdout, /Resources no sample yet/);
    // The row the stats sampler writes (its reads of a real engine: test/modules/lobby-resources.test.ts).
    await svc.deps.db
      .insertInto('lobby_resource_latest')
      .values({
        namespace_id: g.namespaceId,
        lobby_id: lobby.lobbyId,
        ts: svc.clock.now(),
        cpu_millicores: 250,
        memory_bytes: 3 * 1024 * 1024,
        memory_limit_bytes: 512 * 1024 * 1024,
        rx_bytes: 2048,
        tx_bytes: 100,
      })
      .execute();
    const shown = await runCli(['lobbies', 'show', lobby.lobbyId, '--namespace', 'prod'], g.env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Players\s+1\/4/);
    assert.match(shown.stdout, /CPU\s+0\.25 cores/);
    assert.match(shown.stdout, /Memory\s+3\.0 MiB \/ 512\.0 MiB/);
    assert.match(shown.stdout, /Network\s+rx 2\.0 KiB, tx 100 B/);
    const json = await runCli(['--json', 'lobbies', 'show', lobby.lobbyId, '--namespace', 'prod'], g.env);
    const answer = JSON.parse(json.stdout) as { lobby: { lobby_id: string }; resources: { latest: unknown } };
    assert.equal(answer.lobby.lobby_id, lobby.lobbyId);
    assert.deepEqual(answer.resources.latest, {
      ts: new Date(svc.clock.now()).toISOString(),
      cpu_cores: 0.25,
      memory_bytes: 3 * 1024 * 1024,
      memory_limit_bytes: 512 * 1024 * 1024,
      rx_bytes: 2048,
      tx_bytes: 100,
    });
    const unknown = await runCli(
      ['lobbies', 'show', '0190a0a0-0000-7000-8000-000000000000', '--namespace', 'prod'],
      g.env,
    );
    assert.equal(unknown.code, 1);
  });

  it('shows a stop reason with terminal controls escaped, and as sent with --raw', async () => {
    const g = await game('cli-escapes');
    // What a stop reason can quote from a tenant: an archive's file names, a game server's words.
    const reason = 'bad file \u001b]52;c;ZXZpbA==\u0007 \u001b]0;pwned\u0007\nStatus    ready \u009b2J';
    const lobby = await seedRuntimeLobby(svc, g, {
      runState: 'stopped',
      failed: { exitCode: 1, reason },
    });
    const shown = await runCli(['lobbies', 'show', lobby.lobbyId, '--namespace', 'prod'], g.env);
    assert.equal(shown.code, 0, shown.stderr);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
    assert.doesNotMatch(shown.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.ok(
      shown.stdout.includes(
        'Stopped   bad file \\x1b]52;c;ZXZpbA==\\x07 \\x1b]0;pwned\\x07\\nStatus    ready \\x9b2J\n',
      ),
      shown.stdout,
    );
    // One Status line: the reason's newline cannot forge another.
    assert.equal(shown.stdout.match(/^Status/gm)?.length, 1);
    const raw = await runCli(['lobbies', 'show', lobby.lobbyId, '--namespace', 'prod', '--raw'], g.env);
    assert.equal(raw.code, 0, raw.stderr);
    assert.ok(raw.stdout.includes(`Stopped   ${reason}\n`), raw.stdout);
  });

  it('deploy --wait waits until every region has its idle lobbies ready', async () => {
    const g = await game('cli-wait');
    const run = await deployWaiting(g);
    const regions = (await svc.call('GET', '/cloud/regions')).json<{ regions: { name_id: string }[] }>()
      .regions;
    for (const { name_id: region } of regions) {
      await seedRuntimeLobby(
        svc,
        { namespaceId: g.namespaceId, versionId: run.versionId },
        {
          runState: 'ready',
          region,
          gameMode: 'default',
        },
      );
    }
    const result = await run.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /lnd-atl: 1\/1 ready/);
    assert.match(result.stderr, /every idle lobby it asks for is ready/);
  });

  it('deploy --wait exits 1 with the failed lobbies’ exit codes when the version cannot start', async () => {
    const g = await game('cli-wait-fail');
    const run = await deployWaiting(g);
    const where = { namespaceId: g.namespaceId, versionId: run.versionId };
    // As many failures as idle lobbies wanted (one in each region): the server cannot start.
    const regions = (await svc.call('GET', '/cloud/regions')).json<{ regions: { name_id: string }[] }>()
      .regions;
    for (const { name_id: region } of regions) {
      await seedRuntimeLobby(svc, where, {
        runState: 'stopped',
        region,
        gameMode: 'default',
        failed: { exitCode: 137, reason: 'ready-timeout' },
      });
    }
    const result = await run.done;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /failed; it cannot start/);
    assert.match(result.stderr, /\(default, lnd-atl\): exit code 137, ready-timeout/);

    // Again, with nothing failing any more: a bounded wait, then exit 1.
    const timedOut = await deployWaiting(g, ['--wait-timeout', '1']);
    const second = await timedOut.done;
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /not ready within 1 s/);
  });

  it('lists the live lobbies with their players, and --follow prints the view again when a find changes it', async () => {
    const world = await createGameWorld(svc, 'cli-live');
    const env = {
      GCM_CONFIG_DIR: path.join(dir, 'cli-live'),
      GCM_URL: publicUrl,
      GCM_TOKEN: world.cloudToken,
    };
    const versionId = await switchToRuntimeVersion(svc, world, { min: 0, max: 0 });
    const publicToken = await mintPublicToken(svc, world);
    const lobby = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'ready',
        maxPlayers: 8,
      },
    );
    const gone = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'stopped',
      },
    );

    const list = await runCli(['lobbies', 'list', '--namespace', 'prod', '--live'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /PLAYERS\s+CONNECTED\s+STATE/);
    assert.match(list.stdout, new RegExp(`${lobby.lobbyId}.*0/8\\s+0\\s+idle`));
    assert.doesNotMatch(list.stdout, new RegExp(gone.lobbyId));

    const child = startCli(
      ['--json', 'lobbies', 'list', '--namespace', 'prod', '--live', '--follow', '--interval-ms', '100'],
      env,
    );
    const line = lineReader(child);
    const next = async () => JSON.parse(await line()) as GetAnalyticsMatchmakerLiveResponse;
    const first = await next();
    assert.deepEqual(
      first.lobbies.map((l) => [l.lobby_id, l.total_player_count]),
      [[lobby.lobbyId, 0]],
    );
    const found = await find(svc, publicToken);
    assert.equal(found.statusCode, 200, found.body);
    const second = await next();
    assert.deepEqual(
      second.lobbies.map((l) => [l.lobby_id, l.total_player_count, l.registered_player_count, l.is_idle]),
      [[lobby.lobbyId, 1, 0, false]],
    );
    const connected = await svc.call('POST', '/matchmaker/players/connected', {
      token: lobby.token,
      body: { player_token: found.json<{ player: { token: string } }>().player.token },
    });
    assert.equal(connected.statusCode, 200, connected.body);
    assert.equal((await next()).lobbies[0]?.registered_player_count, 1);
    child.kill('SIGINT');
    assert.equal((await finished(child)).code, 0);

    const unknown = await runCli(['lobbies', 'list', '--namespace', 'nope', '--live'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no namespace named nope/);
    const otherId = await runCli(
      ['lobbies', 'list', '--namespace', '00000000-0000-4000-8000-000000000000', '--live'],
      env,
    );
    assert.equal(otherId.code, 1);
    assert.match(otherId.stderr, /NAMESPACE_NOT_FOUND/);
  });
});
