/**
 * The probes and metrics on the real process (`dist/main.js`, its own logger): GCM_METRICS_LISTEN starts the
 * operations listener, and neither port writes the probes or scrapes to the access log while other
 * requests are logged as usual. The rest is test/http/health-metrics.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

const METRICS_TOKEN = 'process-metrics-token-0123456789abcdef';

describe('health and metrics of the service process', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-health-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the operations listener and keeps probes and scrapes out of the access log', async () => {
    const service = await startServiceProcess({
      GCM_DATA_DIR: dataDir,
      GCM_METRICS_LISTEN: '127.0.0.1:0',
      GCM_METRICS_TOKEN: METRICS_TOKEN,
    });
    try {
      const announced = service.lines
        .map((line) => JSON.parse(line) as { msg?: string; host?: string; port?: number })
        .find((entry) => entry.msg?.startsWith('operations listener') === true);
      assert.ok(announced?.port !== undefined && announced.port > 0, 'the listener logs its port');
      const ops = `http://127.0.0.1:${announced.port}`;
      const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };

      for (const url of [`${service.baseUrl}/healthz`, `${service.baseUrl}/readyz`, `${ops}/healthz`]) {
        const res = await fetch(url);
        assert.equal(res.status, 200, url);
        await res.text();
      }
      assert.equal((await fetch(`${service.baseUrl}/metrics`)).status, 401);
      const scraped = await fetch(`${service.baseUrl}/metrics`, { headers: bearer });
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^gcm_http_request_duration_seconds_count\{.*route="\/healthz"/m);
      const fromListener = await fetch(`${ops}/metrics`, { headers: bearer });
      assert.equal(fromListener.status, 200);
      assert.match(await fromListener.text(), /^process_resident_memory_bytes \d/m);
      // A request that is logged, as the marker that the log has caught up.
      const marker = await fetch(`${service.baseUrl}/cloud/games`);
      assert.equal(marker.status, 401);
      await until('the marker request is logged', 5_000, () =>
        service.lines.some((line) => line.includes('"url":"/cloud/games"')),
      );

      const requestLines = service.lines.filter((line) => line.includes('"req":'));
      assert.ok(requestLines.length > 0);
      for (const probe of ['/healthz', '/readyz', '/metrics']) {
        const logged = service.lines.filter((line) => line.includes(`"url":"${probe}"`));
        assert.deepEqual(logged, [], `${probe} is not in the access log`);
      }
      assert.equal(await service.stop('SIGTERM'), 0);
      await assert.rejects(fetch(`${ops}/healthz`), 'the listener closed with the service');
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
