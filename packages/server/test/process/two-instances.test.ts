import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STALE_BOUND_MS } from '../../src/lib/cache-coherence.js';
import { dropTestDatabase, queryTestDatabase, testDatabaseUrl } from '../helpers/postgres.js';
import { api, type ServiceProcess, startServiceProcess } from '../helpers/process.js';
import { pgOnly } from '../helpers/stores.js';

/** The watch index of a watchable answer. */
function indexOf(json: Record<string, unknown> | undefined): string {
  const index = (json?.watch as { index?: unknown } | undefined)?.index;
  assert.equal(typeof index, 'string');
  return index as string;
}

/** Watchers on `svc` right now (operator-only debug route). */
async function waiting(svc: ServiceProcess, token: string): Promise<number> {
  const res = await api(svc.baseUrl, token, 'GET', '/cloud/debug/watchers');
  assert.equal(res.status, 200);
  return res.json?.waiting as number;
}

async function untilWaiting(svc: ServiceProcess, token: string, count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await waiting(svc, token)) < count) {
    if (Date.now() > deadline) assert.fail(`no ${count} watcher(s) on ${svc.baseUrl} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Two real service processes on one PostgreSQL database, as behind a load balancer: what one commits the
 * other serves, and a change through one wakes watchers on the other.
 */
describe('two instances on one PostgreSQL', pgOnly, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gcm-two-'));
  const operatorToken = `gcm_op_${randomBytes(32).toString('base64url')}`;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let gameId: string;

  before(async () => {
    const databaseUrl = await testDatabaseUrl(root, { empty: true });
    const env = (name: string) => ({
      GCM_DATA_DIR: path.join(root, name),
      DATABASE_URL: databaseUrl,
      GCM_OPERATOR_TOKEN: operatorToken,
    });
    // Started together: migrations and start-up must not race.
    [a, b] = await Promise.all([startServiceProcess(env('a')), startServiceProcess(env('b'))]);
    const game = await api(a.baseUrl, operatorToken, 'POST', '/cloud/games', {
      name_id: 'two-instances',
      display_name: 'Two instances',
    });
    assert.equal(game.status, 200);
    gameId = game.json?.game_id as string;
  });

  after(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    rmSync(root, { recursive: true, force: true });
    await dropTestDatabase(root);
  });

  it('completes on B a device link prepared on A, and A’s watcher gets the token within 1 s', async () => {
    const prepared = await api(a.baseUrl, null, 'POST', '/cloud/devices/links');
    assert.equal(prepared.status, 200);
    const linkToken = prepared.json?.device_link_token as string;
    const query = (index?: string) =>
      `/cloud/devices/links?${new URLSearchParams({ device_link_token: linkToken, ...(index ? { watch_index: index } : {}) })}`;
    const first = await api(a.baseUrl, null, 'GET', query());
    assert.equal(first.status, 200);
    assert.equal(first.json?.cloud_token, undefined);
    const index = indexOf(first.json);

    const watching = api(a.baseUrl, null, 'GET', query(index));
    await untilWaiting(a, operatorToken, 1);
    const completed = await api(b.baseUrl, operatorToken, 'POST', '/cloud/devices/links/complete', {
      device_link_token: linkToken,
      game_id: gameId,
    });
    assert.equal(completed.status, 204);
    const answer = await watching;
    assert.equal(answer.status, 200);
    // Woken by B's change: an answer at the watch timeout would carry no token. How fast is the bench's.
    const cloudToken = answer.json?.cloud_token as string;
    assert.ok(cloudToken.length > 0, 'the watcher on A got the token minted on B');
    // The token works on either instance.
    for (const svc of [a, b]) {
      assert.equal((await api(svc.baseUrl, cloudToken, 'GET', `/cloud/games/${gameId}`)).status, 200);
    }
  });

  it('wakes a billing watcher on A with a plan change made on B', async () => {
    const url = `/cloud/games/${gameId}/billing`;
    const before = await api(a.baseUrl, operatorToken, 'GET', url);
    const index = indexOf(before.json);
    const watching = api(a.baseUrl, operatorToken, 'GET', `${url}?watch_index=${index}`);
    await untilWaiting(a, operatorToken, 1);
    assert.equal((await api(b.baseUrl, operatorToken, 'PUT', `${url}/plan`, { plan: 'studio' })).status, 204);
    const answer = await watching;
    // Woken by B's change: an answer at the watch timeout would carry the old plan and index.
    assert.equal(answer.status, 200);
    assert.equal(answer.json?.active_plan, 'studio');
    assert.notEqual(indexOf(answer.json), index);
  });

  /** A fresh cloud token of the game, minted on A, and B accepting it (so B has its row cached). */
  async function tokenServedByB(): Promise<{ token: string; tokenId: string }> {
    const minted = await api(a.baseUrl, operatorToken, 'POST', `/cloud/games/${gameId}/tokens/cloud`);
    assert.equal(minted.status, 200);
    const token = minted.json?.token as string;
    for (let i = 0; i < 2; i++) {
      assert.equal((await api(b.baseUrl, token, 'GET', `/cloud/games/${gameId}`)).status, 200);
    }
    return { token, tokenId: minted.json?.token_id as string };
  }

  it(`stops on B a token revoked on A within ${STALE_BOUND_MS} ms of the revocation`, async () => {
    const { token, tokenId } = await tokenServedByB();
    assert.equal((await api(a.baseUrl, operatorToken, 'DELETE', `/cloud/tokens/${tokenId}`)).status, 204);
    const revokedAt = Date.now();
    for (;;) {
      const res = await api(b.baseUrl, token, 'GET', `/cloud/games/${gameId}`);
      if (res.status === 401) {
        assert.equal(res.json?.code, 'TOKEN_REVOKED');
        break;
      }
      assert.equal(res.status, 200);
      const took = Date.now() - revokedAt;
      assert.ok(took < STALE_BOUND_MS, `B still accepted the revoked token ${took} ms after the revocation`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it('refuses a token revoked while B was paused and deaf, on its first request after resuming', async () => {
    const { token, tokenId } = await tokenServedByB();
    const pid = b.child.pid as number;
    const listener = `gcm-listener ${pid}`;
    const listeners = async () =>
      (
        await queryTestDatabase(root, 'select pid from pg_stat_activity where application_name = $1', [
          listener,
        ])
      ).length;
    assert.equal(await listeners(), 1, "B's listening connection is named after its process");
    // B is paused, its listening connection is cut, and the revocation's notification goes unheard: the
    // one thing that can save B from serving its cached row is knowing that it has not heard lately.
    process.kill(pid, 'SIGSTOP');
    try {
      await queryTestDatabase(
        root,
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [listener],
      );
      assert.equal((await api(a.baseUrl, operatorToken, 'DELETE', `/cloud/tokens/${tokenId}`)).status, 204);
      await new Promise((resolve) => setTimeout(resolve, STALE_BOUND_MS + 200));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const first = await api(b.baseUrl, token, 'GET', `/cloud/games/${gameId}`);
    assert.equal(first.status, 401);
    assert.equal(first.json?.code, 'TOKEN_REVOKED');
    // B listens again, and serves from its caches again: a valid token still works.
    const deadline = Date.now() + 10_000;
    while ((await listeners()) !== 1) {
      assert.ok(Date.now() < deadline, 'B did not listen again within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fresh = await tokenServedByB();
    assert.ok(fresh.token.length > 0);
  });

  it('loses nothing B acknowledged when B is killed', async () => {
    const created: string[] = [];
    let firstAck: () => void = () => {};
    const acked = new Promise<void>((resolve) => {
      firstAck = resolve;
    });
    // Writes in flight while B dies: every one B answered 200 to must be there; the others may or may not.
    const writes = Array.from({ length: 40 }, (_, i) =>
      api(b.baseUrl, operatorToken, 'POST', '/cloud/games', {
        name_id: `acked-${i}`,
        display_name: `Acked ${i}`,
      })
        .then((res) => {
          if (res.status === 200) created.push(res.json?.game_id as string);
          firstAck();
        })
        .catch(() => {}),
    );
    // Killed once B has answered one (a fixed delay found none answered yet on a loaded machine), while
    // the rest are still in flight.
    await Promise.race([acked, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await b.stop('SIGKILL');
    await Promise.all(writes);
    assert.ok(created.length > 0, 'B acknowledged some writes before it was killed');
    for (const id of created) {
      const res = await api(a.baseUrl, operatorToken, 'GET', `/cloud/games/${id}`);
      assert.equal(res.status, 200, `game ${id} acknowledged by B is served by A`);
    }
  });
});
