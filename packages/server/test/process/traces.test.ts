import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { onPostgres } from '../helpers/postgres.js';
import { startServiceProcess } from '../helpers/process.js';

const OPERATOR_TOKEN = 'traces-test-operator-token-0123456789abcdef';
const LINK_SECRET = 'device-link-secret-4c1d2e3f';
const PAGE_SECRET = 'page-secret-9a8b7c6d';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

/** A real OTLP/HTTP receiver: it keeps every body POSTed to it, by path. */
async function startReceiver() {
  const bodies: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => server.close() };
}

function attribute(attributes: OtlpAttribute[], key: string): string | undefined {
  const value = attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : String(value.intValue));
}

/**
 * A loader hook, preloaded with --import, that names on stderr every module resolved from an OpenTelemetry
 * package: how the test sees whether the service loaded any.
 */
const OTEL_MODULE_WATCH = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/@opentelemetry|@fastify\\\\/otel/.test(resolved.url)) process.stderr.write('otel module: ' + resolved.url + '\\\\n');
  return resolved;
}\`));
`)}`;

describe('OpenTelemetry traces', { timeout: 120_000 }, () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-traces-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exports a span per request carrying its ray id, linked to the log by the trace id', async () => {
    const receiver = await startReceiver();
    try {
      const service = await startServiceProcess({
        GCM_DATA_DIR: dataDir,
        GCM_OPERATOR_TOKEN: OPERATOR_TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        NODE_OPTIONS: `--import=${OTEL_MODULE_WATCH}`,
      });
      const res = await fetch(`${service.baseUrl}/cloud/games`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      assert.equal(res.status, 200);
      const rayId = String(res.headers.get('x-ray-id'));
      // Credentials in paths and queries must not reach the traces either.
      await fetch(`${service.baseUrl}/cloud/devices/links?device_link_token=${LINK_SECRET}`);
      await fetch(`${service.baseUrl}/devices/link/${PAGE_SECRET}`);
      // SIGTERM: the service flushes what it buffered before it exits.
      assert.equal(await service.stop(), 0);
      assert.match(service.stderr(), /otel module: .*@opentelemetry\/sdk-node/);

      const traces = receiver.bodies.filter((b) => b.path === '/v1/traces');
      assert.ok(
        traces.length > 0,
        `no traces exported; got ${receiver.bodies.map((b) => b.path).join(', ')}`,
      );
      const payload = traces.map((t) => t.body).join('\n');
      assert.ok(!payload.includes(LINK_SECRET), 'the device link token reached a trace');
      assert.ok(!payload.includes(PAGE_SECRET), 'the device link page token reached a trace');
      assert.ok(!payload.includes(OPERATOR_TOKEN), 'the operator token reached a trace');

      const spans = traces.flatMap((t) =>
        (JSON.parse(t.body) as OtlpExport).resourceSpans.flatMap((rs) =>
          rs.scopeSpans.flatMap((ss) =>
            ss.spans.map((span) => ({ span, scope: ss.scope.name, resource: rs.resource.attributes })),
          ),
        ),
      );
      const mine = spans.filter((s) => attribute(s.span.attributes, 'gcm.ray_id') === rayId);
      assert.ok(mine.length > 0, 'no span carries the ray id');
      const server = mine.find((s) => s.span.kind === 2);
      assert.ok(server !== undefined, 'the HTTP server span does not carry the ray id');
      assert.ok(
        mine.some((s) => s.scope === '@fastify/otel' && s.span.name === 'request'),
        "Fastify's request span does not carry the ray id",
      );
      assert.equal(attribute(server.resource, 'service.name'), 'gcm-server');
      const traceId = server.span.traceId;
      const inTrace = spans.filter((s) => s.span.traceId === traceId);
      // Fastify's own span for the route, inside the same trace.
      assert.ok(
        inTrace.some(
          (s) => s.scope === '@fastify/otel' && attribute(s.span.attributes, 'http.route') === '/cloud/games',
        ),
        `no Fastify span in the trace: ${inTrace.map((s) => `${s.scope}:${s.span.name}`).join(', ')}`,
      );
      if (onPostgres) {
        assert.ok(
          inTrace.some(
            (s) => s.scope === '@opentelemetry/instrumentation-pg' && s.span.name.startsWith('pg.query'),
          ),
          `no pg span in the trace: ${inTrace.map((s) => `${s.scope}:${s.span.name}`).join(', ')}`,
        );
      }

      const logged = service.lines
        .map((line) => JSON.parse(line) as { ray_id?: string; trace_id?: string; msg?: string })
        .filter((line) => line.ray_id === rayId && line.msg === 'request completed');
      assert.equal(logged.length, 1);
      assert.equal(logged[0]?.trace_id, traceId);
    } finally {
      receiver.close();
    }
  });

  it('loads no OpenTelemetry module and exports nothing without the OTEL variables', async () => {
    const receiver = await startReceiver();
    try {
      const service = await startServiceProcess({
        GCM_DATA_DIR: dataDir,
        GCM_OPERATOR_TOKEN: OPERATOR_TOKEN,
        // A protocol alone (or a disabled SDK) asks for no exporter.
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        NODE_OPTIONS: `--import=${OTEL_MODULE_WATCH}`,
      });
      const res = await fetch(`${service.baseUrl}/cloud/games`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      assert.equal(res.status, 200);
      assert.equal(await service.stop(), 0);
      assert.doesNotMatch(service.stderr(), /otel module/);
      const line = service.lines.find((l) => l.includes('request completed'));
      assert.ok(line !== undefined && !line.includes('trace_id'));
      assert.deepEqual(receiver.bodies, []);
    } finally {
      receiver.close();
    }
  });
});
