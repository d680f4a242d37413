import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { LINE_CUT_MARK } from '@gcm/contract';
import { type DockerEngine, readBody } from '../../src/runtime/docker/engine.js';
import {
  ImageLoadError,
  LOBBY_LABELS,
  type LobbySpec,
  type OutputLine,
  type RunningLobby,
  type RuntimeDriver,
  type RuntimeEvent,
} from '../../src/runtime/driver.js';
import { freePort } from '../helpers/listening.js';
import { tar } from '../helpers/tar.js';
import { imageArchive, tinyImageArchive } from '../helpers/test-image.js';
import { HANG_MS, until } from '../helpers/until.js';

/** An output line as text, for lines the test server prints in ASCII. */
const text = (l: OutputLine) => l.bytes.toString('utf8');

/**
 * What every RuntimeDriver must do, run against a real orchestrator: `docker-driver.test.ts` runs it on a
 * private dockerd, and the swarm driver's test will run it on a swarm. The orchestrator runs the test game
 * server of test/helpers/test-image.ts (its archive is `image`) with host networking, so that its port is
 * reachable on 127.0.0.1.
 */
export interface DriverContractSetup {
  driver: RuntimeDriver;
  /** A region the driver runs. */
  region: string;
  /** The test image's `docker save` archive. */
  image: Buffer;
  /** What ensureImage answers: an image id (docker) unless the driver names images otherwise (a digest). */
  imagePattern?: RegExp;
  /** The engine builds are loaded into (the docker driver's, the swarm's manager): checked by hand. */
  engine: DockerEngine;
  /** Everything the setup started; the driver is closed by the suite. */
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
const LIMITS = { nanoCpus: 500_000_000, memoryBytes: 64 * MiB, pids: 64 };

/** Events in arrival order, and a wait for one that matches. */
class EventLog {
  readonly events: RuntimeEvent[] = [];
  push = (event: RuntimeEvent) => {
    this.events.push(event);
  };
  async next(what: string, match: (event: RuntimeEvent) => boolean): Promise<RuntimeEvent> {
    let found: RuntimeEvent | undefined;
    await until(what, HANG_MS, () => {
      found = this.events.find(match);
      return found !== undefined;
    });
    return found as RuntimeEvent;
  }
}

/** Follows the lobby's output until a line matches, and answers every line up to it. */
async function outputUntil(
  driver: RuntimeDriver,
  region: string,
  handle: string,
  match: (line: OutputLine) => boolean,
): Promise<OutputLine[]> {
  const signal = AbortSignal.timeout(HANG_MS);
  const lines: OutputLine[] = [];
  for await (const line of linesOf(driver.output(region, handle, { follow: true, signal }))) {
    lines.push(line);
    if (match(line)) return lines;
  }
  assert.fail(`the output ended without the line looked for: ${JSON.stringify(lines)}`);
}

function echo(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(HANG_MS, () => socket.destroy(new Error('no echo')));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\n')) {
        socket.end();
        resolve(answer.trim());
      }
    });
    socket.once('error', reject);
    socket.write(`${text}\n`);
  });
}

/** Connects until the lobby listens (the server opens its port a moment after it starts). */
async function echoWhenListening(port: number, text: string): Promise<string> {
  let answer: string | undefined;
  await until(
    `the lobby to listen on ${port}`,
    HANG_MS,
    async () => {
      answer = await echo(port, text).catch(() => undefined);
      return answer !== undefined;
    },
    50,
  );
  return answer as string;
}

export function runDriverContract(
  name: string,
  makeSetup: () => Promise<DriverContractSetup>,
  options: { skip?: string | false } = {},
): void {
  describe(`${name}: the runtime driver contract`, { skip: options.skip, timeout: 600_000 }, () => {
    let setup: DriverContractSetup;
    let driver: RuntimeDriver;
    let region: string;
    let image: string;
    const events = new EventLog();
    /** Each test's lobbies carry an owner of their own, so that lists and events see only them. */
    const owner = () => `contract-${randomUUID()}`;

    const spec = (labels: Record<string, string>, env: Record<string, string> = {}, port?: number) => {
      const lobbyId = randomUUID();
      return {
        lobbyId,
        region,
        image,
        args: ['--mode', 'test'],
        env: { TEST_NO_READY: '1', ...(port === undefined ? {} : { PORT_game: String(port) }), ...env },
        networkMode: 'host',
        ports:
          port === undefined ? [] : [{ name: 'game', protocol: 'tcp', containerPort: port, hostPort: port }],
        limits: LIMITS,
        readOnlyRootFs: true,
        stopGraceSeconds: 2,
        labels: { [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.region]: region, ...labels },
      } satisfies LobbySpec;
    };

    before(async () => {
      setup = await makeSetup();
      ({ driver, region } = setup);
      // Every test's events, from here on: each test looks only at its own lobbies.
      driver.events({}, events.push);
      ({ image } = await driver.ensureImage(region, imageArchive(setup.image)));
    });

    after(async () => {
      await driver?.close();
      await setup?.close();
    });

    test('ensureImage loads an archive once per host and answers the same image each time', async () => {
      let opened = 0;
      const archive = imageArchive(setup.image);
      const counting = {
        ...archive,
        open: () => {
          opened++;
          return archive.open();
        },
      };
      const first = await driver.ensureImage(region, counting);
      const second = await driver.ensureImage(region, counting);
      assert.equal(first.image, image);
      assert.equal(second.image, image);
      // Loaded by `before` under the same digest: neither call streamed the archive again.
      assert.equal(opened, 0);
      assert.match(image, setup.imagePattern ?? /^sha256:[0-9a-f]{64}$/);
    });

    test('an archive that is not the build, or not an image, fails with what was expected and what came', async () => {
      const good = imageArchive(setup.image);
      const wrongSha = 'ab'.repeat(32);
      await assert.rejects(
        driver.ensureImage(region, { ...good, buildId: 'build-sha', sha256: wrongSha }),
        (err: Error) =>
          err instanceof ImageLoadError &&
          err.message.includes('build-sha') &&
          err.message.includes(wrongSha) &&
          err.message.includes(good.sha256),
      );
      // Another archive (a tar may end in more zero blocks), so that its digest is not one loaded already.
      const padded = Buffer.concat([setup.image, Buffer.alloc(1024)]);
      await assert.rejects(
        driver.ensureImage(region, { ...imageArchive(padded), buildId: 'build-size', size: good.size - 1 }),
        (err: Error) =>
          err instanceof ImageLoadError &&
          err.message.includes('build-size') &&
          err.message.includes(`${good.size - 1} bytes`),
      );
      const garbage = Buffer.from(
        'this is not a tar file at all, just text a studio uploaded by mistake\n'.repeat(50),
      );
      await assert.rejects(
        driver.ensureImage(region, imageArchive(garbage, { buildId: 'build-garbage' })),
        (err: Error) =>
          err instanceof ImageLoadError && /build-garbage.*not a tar file.*docker save/.test(err.message),
      );
      // Shaped like an image archive, but what its manifest names is not there: the orchestrator refuses it.
      const hollow = tar([
        {
          type: 'file',
          name: 'manifest.json',
          content: JSON.stringify([
            { Config: `${'c'.repeat(64)}.json`, RepoTags: null, Layers: ['l/layer.tar'] },
          ]),
        },
      ]);
      await assert.rejects(
        driver.ensureImage(region, imageArchive(hollow, { buildId: 'build-hollow' })),
        (err: Error) => err instanceof ImageLoadError && /build-hollow.*refused/.test(err.message),
      );
      // Blob storage failing half-way is not the archive's fault: a plain error, so that a later start retries.
      const broken = {
        ...imageArchive(Buffer.concat([setup.image, Buffer.alloc(2048)]), { buildId: 'build-broken' }),
        async open() {
          return Readable.from(
            (async function* () {
              yield setup.image.subarray(0, 100_000);
              throw new Error('the blob store went away');
            })(),
          );
        },
      };
      await assert.rejects(
        driver.ensureImage(region, broken),
        (err: Error) =>
          !(err instanceof ImageLoadError) &&
          /build-broken.*blob storage.*the blob store went away/.test(err.message),
      );
      const notImage = tar([{ type: 'file', name: 'readme.txt', content: 'a tar, but no image in it' }]);
      await assert.rejects(
        driver.ensureImage(region, imageArchive(notImage, { buildId: 'build-tar' })),
        (err: Error) =>
          err instanceof ImageLoadError && /build-tar.*neither manifest\.json.*index\.json/.test(err.message),
      );
    });

    test('start runs the lobby with its labels, env and args; its host-mode port answers on 127.0.0.1', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner(), [LOBBY_LABELS.gameMode]: 'duel' };
      const port = await freePort();
      const lobby = spec(labels, { GCM_LOBBY_TOKEN: 'secret-token', GCM_LOBBY_ID: 'lobby-1' }, port);
      const { handle } = await driver.start(lobby);
      const started = await events.next(
        'the started event',
        (e) => e.type === 'started' && e.handle === handle,
      );
      assert.equal(started.region, region);
      assert.equal(started.labels[LOBBY_LABELS.gameMode], 'duel');
      assert.equal(started.labels[LOBBY_LABELS.lobby], lobby.lobbyId);
      assert.equal(await echoWhenListening(port, 'hello lobby'), 'hello lobby');
      const lines = await outputUntil(driver, region, handle, (l) => text(l).startsWith('server: listening'));
      const printed = lines.map(text);
      assert.ok(printed.includes('server: starting args=--mode test'), printed.join('\n'));
      assert.ok(printed.includes('env: GCM_LOBBY_ID=lobby-1'), printed.join('\n'));
      assert.ok(printed.includes(`env: PORT_game=${port}`), printed.join('\n'));
      assert.ok(!printed.some((l) => l.includes('secret-token')), 'the script never prints its token');
      await driver.stop(region, handle, 5);
    });

    test('start tells onCreated the handle before the lobby runs; when it throws, nothing stays behind', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      let toldHandle: string | undefined;
      let listedWhenTold: RunningLobby[] | undefined;
      const outputWhenTold: OutputLine[] = [];
      const { handle } = await driver.start(spec(labels), async (h) => {
        toldHandle = h;
        listedWhenTold = await driver.list(labels);
        for await (const line of linesOf(driver.output(region, h, { follow: false })))
          outputWhenTold.push(line);
      });
      assert.equal(toldHandle, handle);
      assert.deepEqual(
        listedWhenTold?.map((c) => c.handle),
        [handle],
        'it exists when its handle is told',
      );
      // The test server prints its first line as it starts.
      assert.deepEqual(outputWhenTold, [], 'it has not run when its handle is told');
      await outputUntil(driver, region, handle, (l) => text(l).startsWith('server: starting'));
      await events.next('the started event', (e) => e.type === 'started' && e.handle === handle);
      await driver.stop(region, handle, 1);

      const refused = { [LOBBY_LABELS.owner]: owner() };
      await assert.rejects(
        driver.start(spec(refused), async () => {
          throw new Error('the store is down');
        }),
        /the store is down/,
      );
      assert.deepEqual(await driver.list(refused), [], 'no container is left behind');
    });

    test('stop sends TERM and records the exit code the server chose; then the lobby is gone', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      const { handle } = await driver.start(spec(labels, { TEST_TERM_EXIT: '3' }));
      await outputUntil(driver, region, handle, (l) => text(l).startsWith('env: TEST_TERM_EXIT'));
      const stopping = Date.now();
      await driver.stop(region, handle, 30);
      const exited = await events.next('the exited event', (e) => e.type === 'exited' && e.handle === handle);
      assert.deepEqual(
        {
          exitCode: exited.type === 'exited' && exited.exitCode,
          oom: exited.type === 'exited' && exited.oomKilled,
        },
        { exitCode: 3, oom: false },
      );
      // Well within the 30 s grace: the server handled TERM.
      assert.ok(Date.now() - stopping < 25_000, `stop took ${Date.now() - stopping} ms`);
      await events.next('the gone event', (e) => e.type === 'gone' && e.handle === handle);
      assert.deepEqual(await driver.list(labels), []);
      // Idempotent: stopping what is gone, or was never there, succeeds.
      await driver.stop(region, handle, 1);
    });

    test('a server that ignores TERM is killed once the grace period is over', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      const { handle } = await driver.start(spec(labels, { TEST_TERM_IGNORE: '1' }));
      await outputUntil(driver, region, handle, (l) => text(l).startsWith('env: TEST_TERM_IGNORE'));
      const lines: OutputLine[] = [];
      const reading = (async () => {
        for await (const line of linesOf(driver.output(region, handle, { follow: true }))) lines.push(line);
      })();
      const stopping = Date.now();
      await driver.stop(region, handle, 2);
      const took = Date.now() - stopping;
      const exited = await events.next('the exited event', (e) => e.type === 'exited' && e.handle === handle);
      // SIGKILL: 128 + 9.
      assert.equal(exited.type === 'exited' && exited.exitCode, 137);
      assert.ok(took >= 1900, `stop answered after ${took} ms, before the 2 s grace was over`);
      await reading.catch(() => undefined);
      assert.ok(
        lines.some((l) => text(l) === 'server: got TERM'),
        JSON.stringify(lines),
      );
    });

    test('list answers the lobbies carrying every label asked, running or exited with their exit code', async () => {
      const mine = owner();
      const running = await driver.start(spec({ [LOBBY_LABELS.owner]: mine, [LOBBY_LABELS.gameMode]: 'a' }));
      const crashed = await driver.start(
        spec(
          { [LOBBY_LABELS.owner]: mine, [LOBBY_LABELS.gameMode]: 'b' },
          { TEST_EXIT_AFTER: '0', TEST_EXIT_CODE: '5' },
        ),
      );
      const other = await driver.start(spec({ [LOBBY_LABELS.owner]: owner(), [LOBBY_LABELS.gameMode]: 'a' }));
      await events.next('the crash', (e) => e.type === 'exited' && e.handle === crashed.handle);
      const listed = await driver.list({ [LOBBY_LABELS.owner]: mine });
      const byHandle = new Map(listed.map((l) => [l.handle, l]));
      assert.equal(listed.length, 2, JSON.stringify(listed));
      assert.equal(byHandle.get(running.handle)?.state, 'running');
      assert.equal(byHandle.get(running.handle)?.labels[LOBBY_LABELS.gameMode], 'a');
      assert.equal(byHandle.get(running.handle)?.region, region);
      const crash = byHandle.get(crashed.handle);
      assert.deepEqual(
        { state: crash?.state, exitCode: crash?.exitCode, oomKilled: crash?.oomKilled },
        { state: 'exited', exitCode: 5, oomKilled: false },
      );
      assert.deepEqual(
        (await driver.list({ [LOBBY_LABELS.owner]: mine, [LOBBY_LABELS.gameMode]: 'a' })).map(
          (l) => l.handle,
        ),
        [running.handle],
      );
      await Promise.all([running, crashed, other].map(({ handle }) => driver.stop(region, handle, 1)));
      assert.deepEqual(await driver.list({ [LOBBY_LABELS.owner]: mine }), []);
    });

    test('events say when a lobby exits on its own, with its exit code, and when memory ran out', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      const port = await freePort();
      const { handle } = await driver.start(spec(labels, {}, port));
      // The server exits with 42 when told through its port.
      assert.equal(await echoWhenListening(port, 'exit 42'), 'bye');
      const exited = await events.next('the exited event', (e) => e.type === 'exited' && e.handle === handle);
      assert.deepEqual(exited.type === 'exited' && [exited.exitCode, exited.oomKilled], [42, false]);
      assert.equal(exited.labels[LOBBY_LABELS.owner], labels[LOBBY_LABELS.owner]);
      await driver.stop(region, handle, 1);
      await events.next('the gone event', (e) => e.type === 'gone' && e.handle === handle);

      const hog = await driver.start({
        ...spec(labels, { TEST_OOM: '1' }),
        limits: { ...LIMITS, memoryBytes: 16 * MiB },
      });
      const killed = await events.next('the OOM kill', (e) => e.type === 'exited' && e.handle === hog.handle);
      assert.equal(killed.type === 'exited' && killed.oomKilled, true, JSON.stringify(killed));
      await driver.stop(region, hog.handle, 1);
    });

    test('output answers stdout and stderr lines with the time each was written, from a given time on', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      const before = Date.now() - 1000;
      // The engine splits lines into 16 KiB pieces: lines that fill them exactly, and one longer.
      const { handle } = await driver.start(
        spec(labels, { TEST_EXIT_AFTER: '0', TEST_LONG_LINE: '16384 32768 40000' }),
      );
      await events.next('the exit', (e) => e.type === 'exited' && e.handle === handle);
      const lines: OutputLine[] = [];
      for await (const line of linesOf(driver.output(region, handle, { follow: false }))) lines.push(line);
      const stderr = lines.find((l) => text(l) === 'server: stderr works');
      assert.equal(stderr?.stream, 'stderr');
      assert.equal(lines.find((l) => text(l).startsWith('server: starting'))?.stream, 'stdout');
      for (const line of lines) {
        assert.ok(line.ts >= before && line.ts <= Date.now(), `${line.ts} out of range`);
      }
      // A line of exactly 16 KiB is whole; a longer one is cut there and says so; the next line is whole.
      const long = lines.filter((l) => text(l).startsWith('0123456789'));
      assert.equal(long.length, 3, JSON.stringify(long.map((l) => l.bytes.length)));
      assert.equal(text(long[0] as OutputLine), '0123456789'.repeat(1639).slice(0, 16 * 1024));
      for (const cut of long.slice(1)) {
        assert.equal(cut.bytes.length, 16 * 1024);
        assert.ok(text(cut).endsWith(LINE_CUT_MARK), 'a cut line says so');
      }
      assert.ok(
        lines.some((l) => text(l) === 'server: after the long line'),
        JSON.stringify(lines.map((l) => text(l).slice(0, 40))),
      );
      const last = lines.at(-1) as OutputLine;
      const since: OutputLine[] = [];
      for await (const line of linesOf(driver.output(region, handle, { follow: false, sinceMs: last.ts })))
        since.push(line);
      // Lines printed within the last one's millisecond are all "since" it: a quick server prints them all so.
      const atOrAfter = lines.filter((l) => l.ts >= last.ts).length;
      assert.ok(
        since.length >= 1 && since.length <= atOrAfter,
        `${since.length} of ${atOrAfter} at or after`,
      );
      assert.ok(since.every((l) => l.ts >= last.ts));
      // A followed output of a lobby that has exited ends.
      let followed = 0;
      for await (const _ of linesOf(driver.output(region, handle, { follow: true }))) followed++;
      assert.equal(followed, lines.length);
      await driver.stop(region, handle, 1);
      assert.deepEqual(await collect(driver.output(region, handle, { follow: false })), []);
    });

    test('collectImages removes the builds not kept, with the tags their archives brought, and nothing else', async () => {
      const tag = `gc-brought-${randomUUID()}`;
      const brought = tinyImageArchive(`brought ${tag}`, [`${tag}:latest`]);
      const plain = tinyImageArchive(`plain ${tag}`);
      const kept = tinyImageArchive(`kept ${tag}`);
      // The operator's own image, loaded by hand: no service tag, so never the collector's.
      const operator = tinyImageArchive(`operator ${tag}`, [`operator-${tag}:1`]);
      await readBody(
        await setup.engine.open({
          method: 'POST',
          path: '/images/load',
          query: { quiet: 1 },
          bodyStream: Readable.from([operator.archive]),
          contentType: 'application/x-tar',
        }),
        1024 * 1024,
      );
      const archives = [brought, plain, kept].map((a, i) =>
        imageArchive(a.archive, { buildId: `build-gc-${i}` }),
      );
      for (const archive of archives) await driver.ensureImage(region, archive);
      // The operator tags one of the service's images by hand: from then on it is (also) theirs.
      const adopted = tinyImageArchive(`adopted ${tag}`);
      await driver.ensureImage(region, imageArchive(adopted.archive, { buildId: 'build-gc-adopted' }));
      await setup.engine.json({
        method: 'POST',
        path: `/images/${adopted.ids[0]}/tag`,
        query: { repo: `operator-adopted-${tag}`, tag: '1' },
      });
      const present = async (ref: string) =>
        (await setup.engine.json(
          { method: 'GET', path: `/images/${encodeURIComponent(ref)}/json` },
          [404],
        )) !== undefined;
      assert.ok(await present(`${tag}:latest`), 'the archive brought its tag');
      // Asked for just now: within the grace period nothing goes.
      const early = await driver.collectImages(new Set(), { graceMs: 60_000 });
      assert.equal(
        early.reduce((n, h) => n + h.removed, 0),
        0,
        JSON.stringify(early),
      );
      // The suite's own test image stays too: every other test starts lobbies of it.
      const keep = new Set([(archives[2] as { sha256: string }).sha256, imageArchive(setup.image).sha256]);
      const done = await driver.collectImages(keep, { graceMs: 0 });
      assert.ok(
        done.every((h) => h.problem === undefined),
        JSON.stringify(done),
      );
      // Images removed from engines: a registry's entry (the swarm's) counts manifests, not images.
      assert.equal(
        done.reduce((n, h) => n + (h.registry === true ? 0 : h.removed), 0),
        2,
        JSON.stringify(done),
      );
      assert.equal(await present(brought.ids[0] as string), false, 'the build not kept is removed');
      assert.equal(await present(`${tag}:latest`), false, 'with the tag its archive brought');
      assert.equal(await present(plain.ids[0] as string), false);
      assert.ok(await present(kept.ids[0] as string), 'a kept build stays');
      assert.ok(await present(operator.ids[0] as string), "the operator's image stays");
      assert.ok(await present(`operator-${tag}:1`), "and so does the operator's tag");
      assert.ok(await present(`operator-adopted-${tag}:1`), 'an image the operator tagged by hand stays');
      assert.ok(await present(adopted.ids[0] as string));
      // A start that asks again is answered (the docker driver loads it anew, the swarm's registry has it).
      const again = await driver.ensureImage(
        region,
        imageArchive(brought.archive, { buildId: 'build-gc-again' }),
      );
      assert.match(again.image, setup.imagePattern ?? /^sha256:[0-9a-f]{64}$/);
    });

    test('stats answers a sample of a running lobby, and nothing once it is gone', async () => {
      const labels = { [LOBBY_LABELS.owner]: owner() };
      const { handle } = await driver.start(spec(labels));
      // Running, not only placed: an orchestrator that schedules (swarm) has no container to read before.
      await events.next('the started event', (e) => e.type === 'started' && e.handle === handle);
      const stats = await driver.stats(region, handle);
      assert.ok(stats !== undefined);
      assert.equal(stats.memoryLimitBytes, LIMITS.memoryBytes);
      assert.ok(stats.memoryBytes > 0 && stats.memoryBytes < LIMITS.memoryBytes, String(stats.memoryBytes));
      assert.ok(stats.nanoCpus >= 0);
      await driver.stop(region, handle, 1);
      assert.equal(await driver.stats(region, handle), undefined);
    });
  });
}

/** The lines of the driver's batches, each batch checked to hold some: the interface promises none empty. */
async function* linesOf(batches: AsyncIterable<OutputLine[]>): AsyncIterable<OutputLine> {
  for await (const batch of batches) {
    assert.ok(batch.length > 0, 'an empty batch of output lines');
    yield* batch;
  }
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
