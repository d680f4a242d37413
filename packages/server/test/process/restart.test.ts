import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { onPostgres } from '../helpers/postgres.js';
import { api, runServiceToExit, startServiceProcess } from '../helpers/process.js';

describe('the service as a process', () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'gcm-proc-')), 'nested', 'data');
  after(() => rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true }));

  it('creates its data dir and operator token, shuts down on SIGTERM, and keeps every write', async () => {
    const first = await startServiceProcess({ GCM_DATA_DIR: dataDir });
    const tokenFile = path.join(dataDir, 'operator-token');
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    assert.match(token, /^gcm_op_/);
    assert.equal(first.lines.filter((l) => l.includes(token)).length, 1, 'token printed exactly once');

    const game = await api(first.baseUrl, token, 'POST', '/cloud/games', {
      name_id: 'persisted',
      display_name: 'Persisted',
    });
    assert.equal(game.status, 200);
    const gameId = game.json?.game_id as string;
    const version = await api(first.baseUrl, token, 'POST', `/cloud/games/${gameId}/versions`, {
      display_name: 'v1',
      config: { kv: { kept: [1, 2, 3] } },
    });
    const versionId = version.json?.version_id as string;
    const ns = await api(first.baseUrl, token, 'POST', `/cloud/games/${gameId}/namespaces`, {
      name_id: 'prod',
      display_name: 'Production',
      version_id: versionId,
    });
    const namespaceId = ns.json?.namespace_id as string;
    const mm = await api(
      first.baseUrl,
      token,
      'POST',
      `/cloud/games/${gameId}/namespaces/${namespaceId}/mm-config`,
      {
        lobby_count_max: 77,
        max_players: 5,
      },
    );
    assert.equal(mm.status, 204);
    const minted = await api(first.baseUrl, token, 'POST', `/cloud/games/${gameId}/tokens/cloud`);
    const cloudToken = minted.json?.token as string;

    assert.equal(await first.stop('SIGTERM'), 0, 'graceful shutdown exits 0');
    assert.ok(first.lines.some((l) => l.includes('shutting down')));

    const second = await startServiceProcess({ GCM_DATA_DIR: dataDir });
    try {
      assert.ok(!second.lines.some((l) => l.includes('operator_token')), 'no new operator token on restart');
      assert.equal(readFileSync(tokenFile, 'utf8').trim(), token);
      const nsAfter = await api(
        second.baseUrl,
        cloudToken,
        'GET',
        `/cloud/games/${gameId}/namespaces/${namespaceId}`,
      );
      assert.equal(nsAfter.status, 200, 'cloud token minted before the restart still works');
      const namespace = nsAfter.json?.namespace as { config: { matchmaker: Record<string, number> } };
      assert.equal(namespace.config.matchmaker.lobby_count_max, 77);
      assert.equal(namespace.config.matchmaker.max_players_per_client_vpn, 5);
      const v = await api(second.baseUrl, token, 'GET', `/cloud/games/${gameId}/versions/${versionId}`);
      const versionBody = v.json as { version: { config: unknown } };
      assert.deepEqual(versionBody.version.config, { kv: { kept: [1, 2, 3] } });

      // A second service on the same SQLite file would miss in-process change notifications: it must
      // refuse. (On PostgreSQL a second instance is welcome: test/process/two-instances.test.ts.)
      if (!onPostgres) {
        const rival = await runServiceToExit({ GCM_DATA_DIR: dataDir });
        assert.equal(rival.code, 3, rival.stderr);
        assert.match(rival.stderr, /in use by another process/);
      }
      const stillServing = await api(second.baseUrl, token, 'GET', `/cloud/games/${gameId}`);
      assert.equal(stillServing.status, 200, 'the running service is unaffected by the refused rival');
    } finally {
      assert.equal(await second.stop('SIGINT'), 0);
    }
  });

  it('refuses to start on bad configuration and names every bad variable at once', async () => {
    const { code, stderr } = await runServiceToExit({
      GCM_DATA_DIR: dataDir,
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      GCM_PUBLIC_URL: 'ftp://x',
    });
    assert.equal(code, 2);
    assert.match(stderr, /PORT/);
    assert.match(stderr, /LOG_LEVEL/);
    assert.match(stderr, /GCM_PUBLIC_URL/);
  });
});
