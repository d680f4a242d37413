/**
 * `gcm lobbies logs`: the real binary against a real service running a real lobby on a private Docker
 * engine; `-f` also in a real terminal (tmux), ended with Ctrl-C.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { finished, GCM_BIN, lineReader, runCli, startCli } from '../helpers/cli.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import {
  deploy,
  type LobbyRow,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  tellLobby,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { sqliteOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('lobby-logs-cli.test.ts') || sqliteOnly.skip;
/** This file's host ports (other runtime test files use others). */
const PORT_RANGE = '28400-28419';
const WAIT_MS = 90_000;
const N = 3_000;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

describe('gcm lobbies logs', { skip }, () => {
  const engine = useRuntimeEngine();
  let svc: TestService;
  let dir: string;
  let env: Record<string, string>;
  let lobby: LobbyRow;
  let port: number;

  before(async () => {
    ({ svc } = await startRuntimeService({ dockerHost: engine.dockerd.dockerHost, portRange: PORT_RANGE }));
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-cli-logs-'));
    const ids = await runtimeGame(svc, 'cli-logs');
    const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
    await deploy(svc, ids, {
      default: { buildId, min: 1, max: 1, regions: ['eu'], env: { TEST_PRINT_LINES: String(N) } },
    });
    await until('a lobby listening', WAIT_MS, async () => {
      const found = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.run_state === 'ready');
      if (found === undefined) return false;
      lobby = found;
      const page = await svc.call(
        'GET',
        `/cloud/games/${ids.gameId}/matchmaker/lobbies/${found.lobby_id}/logs?stream=std_out&limit=5`,
      );
      return page
        .json<{ lines: string[] }>()
        .lines.some((l) => Buffer.from(l, 'base64').toString().startsWith('server: listening'));
    });
    port = (JSON.parse(lobby.ports ?? '[]') as { port: number }[])[0]?.port ?? 0;
    const tok = await svc.call('POST', `/cloud/games/${ids.gameId}/tokens/cloud`);
    env = {
      GCM_CONFIG_DIR: path.join(dir, 'config'),
      GCM_URL: svc.deps.config.publicUrl,
      GCM_TOKEN: tok.json<{ token: string }>().token,
    };
  });
  after(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints every line in order; --tail, --since, --stderr and -t choose what', async () => {
    const all = await runCli(['lobbies', 'logs', lobby.lobby_id], env);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.split('\n').slice(0, -1);
    const numbered = lines.filter((l) => l.startsWith('line '));
    assert.deepEqual(
      numbered,
      Array.from({ length: N }, (_, i) => `line ${i + 1}`),
    );
    assert.ok(lines.indexOf(`server: printed ${N} lines`) > lines.indexOf(`line ${N}`));

    // The test server prints `binary \377\376\001\033[31m\000 end`: not UTF-8, with controls.
    assert.ok(lines.includes('binary \ufffd\ufffd\\x01\\x1b[31m\\x00 end'), all.stdout.slice(-500));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
    assert.doesNotMatch(all.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const raw = await runCli(['lobbies', 'logs', lobby.lobby_id, '--raw'], env);
    assert.ok(raw.stdout.includes('\u0001\u001b[31m\u0000 end\n'), raw.stdout);
    const tail = await runCli(['lobbies', 'logs', lobby.lobby_id, '--tail', '3'], env);
    assert.deepEqual(tail.stdout.split('\n').slice(0, -1), lines.slice(-3));
    const stderr = await runCli(['lobbies', 'logs', lobby.lobby_id, '--stderr'], env);
    assert.equal(stderr.stdout, 'server: stderr works\n');
    const recent = await runCli(['lobbies', 'logs', lobby.lobby_id, '--since', '1h'], env);
    assert.equal(recent.stdout, all.stdout);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const none = await runCli(['lobbies', 'logs', lobby.lobby_id, '--since', future], env);
    assert.deepEqual([none.code, none.stdout], [0, '']);
    const timed = await runCli(['lobbies', 'logs', lobby.lobby_id, '--tail', '1', '-t'], env);
    // Not a terminal: no colour.
    assert.match(timed.stdout, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z server: listening on \d+\n$/);
    const bad = await runCli(['lobbies', 'logs', lobby.lobby_id, '--since', 'yesterday'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since/);
    const unknown = await runCli(['lobbies', 'logs', '01900000-0000-7000-8000-000000000000'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /LOBBY_NOT_FOUND/);
  });

  it('follows in a real terminal and ends cleanly on Ctrl-C', {
    skip: !hasTmux && 'tmux not found',
  }, async () => {
    const session = `gcm-logs-${process.pid}`;
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}='${v}'`)
      .join(' ');
    tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50');
    try {
      tmux('set-option', '-t', session, 'remain-on-exit', 'on');
      tmux(
        'send-keys',
        '-t',
        session,
        `env ${vars} ${process.execPath} ${GCM_BIN} lobbies logs ${lobby.lobby_id} -f --tail 2; echo gcm-exited-$?`,
        'Enter',
      );
      const pane = () => tmux('capture-pane', '-p', '-t', session);
      await until('the last lines shown', WAIT_MS, async () => /server: listening on \d+/.test(pane()));
      assert.equal(await tellLobby(port, 'print followed in tmux'), 'printed');
      await until('the new line shown', WAIT_MS, async () => pane().includes('followed in tmux'));
      assert.doesNotMatch(pane(), /gcm-exited-\d/, 'still following');
      tmux('send-keys', '-t', session, 'C-c');
      await until('gcm ended', WAIT_MS, async () => /gcm-exited-\d/.test(pane()));
      assert.match(pane(), /gcm-exited-0/);
      assert.doesNotMatch(pane(), /Error|at .*\.js/);
    } finally {
      tmux('kill-session', '-t', session);
    }
  });

  it('with -f, stops by itself once the lobby has exited and all it printed is shown', async () => {
    const child = startCli(['lobbies', 'logs', lobby.lobby_id, '-f', '--tail', '1'], env);
    const next = lineReader(child);
    // Its last line shown: it follows now.
    await next(WAIT_MS);
    const done = finished(child, WAIT_MS);
    assert.equal(await tellLobby(port, 'print the last words'), 'printed');
    assert.equal(await tellLobby(port, 'exit 0'), 'bye');
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(lines.includes('the last words'), result.stdout);
    assert.ok(lines.includes('server: exiting with 0'), result.stdout);
  });
});
