import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultMaxConnections, defaultMaxConnectionsPerAddress, loadConfig } from '../../src/config.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { runServiceToExit, type ServiceProcess, startServiceProcess } from '../helpers/process.js';
import { HANG_MS, until } from '../helpers/until.js';

const CAP = 50;
const HEADERS_TIMEOUT_MS = 1_000;
const BODY_TIMEOUT_MS = 1_000;
const KEEP_ALIVE_TIMEOUT_MS = 500;
const WATCH_TIMEOUT_MS = 2_000;
const IDLE_TIMEOUT_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw client socket and what came back on it, with when the server closed it. */
interface RawClient {
  socket: net.Socket;
  received: () => string;
  /** Resolves with the ms from opening until the connection closed. */
  closed: Promise<number>;
}

/** `localAddress`: the client's own loopback address (127.0.0.2, 127.0.0.3 … are all loopback on Linux). */
function connect(port: number, localAddress?: string): Promise<RawClient> {
  const opened = Date.now();
  const socket = net.connect({
    port,
    host: '127.0.0.1',
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  // Resets are how a server at its cap refuses; they are expected here.
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

interface RawAnswer {
  status: number;
  json: Record<string, unknown> | undefined;
}

function parseAnswer(text: string): RawAnswer {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const body = text.slice(headEnd + 4);
  return {
    status: Number(text.slice(9, 12)),
    json: body === '' ? undefined : (JSON.parse(body) as Record<string, unknown>),
  };
}

/** One request on a connection of its own (`connection: close`), so no pooled connection counts against the cap. */
async function request(
  port: number,
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<RawAnswer> {
  const client = await connect(port);
  const body = options.body === undefined ? '' : JSON.stringify(options.body);
  client.socket.write(
    `${method} ${url} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n` +
      (options.token === undefined ? '' : `authorization: Bearer ${options.token}\r\n`) +
      (body === ''
        ? ''
        : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`) +
      `\r\n${body}`,
  );
  await client.closed;
  return parseAnswer(client.received());
}

/** Whether a new client is answered at all: a connection refused at the cap is closed with no answer. */
async function answered(port: number, localAddress?: string): Promise<boolean> {
  try {
    const client = await connect(port, localAddress);
    client.socket.write('GET /openapi.json HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
    await client.closed;
    return client.received().startsWith('HTTP/1.1 200');
  } catch {
    return false;
  }
}

// Without the limits the reaped sockets would stay open for good: fail rather than hang.
describe('connection cap and timeouts (the real process)', { timeout: 90_000 }, () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'gcm-conn-')), 'data');
  let proc: ServiceProcess;
  let port: number;
  let token: string;

  before(async () => {
    proc = await startServiceProcess({
      GCM_DATA_DIR: dataDir,
      GCM_MAX_CONNECTIONS: String(CAP),
      // One address fills the whole cap here; the per-address share has its own tests below.
      GCM_MAX_CONNECTIONS_PER_ADDRESS: '0',
      GCM_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      GCM_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
      GCM_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      GCM_WATCH_TIMEOUT_MS: String(WATCH_TIMEOUT_MS),
      GCM_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
    });
    port = Number(new URL(proc.baseUrl).port);
    token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
  });
  after(async () => {
    await proc?.stop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
    if (onPostgres) await dropTestDatabase(dataDir);
  });

  it('sockets holding the whole cap (idle and slowloris) are reaped by the headers timeout; then clients get in', async () => {
    const idle = await Promise.all(Array.from({ length: CAP / 2 }, () => connect(port)));
    const slow = await Promise.all(Array.from({ length: CAP / 2 }, () => connect(port)));
    for (const client of slow) client.socket.write('GET /cloud/games HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    // A header line every 200 ms: well inside any idle timeout, never a whole request.
    const drip = setInterval(() => {
      for (const client of slow) if (!client.socket.destroyed) client.socket.write('x-slow: 1\r\n');
    }, 200);
    try {
      await sleep(200);
      assert.equal(await answered(port), false, 'at the cap a new connection is closed unanswered');
      const lifetimes = await Promise.all([...idle, ...slow].map((c) => c.closed));
      const longest = Math.max(...lifetimes);
      assert.ok(
        longest < HEADERS_TIMEOUT_MS + 3_000,
        `every socket closed within the headers timeout and a check (longest ${longest} ms)`,
      );
      for (const client of [...idle, ...slow]) assert.match(client.received(), /^HTTP\/1\.1 408 /);
      assert.equal(await answered(port), true, 'once they are reaped a normal client is answered');
    } finally {
      clearInterval(drip);
      for (const client of [...idle, ...slow]) client.socket.destroy();
    }
    assert.ok(
      proc.lines.some((l) => l.includes('connection cap reached') && l.includes(`"max_connections":${CAP}`)),
      'the refused connection is logged',
    );
  });

  it('a keep-alive connection that sends no next request is closed after the keep-alive timeout', async () => {
    const client = await connect(port);
    client.socket.write('GET /openapi.json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    const lifetime = await client.closed;
    assert.match(client.received(), /^HTTP\/1\.1 200 /);
    assert.ok(
      lifetime < KEEP_ALIVE_TIMEOUT_MS + 3_000,
      `closed ${lifetime} ms after opening, not held until the client lets go`,
    );
  });

  it('a body that trickles in is answered 408 API_REQUEST_TIMEOUT after the body timeout', async () => {
    const client = await connect(port);
    client.socket.write(
      `POST /cloud/games HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
        'content-type: application/json\r\ncontent-length: 200\r\n\r\n{"name_id":',
    );
    // A byte every 200 ms keeps the socket busy enough for any idle timeout, never finishing the body.
    const drip = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(' ');
    }, 200);
    try {
      const lifetime = await client.closed;
      const answer = parseAnswer(client.received());
      assert.equal(answer.status, 408);
      assert.equal(answer.json?.code, 'API_REQUEST_TIMEOUT');
      assert.match(String(answer.json?.message), /within 1000 ms/);
      assert.equal(typeof answer.json?.ray_id, 'string');
      assert.ok(lifetime < BODY_TIMEOUT_MS + 3_000, `closed after ${lifetime} ms`);
    } finally {
      clearInterval(drip);
    }
  });

  it('a watch request waits its whole watch timeout, longer than the headers, body and keep-alive timeouts', async () => {
    const game = await request(port, 'POST', '/cloud/games', {
      token,
      body: { name_id: 'conn-watch', display_name: 'Conn Watch' },
    });
    const billingPath = `/cloud/games/${game.json?.game_id as string}/billing`;
    const billing = await request(port, 'GET', billingPath, { token });
    const index = (billing.json as { watch: { index: string } }).watch.index;
    const started = Date.now();
    const watched = await request(port, 'GET', `${billingPath}?watch_index=${index}`, { token });
    const waited = Date.now() - started;
    assert.equal(watched.status, 200);
    assert.ok(waited >= WATCH_TIMEOUT_MS - 50, `answered after ${waited} ms, at the watch timeout`);
  });

  it('a signed upload PUT may take longer than the body timeout while it makes progress; a stalled one is closed', async (t) => {
    if (onPostgres) {
      // The embedded store's PUT route is the same on both stores; once is enough.
      t.skip('covered on SQLite');
      return;
    }
    const ids = await setUpNamespace(port, token);
    const size = 16 * 1024;
    const prepare = async (name: string) => {
      const res = await request(
        port,
        'POST',
        `/games/${ids.gameId}/environments/${ids.namespaceId}/builds/prepare`,
        { token, body: { name, image_file: { path: `${name}.tar`, content_length: size } } },
      );
      assert.equal(res.status, 200, JSON.stringify(res.json));
      const url = new URL(
        (res.json as { presigned_requests: { url: string }[] }).presigned_requests[0]?.url ?? '',
      );
      return `${url.pathname}${url.search}`;
    };

    const steady = await connect(port);
    steady.socket.write(
      `PUT ${await prepare('steady')} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: ${size}\r\n\r\n`,
    );
    const started = Date.now();
    // 16 chunks 150 ms apart: 2.4 s, over twice the body timeout.
    for (let i = 0; i < 16; i++) {
      steady.socket.write(Buffer.alloc(size / 16, i));
      await sleep(150);
    }
    await steady.closed;
    assert.ok(Date.now() - started > 2 * BODY_TIMEOUT_MS);
    assert.equal(parseAnswer(steady.received()).status, 200, steady.received());

    const stalled = await connect(port);
    stalled.socket.write(
      `PUT ${await prepare('stalled')} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${size}\r\n\r\n`,
    );
    stalled.socket.write(Buffer.alloc(size / 2));
    const lifetime = await stalled.closed;
    assert.ok(
      lifetime >= IDLE_TIMEOUT_MS - 100 && lifetime < IDLE_TIMEOUT_MS + 3_000,
      `a stalled upload is closed after the idle timeout (${lifetime} ms)`,
    );
  });
});

async function setUpNamespace(port: number, token: string) {
  const game = await request(port, 'POST', '/cloud/games', {
    token,
    body: { name_id: 'conn-upload', display_name: 'Conn Upload' },
  });
  const gameId = game.json?.game_id as string;
  const version = await request(port, 'POST', `/cloud/games/${gameId}/versions`, {
    token,
    body: { display_name: 'v1', config: {} },
  });
  const ns = await request(port, 'POST', `/cloud/games/${gameId}/namespaces`, {
    token,
    body: { name_id: 'prod', display_name: 'Production', version_id: version.json?.version_id },
  });
  assert.equal(ns.status, 200, JSON.stringify(ns.json));
  return { gameId, namespaceId: ns.json?.namespace_id as string };
}

/**
 * `count` connections from `localAddress`, each of which sends a keep-alive request and reads its answer
 * (so it is known to be accepted and stays open for the keep-alive timeout), or was closed unanswered.
 */
async function holdFrom(port: number, localAddress: string, count: number) {
  const clients = await Promise.all(Array.from({ length: count }, () => connect(port, localAddress)));
  const accepted: RawClient[] = [];
  await Promise.all(
    clients.map(async (client) => {
      client.socket.write('GET /openapi.json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      const answer = new Promise<boolean>((resolve) => {
        const check = () => {
          if (client.received().includes('\r\n\r\n')) resolve(true);
        };
        client.socket.on('data', check);
        void client.closed.then(() => resolve(client.received().startsWith('HTTP/1.1 200')));
      });
      if (await answer) accepted.push(client);
    }),
  );
  return { clients, accepted };
}

describe('per-address share of the connection cap (the real process)', { timeout: 60_000 }, () => {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'gcm-conn-addr-')), 'data');
  let proc: ServiceProcess;
  let port: number;
  const held: RawClient[] = [];

  before(async () => {
    proc = await startServiceProcess({
      GCM_DATA_DIR: dataDir,
      // The default share, a tenth: 5 connections per address.
      GCM_MAX_CONNECTIONS: String(CAP),
      GCM_KEEP_ALIVE_TIMEOUT_MS: '30000',
      // The proxy's address is exempt: the clients behind it share it.
      GCM_TRUST_PROXY: '127.0.0.9',
    });
    port = Number(new URL(proc.baseUrl).port);
  });
  after(async () => {
    for (const client of held) client.socket.destroy();
    await proc?.stop();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
    if (onPostgres) await dropTestDatabase(dataDir);
  });

  it('five addresses trying to take the whole cap get their share each; a sixth address is still answered', async () => {
    const share = defaultMaxConnectionsPerAddress(CAP);
    const attackers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
    // CAP / 5 each: together the whole cap, which used to lock every other client out.
    for (const address of attackers) {
      const { clients, accepted } = await holdFrom(port, address, CAP / attackers.length);
      held.push(...clients);
      assert.equal(accepted.length, share, `${address} holds its share of ${share}, no more`);
    }
    assert.equal(
      await answered(port, '127.0.0.2'),
      false,
      'one more from an address at its share is refused',
    );
    assert.equal(await answered(port, '127.0.0.7'), true, 'another address still connects and is answered');
    assert.equal(await answered(port, '127.0.0.1'), true);

    // A connection let go gives its address room again.
    const first = held.find((c) => !c.socket.destroyed && c.socket.localAddress === '127.0.0.2');
    assert.ok(first);
    first.socket.destroy();
    await first.closed;
    await until('a freed slot admits the address again', HANG_MS, () => answered(port, '127.0.0.2'));
    assert.ok(
      proc.lines.some(
        (l) => l.includes('per-address connection cap reached') && l.includes('"address":"127.0.0.'),
      ),
      'the refusal is logged with the address',
    );
  });

  it('a trusted proxy (GCM_TRUST_PROXY) is not held to the share', async () => {
    const { clients, accepted } = await holdFrom(port, '127.0.0.9', 12);
    held.push(...clients);
    assert.equal(accepted.length, 12);
  });
});

describe('connection configuration', () => {
  it('the default cap is 16,384, or 80% of the open-file limit when that is lower', () => {
    assert.equal(defaultMaxConnections(20_000), 16_000);
    assert.equal(defaultMaxConnections(1_024), 819);
    assert.equal(defaultMaxConnections(1_048_576), 16_384);
    assert.equal(defaultMaxConnections(undefined), 16_384);
    // 10,000 watchers (npm run bench -- --only billing-watch) fit under this machine's default.
    assert.ok(loadConfig({}).connections.maxConnections >= 10_000);
  });

  it('the per-address share defaults to a tenth of the cap (at least 1); 0 turns it off', () => {
    assert.equal(loadConfig({ GCM_MAX_CONNECTIONS: '2000' }).connections.maxConnectionsPerAddress, 200);
    assert.equal(loadConfig({ GCM_MAX_CONNECTIONS: '5' }).connections.maxConnectionsPerAddress, 1);
    const off = loadConfig({ GCM_MAX_CONNECTIONS_PER_ADDRESS: '0' });
    assert.equal(off.connections.maxConnectionsPerAddress, 0);
    assert.throws(
      () => loadConfig({ GCM_MAX_CONNECTIONS_PER_ADDRESS: 'many' }),
      /GCM_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 0/,
    );
  });

  it('the idle timeout must outlast the watch timeout, and bad values exit 2 naming the variable', async () => {
    const { code, stderr } = await runServiceToExit({
      GCM_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'gcm-conn-cfg-')),
      GCM_WATCH_TIMEOUT_MS: '30000',
      GCM_IDLE_TIMEOUT_MS: '30000',
      GCM_MAX_CONNECTIONS: '0',
      GCM_KEEP_ALIVE_TIMEOUT_MS: 'soon',
    });
    assert.equal(code, 2, stderr);
    assert.match(stderr, /GCM_IDLE_TIMEOUT_MS \(30000\) must be longer than GCM_WATCH_TIMEOUT_MS/);
    assert.match(stderr, /GCM_MAX_CONNECTIONS must be a whole number from 1/);
    assert.match(stderr, /GCM_KEEP_ALIVE_TIMEOUT_MS must be a whole number/);
  });

  it('the defaults: 20 s for headers, 30 s for a body, 5 s keep-alive, idle 20 s past the watch timeout', () => {
    const { connections } = loadConfig({ GCM_WATCH_TIMEOUT_MS: '50000' });
    assert.equal(connections.headersTimeoutMs, 20_000);
    assert.equal(connections.bodyTimeoutMs, 30_000);
    assert.equal(connections.keepAliveTimeoutMs, 5_000);
    assert.equal(connections.idleTimeoutMs, 70_000);
  });
});
