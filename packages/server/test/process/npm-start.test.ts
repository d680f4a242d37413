/**
 * `npm start` is how the README starts the service, so a process manager's SIGTERM goes to the npm process.
 * It must reach the service: the service then answers its waiting watchers with what is current, finishes,
 * and exits, leaving no orphaned server holding the port and the data directory.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { api, startServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'gcm-npm-start-')), 'data');
  after(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));

  it('runs the build with plain node, and SIGTERM to npm answers watchers and stops the service', async () => {
    const token = `gcm_op_${randomBytes(32).toString('base64url')}`;
    const svc = await startServiceProcess(
      { GCM_DATA_DIR: dataDir, GCM_OPERATOR_TOKEN: token },
      60_000,
      'npm-start',
    );
    const servicePids = new Set(
      svc.lines.flatMap((line) => {
        try {
          const pid = (JSON.parse(line) as { pid?: unknown }).pid;
          return typeof pid === 'number' ? [pid] : [];
        } catch {
          return [];
        }
      }),
    );
    assert.equal(servicePids.size, 1, 'one service process logs');
    const [servicePid] = [...servicePids] as [number];
    assert.notEqual(servicePid, svc.child.pid, 'the service runs under npm, not as npm');

    const game = await api(svc.baseUrl, token, 'POST', '/cloud/games', {
      name_id: 'sig',
      display_name: 'Sig',
    });
    assert.equal(game.status, 200);
    const gameId = game.json?.game_id as string;
    const billing = await api(svc.baseUrl, token, 'GET', `/cloud/games/${gameId}/billing`);
    const index = (billing.json?.watch as { index: string } | undefined)?.index ?? '';

    // A watcher waits for a change that never comes; shutdown must answer it now, not at the watch timeout.
    const watching = fetch(`${svc.baseUrl}/cloud/games/${gameId}/billing?watch_index=${index}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await until(
      'the watcher waits',
      10_000,
      async () => {
        const res = await api(svc.baseUrl, token, 'GET', '/cloud/debug/watchers');
        return (res.json?.waiting as number) === 1;
      },
      50,
    );

    const exitCode = await svc.stop('SIGTERM');
    const answered = await watching;
    assert.equal(answered.status, 200);
    const body = (await answered.json()) as { active_plan: string };
    assert.equal(body.active_plan, 'trial');
    assert.equal(exitCode, 0, `npm start exits 0 after a graceful stop; stderr: ${svc.stderr()}`);
    assert.ok(svc.lines.some((l) => l.includes('shutting down') && l.includes('SIGTERM')));
    await until('the service process is gone', 10_000, () => !isRunning(servicePid), 50);
  });
});
