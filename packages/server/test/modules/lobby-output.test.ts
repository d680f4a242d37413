import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { LINE_CUT_MARK } from '@gcm/contract';
import { dockerSkipReason } from '../helpers/dockerd.js';
import {
  deploy,
  isLive,
  type LobbyRow,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('lobby-output.test.ts');
/** This file's host ports: other runtime test files use other ranges, so files can run side by side. */
const PORT_RANGE = '28200-28299';
const WAIT_MS = 90_000;

interface Page {
  lines: string[];
  timestamps: string[];
  watch: { index: string };
  complete: boolean;
  cursor?: string;
}

export async function readPage(
  svc: TestService,
  gameId: string,
  lobbyId: string,
  query: Record<string, string>,
): Promise<Page> {
  const qs = new URLSearchParams({ stream: 'std_out', ...query });
  const res = await svc.call('GET', `/cloud/games/${gameId}/matchmaker/lobbies/${lobbyId}/logs?${qs}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Page>();
}

/** Every line of the stream, read newest page first with cursors, as bytes, oldest first. */
async function readAll(svc: TestService, gameId: string, lobbyId: string, stream = 'std_out') {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await readPage(svc, gameId, lobbyId, {
      stream,
      limit: '1000',
      ...(cursor === undefined ? {} : { cursor }),
    });
    pages.unshift(page);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return pages.flatMap((p) => p.lines.map((l) => Buffer.from(l, 'base64')));
}

/** Sends one line to the lobby's game port and waits for its answer line. */
function tell(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.once('error', reject);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${line}\n`));
    socket.on('data', (d: string) => {
      got += d;
      if (got.includes('\n')) {
        socket.destroy();
        resolve(got.trim());
      }
    });
    socket.once('error', reject);
  });
}

function portOf(row: LobbyRow): number {
  const ports = JSON.parse(row.ports ?? '[]') as { name: string; port: number }[];
  return ports[0]?.port ?? 0;
}

describe('lobby output', { skip }, () => {
  const engine = useRuntimeEngine();

  async function started(env: Record<string, string> = {}) {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      env,
    });
    return svc;
  }

  async function lobbyOf(svc: TestService, namespaceId: string, ready = true): Promise<LobbyRow> {
    let found: LobbyRow | undefined;
    await until('a lobby', WAIT_MS, async () => {
      found = (await lobbiesOf(svc, namespaceId)).find(
        (r) => r.runtime_handle !== null && (!ready || r.run_state === 'ready'),
      );
      return found !== undefined;
    });
    return found as LobbyRow;
  }

  it('keeps every line in order, long lines cut and marked, binary bytes as printed, read a page at a time', async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'output-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      const n = 5_000;
      await deploy(svc, ids, {
        default: {
          buildId,
          min: 1,
          max: 1,
          regions: ['eu'],
          env: { TEST_PRINT_LINES: String(n), TEST_PRINT_LONG_EVERY: '1000', TEST_EXIT_AFTER: '0' },
        },
      });
      const lobby = await lobbyOf(svc, ids.namespaceId, false);
      await until('its output complete', WAIT_MS, async () => {
        const page = await readPage(svc, ids.gameId, lobby.lobby_id, { limit: '1' });
        return page.complete;
      });
      const lines = await readAll(svc, ids.gameId, lobby.lobby_id);
      const text = lines.map((l) => l.toString('latin1'));
      const numbered = text.filter((l) => l.startsWith('line '));
      const missing = Array.from({ length: n }, (_, i) => i + 1).filter(
        (i) => !numbered.some((l) => l === `line ${i}` || l.startsWith(`line ${i} `)),
      );
      assert.deepEqual(
        missing,
        [],
        `${text.length} lines; around the first missing: ${JSON.stringify(text.slice(Math.max(0, text.indexOf(`line ${(missing[0] ?? 2) - 1}`)), text.indexOf(`line ${(missing[0] ?? 2) - 1}`) + 4).map((l) => l.slice(0, 60)))}`,
      );
      assert.equal(numbered.length, n);
      for (let i = 1; i <= n; i++) {
        const line = numbered[i - 1] as string;
        if (i % 1000 === 0) {
          assert.ok(line.startsWith(`line ${i} xxxx`), line.slice(0, 40));
          assert.ok(line.endsWith(LINE_CUT_MARK), `line ${i} is marked as cut`);
          assert.equal(lines[text.indexOf(line)]?.length, 16 * 1024);
        } else assert.equal(line, `line ${i}`);
      }
      const binary = lines.find((l) => l.subarray(0, 7).toString() === 'binary ');
      assert.deepEqual(
        binary,
        Buffer.concat([
          Buffer.from('binary '),
          Buffer.from([0xff, 0xfe, 0x01, 0x1b]),
          Buffer.from('[31m\0 end'),
        ]),
      );
      assert.ok(text.indexOf(`server: printed ${n} lines`) > text.indexOf(`line ${n}`));
      assert.ok(
        text.some((l) => l.startsWith('server: exiting with 0')),
        'the last line is kept',
      );
      // Stderr is its own stream.
      const stderr = (await readAll(svc, ids.gameId, lobby.lobby_id, 'std_err')).map(String);
      assert.deepEqual(stderr, ['server: stderr works']);
      // Timestamps are RFC 3339 and never go backwards.
      const page = await readPage(svc, ids.gameId, lobby.lobby_id, { limit: '1000' });
      const times = page.timestamps.map(Date.parse);
      assert.ok(times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= (times[i - 1] as number))));
      assert.equal(page.lines.length, 1000);
      assert.ok(page.cursor !== undefined);
    } finally {
      await svc.close();
    }
  });

  it('follows with the watch index: each new line once, in order, soon after it is printed', async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'follow-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1, regions: ['eu'] } });
      const lobby = await lobbyOf(svc, ids.namespaceId);
      let first = await readPage(svc, ids.gameId, lobby.lobby_id, {});
      await until('its start-up lines read', WAIT_MS, async () => {
        first = await readPage(svc, ids.gameId, lobby.lobby_id, {});
        return first.lines.some((l) => Buffer.from(l, 'base64').toString().startsWith('server: listening'));
      });
      assert.equal(first.complete, false);
      let index = first.watch.index;
      const seen: string[] = [];
      const delays: number[] = [];
      for (let i = 0; i < 20; i++) {
        const printed = Date.now();
        // The follower waits first: the line arrives while it waits.
        const following = readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: index });
        assert.equal(await tell(portOf(lobby), `print follow ${i}`), 'printed');
        let page = await following;
        while (page.lines.length === 0) {
          page = await readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: index });
        }
        delays.push(Date.now() - printed);
        seen.push(...page.lines.map((l) => Buffer.from(l, 'base64').toString()));
        index = page.watch.index;
      }
      assert.deepEqual(
        seen,
        Array.from({ length: 20 }, (_, i) => `follow ${i}`),
      );
      delays.sort((a, b) => a - b);
      assert.ok((delays[10] as number) < 1_000, `median delay ${delays[10]} ms`);
      // An index from before those lines reads them again, in order, none twice.
      const again = await readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: first.watch.index });
      assert.deepEqual(
        again.lines.map((l) => Buffer.from(l, 'base64').toString()),
        seen,
      );
      assert.ok((await lobbiesOf(svc, ids.namespaceId)).some(isLive));
    } finally {
      await svc.close();
    }
  });
});
