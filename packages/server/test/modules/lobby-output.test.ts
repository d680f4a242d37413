import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { LINE_CUT_MARK } from '@gcm/contract';
import { deleteExpiredOutput } from '../../src/modules/lobby-output/lobby-output.service.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { freePort } from '../helpers/listening.js';
import { loadClient } from '../helpers/load-clients.js';
import {
  deploy,
  isLive,
  type LobbyRow,
  lobbiesOf,
  lobbyTokenOf,
  runtimeGame,
  startRuntimeService,
  tellLobby,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('lobby-output.test.ts');
/**
 * This file's host ports (other runtime test files use other ranges, so files can run side by side), 20 a
 * test: a closed service leaves its lobbies running, and a later test's lobby must not find its port taken.
 */
const portRange = (test: number) => `${28200 + test * 20}-${28219 + test * 20}`;
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
/**
 * Nanoseconds this process's main thread (the event loop's) has waited runnable for a CPU (Linux's schedstat;
 * NaN elsewhere): what tells a loop delayed by its own work from one delayed by a machine with no CPU free.
 */
function cpuWaitNs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return Number.NaN;
  }
}

function portOf(row: LobbyRow): number {
  const ports = JSON.parse(row.ports ?? '[]') as { name: string; port: number }[];
  return ports[0]?.port ?? 0;
}

describe('lobby output', { skip }, () => {
  const engine = useRuntimeEngine();

  async function started(test: number, env: Record<string, string> = {}) {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: portRange(test),
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

  /**
   * A game with one lobby of the test server in eu, printing as `env` says; answers the game's ids and the
   * lobby once it has a container (and, with `ready`, once it called ready).
   */
  async function oneLobby(svc: TestService, name: string, env: Record<string, string> = {}, ready = true) {
    const ids = await runtimeGame(svc, name);
    const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
    await deploy(svc, ids, { default: { buildId, min: 1, max: 1, regions: ['eu'], env } });
    return { ids, lobby: await lobbyOf(svc, ids.namespaceId, ready) };
  }

  /** Waits until the lobby's stdout is complete: it exited and all it printed is stored. */
  async function untilComplete(svc: TestService, gameId: string, lobbyId: string) {
    await until('its output complete', WAIT_MS, async () => {
      return (await readPage(svc, gameId, lobbyId, { limit: '1' })).complete;
    });
  }

  // 200,000 lines through the capture, its per-lobby bucket and the store: minutes on a busy PostgreSQL run.
  it('keeps every line in order, long lines cut and marked, binary bytes as printed, read a page at a time', {
    timeout: 300_000,
  }, async () => {
    const svc = await started(1);
    try {
      const n = 200_000;
      const { ids, lobby } = await oneLobby(
        svc,
        'output-game',
        { TEST_PRINT_LINES: String(n), TEST_PRINT_LONG_EVERY: '50000', TEST_EXIT_AFTER: '0' },
        false,
      );
      await untilComplete(svc, ids.gameId, lobby.lobby_id);
      const lines = await readAll(svc, ids.gameId, lobby.lobby_id);
      const text = lines.map((l) => l.toString('latin1'));
      const numbered = text.filter((l) => l.startsWith('line '));
      assert.equal(numbered.length, n);
      for (let i = 1; i <= n; i++) {
        const line = numbered[i - 1] as string;
        if (i % 50_000 === 0) {
          assert.ok(line.startsWith(`line ${i} xxxx`), line.slice(0, 40));
          assert.ok(line.endsWith(LINE_CUT_MARK), `line ${i} is marked as cut`);
          assert.equal(Buffer.byteLength(line, 'latin1'), 16 * 1024);
        } else if (line !== `line ${i}`) assert.fail(`line ${i} is "${line.slice(0, 40)}"`);
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
      // The export is the whole stream as a file, one line each.
      const exported = await svc.call(
        'POST',
        `/cloud/games/${ids.gameId}/matchmaker/lobbies/${lobby.lobby_id}/logs/export`,
        { body: { stream: 'std_out' } },
      );
      assert.equal(exported.statusCode, 200, exported.body);
      const file = await fetch(exported.json<{ url: string }>().url);
      assert.equal(file.status, 200);
      assert.match(file.headers.get('content-disposition') ?? '', /stdout\.txt/);
      assert.deepEqual(
        Buffer.from(await file.arrayBuffer()),
        Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])),
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
    const svc = await started(2);
    try {
      const { ids, lobby } = await oneLobby(svc, 'follow-game');
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
        assert.equal(await tellLobby(portOf(lobby), `print follow ${i}`), 'printed');
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

  it('shows the last lines and the exit code of a server that crashed', async () => {
    const svc = await started(3);
    try {
      const { ids, lobby } = await oneLobby(
        svc,
        'crash-game',
        { TEST_NO_READY: '1', TEST_EXIT_AFTER: '0', TEST_EXIT_CODE: '3' },
        false,
      );
      let page = await readPage(svc, ids.gameId, lobby.lobby_id, {});
      await until('its output complete and its stop recorded', WAIT_MS, async () => {
        page = await readPage(svc, ids.gameId, lobby.lobby_id, {});
        const row = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === lobby.lobby_id);
        return page.complete && row?.run_state === 'stopped';
      });
      const last = Buffer.from(page.lines.at(-1) ?? '', 'base64').toString();
      assert.equal(last, 'server: exiting with 3 after 0 s');
      const row = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === lobby.lobby_id);
      assert.equal(row?.exit_code, 3);
      // A complete stream answers a watch at once, with nothing new.
      const watched = await readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: page.watch.index });
      assert.deepEqual([watched.lines, watched.complete], [[], true]);

      // Another game that learned this lobby's id (any of its players knows it) cannot report a lobby under
      // it, and had it one (two reports of a fresh id at one instant), its routes read its own output only.
      const other = await runtimeGame(svc, 'crash-game-other');
      const minted = await svc.call(
        'POST',
        `/cloud/games/${other.gameId}/namespaces/${other.namespaceId}/tokens/reporter`,
      );
      assert.equal(minted.statusCode, 200, minted.body);
      const reported = await svc.call(
        'POST',
        `/cloud/games/${other.gameId}/namespaces/${other.namespaceId}/logs/lobbies`,
        {
          token: minted.json<{ token: string }>().token,
          body: { lobby_id: lobby.lobby_id, lobby_group_name_id: 'default', region_id: 'eu' },
        },
      );
      assert.equal(reported.statusCode, 409, reported.body);
      assert.equal(reported.json<{ code: string }>().code, 'LOBBY_ALREADY_EXISTS');
      await svc.deps.db
        .insertInto('lobbies')
        .values({
          lobby_id: lobby.lobby_id,
          namespace_id: other.namespaceId,
          lobby_group_name_id: 'default',
          region_id: 'eu',
          create_ts: Date.now(),
        })
        .execute();
      for (const stream of ['std_out', 'std_err']) {
        const theirs = await readPage(svc, other.gameId, lobby.lobby_id, { stream });
        assert.deepEqual([theirs.lines, theirs.complete, theirs.watch.index], [[], true, '0'], stream);
        const exported = await svc.call(
          'POST',
          `/cloud/games/${other.gameId}/matchmaker/lobbies/${lobby.lobby_id}/logs/export`,
          { body: { stream } },
        );
        assert.equal(exported.statusCode, 200, exported.body);
        const file = await fetch(exported.json<{ url: string }>().url);
        assert.equal(Buffer.from(await file.arrayBuffer()).length, 0, `${stream}: an empty file`);
      }
      // The lobby's own game still reads all of it.
      const own = await readPage(svc, ids.gameId, lobby.lobby_id, {});
      assert.deepEqual(own.lines, page.lines);
    } finally {
      await svc.close();
    }
  });

  it('keeps the newest GCM_LOBBY_LOG_MAX_BYTES of a stream, says what was dropped, and retention deletes it all', async () => {
    const svc = await started(4, { GCM_LOBBY_LOG_MAX_BYTES: String(1024 * 1024) });
    try {
      const n = 3_000;
      // 150 lines of 16 KiB: 2.4 MiB in all.
      const { ids, lobby } = await oneLobby(
        svc,
        'cap-game',
        { TEST_PRINT_LINES: String(n), TEST_PRINT_LONG_EVERY: '20', TEST_EXIT_AFTER: '0' },
        false,
      );
      await untilComplete(svc, ids.gameId, lobby.lobby_id);
      const lines = await readAll(svc, ids.gameId, lobby.lobby_id);
      const text = lines.map((l) => l.toString('latin1'));
      assert.match(text[0] ?? '', /^\[gcm: \d+ earlier lines \(\d+\.\d MiB\) were dropped/);
      const kept = lines.slice(1).reduce((sum, l) => sum + l.length, 0);
      assert.ok(kept <= 1024 * 1024, `${kept} bytes kept`);
      // A chunk holds about 256 KiB: the cap drops whole chunks, no more than it must.
      assert.ok(kept > 700 * 1024, `${kept} bytes kept: the cap drops no more than it must`);
      // The newest are kept, without a gap.
      const numbers = text.filter((l) => l.startsWith('line ')).map((l) => Number(l.split(' ')[1]));
      assert.equal(numbers.at(-1), n);
      assert.deepEqual(
        numbers,
        Array.from({ length: numbers.length }, (_, i) => n - numbers.length + 1 + i),
      );
      assert.ok(text.includes(`server: printed ${n} lines`));

      // Retention: past GCM_LOBBY_RETENTION_DAYS, the output goes, blobs and all.
      const keys = await svc.deps.db
        .selectFrom('lobby_output_chunks')
        .select('blob_key')
        .where('lobby_id', '=', lobby.lobby_id)
        .execute();
      assert.ok(keys.length > 1);
      await svc.deps.db
        .updateTable('lobby_output_streams')
        .set({ update_ts: svc.deps.clock.now() - 29 * 86_400_000 })
        .where('lobby_id', '=', lobby.lobby_id)
        .execute();
      assert.equal(await deleteExpiredOutput(svc.deps), 1);
      for (const { blob_key } of keys) assert.equal(await svc.deps.blobs.statObject(blob_key), undefined);
      const after = await readPage(svc, ids.gameId, lobby.lobby_id, {});
      assert.deepEqual(after.lines, []);
    } finally {
      await svc.close();
    }
  });

  it('loses no line across a restart of the service, and reads none twice', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-output-restart-'));
    const port = await freePort();
    const options = { dockerHost: engine.dockerd.dockerHost, portRange: portRange(5), dataDir, port };
    let { svc } = await startRuntimeService(options);
    try {
      const { ids, lobby } = await oneLobby(svc, 'restart-out');
      let index = '0';
      const seen: string[] = [];
      const follow = async (last: string) => {
        for (let pages = 0; ; pages++) {
          assert.ok(pages < 1_000, `still no "${last}" after 1,000 pages: ${seen.slice(-5).join(' | ')}`);
          const page = await readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: index });
          seen.push(...page.lines.map((l) => Buffer.from(l, 'base64').toString()));
          index = page.watch.index;
          if (seen.includes(last)) return;
        }
      };
      for (let i = 0; i < 5; i++)
        assert.equal(await tellLobby(portOf(lobby), `print before ${i}`), 'printed');
      await follow('before 4');
      await svc.close();
      // Printed while the service is down: the engine keeps them, the restarted capture reads them.
      for (let i = 0; i < 5; i++)
        assert.equal(await tellLobby(portOf(lobby), `print while down ${i}`), 'printed');
      ({ svc } = await startRuntimeService(options));
      for (let i = 0; i < 5; i++) assert.equal(await tellLobby(portOf(lobby), `print after ${i}`), 'printed');
      await follow('after 4');
      const printed = seen.filter((l) => /^(before|while down|after) \d$/.test(l));
      assert.deepEqual(printed, [
        ...Array.from({ length: 5 }, (_, i) => `before ${i}`),
        ...Array.from({ length: 5 }, (_, i) => `while down ${i}`),
        ...Array.from({ length: 5 }, (_, i) => `after ${i}`),
      ]);
      assert.equal(new Set(seen).size, seen.length, 'no line twice');
    } finally {
      await svc.close();
    }
  });

  it("keeps another tenant's API as fast while one lobby floods its output and its state, bounding both", async (t) => {
    // The lowest output rate and burst, so that the flood goes past them at once (rather than after 4 MiB)
    // even when the machine is too busy to let it print fast.
    const rateBytes = 1024;
    const { svc, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: portRange(6),
      env: {
        GCM_LOBBY_OUTPUT_RATE_BYTES: String(rateBytes),
        GCM_LOBBY_OUTPUT_BURST_BYTES: String(16 * 1024),
      },
    });
    try {
      const quiet = await runtimeGame(svc, 'quiet-tenant');
      // The probe is a client in a process of its own, over real connections, as a probe from outside would
      // be: the service's event loop then serves it and does nothing else of the test's.
      const probe = loadClient(
        t,
        'probe',
        `${publicUrl}/cloud/games/${quiet.gameId}/namespaces/${quiet.namespaceId}`,
        svc.operatorToken,
        100,
        4,
      );
      /** p99 of 100 namespace GETs, 4 at a time (a client with a few connections), in ms. */
      const p99 = async () => {
        const round = JSON.parse(await probe.ask()) as { p99: number; statuses: Record<string, number> };
        assert.deepEqual(round.statuses, { 200: 100 });
        return round.p99;
      };
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      // A first round warms the service's and the client's code paths (the JIT, the connections); not counted.
      await p99();
      const quietRounds: number[] = [];
      for (let r = 0; r < 3; r++) quietRounds.push(await p99());

      // The other tenant's lobby prints as fast as awk can (bursts of 50,000 lines back to back) until the test
      // stops it (or for 60 s after it is ready, then exits). Half a core (basic-1d2): its own CPU is its tier's to bound, and a lobby of a
      // whole core on this two-core machine would measure the machine, not the service's share of it.
      const ids = await runtimeGame(svc, 'flood-tenant');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      const env = { TEST_PRINT_BURST: '50000', TEST_PRINT_PERIOD_US: '1', TEST_EXIT_AFTER: '60' };
      await deploy(svc, ids, {
        default: { buildId, min: 1, max: 1, regions: ['eu'], env, tier: 'basic-1d2' },
      });
      const lobby = await lobbyOf(svc, ids.namespaceId);
      const floodStart = performance.now();
      // Read from the start: the burst's lines, then the mark of the first lines dropped past it.
      let mark: string | undefined;
      let index = '0';
      await until('the mark of lines dropped past the rate', WAIT_MS, async () => {
        const page = await readPage(svc, ids.gameId, lobby.lobby_id, { watch_index: index, limit: '1000' });
        mark = page.lines.map((l) => Buffer.from(l, 'base64').toString()).find((l) => l.startsWith('[gcm: '));
        index = page.watch.index;
        return mark !== undefined;
      });
      assert.ok(mark !== undefined);
      assert.match(mark, /^\[gcm: \d+ lines \(\d+\.\d KiB\) were dropped: .*GCM_LOBBY_OUTPUT_RATE_BYTES/);
      // Its state too, 60 KB a write, two at a time, while the rounds run: from a process of its own, as the
      // lobby's writes would come.
      const token = await lobbyTokenOf(engine.dockerd.engine, lobby.runtime_handle as string);
      const stateStart = performance.now();
      const writers = loadClient(t, 'put-loop', `${publicUrl}/matchmaker/lobbies/state`, token, 60_000, 2);
      const floodRounds: number[] = [];
      let writes: { statuses: Record<string, number>; retryAfter?: string } = { statuses: {} };
      const eld = monitorEventLoopDelay({ resolution: 5 });
      eld.enable();
      const cpu0 = process.cpuUsage();
      const wait0 = cpuWaitNs();
      const wall0 = performance.now();
      try {
        // Three rounds, or as many as 10 s allow on a busy machine (at least one).
        const roundsStart = performance.now();
        do floodRounds.push(await p99());
        while (floodRounds.length < 3 && performance.now() - roundsStart < 10_000);
      } finally {
        writes = JSON.parse(await writers.end()) as { statuses: Record<string, number>; retryAfter?: string };
      }
      eld.disable();
      const cpu = process.cpuUsage(cpu0);
      const wall = performance.now() - wall0;
      const waited = ((cpuWaitNs() - wait0) / 1e6 / wall) * 100;
      const loop = `loop delay p99 ${(eld.percentile(99) / 1e6).toFixed(1)} ms; service CPU ${(((cpu.user + cpu.system) / 1e3 / wall) * 100).toFixed(0)} % of a core; its event loop's thread waited for a CPU ${waited.toFixed(0)} % of the time`;
      const stateSeconds = (performance.now() - stateStart) / 1000;
      const floodSeconds = (performance.now() - floodStart) / 1000;
      const q = median(quietRounds);
      const f = median(floodRounds);
      const figures = `namespace GET p99, median of 3 rounds: quiet ${q.toFixed(1)} ms (${quietRounds.map((x) => x.toFixed(1)).join(', ')}), flood ${f.toFixed(1)} ms (${floodRounds.map((x) => x.toFixed(1)).join(', ')}); state writes in ${stateSeconds.toFixed(1)} s: ${JSON.stringify(writes.statuses)}; flood measured for ${floodSeconds.toFixed(1)} s; ${loop}; load ${(os.loadavg()[0] ?? 0).toFixed(1)}`;
      t.diagnostic(figures);
      // Within twice the quiet figure, with 25 ms of slack: medians of rounds, since one round's p99 swings by
      // tens of ms from noise alone. Judged only where the machine gave the service's event loop the CPU it
      // asked for (its thread waited for one at most a quarter of the flood, with the load under twice the
      // cores): on two cores the engine's own log pipeline for a flooding lobby (dockerd and its shim, outside
      // any tier) takes more than one of them, and the service then waits for a CPU whatever its own work is
      // (docs/testing-and-benchmarks.md has the figures); there they are reported, not judged.
      const judged = waited <= 25 && (os.loadavg()[0] ?? 0) <= 2 * os.cpus().length;
      if (judged) assert.ok(f <= 2 * q + 25, figures);
      else
        t.diagnostic(
          'the machine did not give the service its CPU in the flood: latency reported, not judged',
        );
      // State: the burst (10) and 2 a second were taken; the rest refused with when to come back.
      const taken = writes.statuses[200] ?? 0;
      assert.ok(taken >= 10 && taken <= 10 + Math.ceil(2 * stateSeconds) + 1, figures);
      assert.ok((writes.statuses[429] ?? 0) > 0, figures);
      // Only those two: no 401, so the lobby was running (flooding) for every round.
      assert.deepEqual(Object.keys(writes.statuses).sort(), ['200', '429'], figures);
      assert.match(writes.retryAfter ?? '', /^[1-9]\d*$/);
      // Output: what was stored is within the burst and the rate (and a mark where lines were dropped).
      const rows = await svc.deps.db
        .selectFrom('lobby_output_streams')
        .select(['kept_bytes', 'dropped_bytes', 'line_count'])
        .where('lobby_id', '=', lobby.lobby_id)
        .where('stream', '=', 'std_out')
        .execute();
      const kept = Number(rows[0]?.kept_bytes ?? 0);
      const bound = 16 * 1024 + rateBytes * ((performance.now() - floodStart) / 1000 + 15);
      assert.ok(kept > 0 && kept <= bound, `${kept} bytes kept, at most ${bound}`);
    } finally {
      await svc.close();
      // Its lobbies flood on after the service closed: stopped here, so the engine is quiet for what follows.
      for (const c of await engine.containersOf(svc)) await engine.driver.stop(c.region, c.handle, 0);
    }
  });
});
