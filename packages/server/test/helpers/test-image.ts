import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { type DockerEngine, jsonLines, readBody } from '../../src/runtime/docker/engine.js';
import type { ImageArchive } from '../../src/runtime/driver.js';
import { BUSYBOX } from './dockerd.js';
import { tar } from './tar.js';

/**
 * The test game server, a shell script on Debian's busybox-static (no registry, no network). What its
 * environment tells it:
 * - prints `server: starting args=…`, then every variable but GCM_LOBBY_TOKEN as `env: NAME=value`, one line
 *   to stderr (`server: stderr works`); with TEST_LONG_LINE=N (or `N M …`), a line of N digits (then one of
 *   M, …), then `server: after the long line`;
 * - calls `$GCM_API_URL/matchmaker/lobbies/ready` with its lobby token (wget) unless TEST_NO_READY is set,
 *   printing `server: ready` or `server: ready failed`;
 * - with PORT_game set, listens there (busybox nc, a process per connection): each line sent is echoed back,
 *   `exit N` makes the server exit with N (through the exit file), `player TOKEN` reports a player connected
 *   with that player token (answers `admitted` or `refused`) and `leave TOKEN` reports it gone (`left`);
 * - exits with the code written in TEST_EXIT_FILE (default /tmp/exit) once that file appears, or with
 *   TEST_EXIT_CODE (default 0) after TEST_EXIT_AFTER seconds (0: at once, a crash at start);
 * - on SIGTERM prints `server: got TERM` and exits with TEST_TERM_EXIT (default 0), or carries on when
 *   TEST_TERM_IGNORE is set (then only the SIGKILL after the grace period stops it);
 * - with TEST_OOM set, eats memory until the kernel kills the eater, then exits with 1; with
 *   TEST_OOM=exec the server itself (PID 1) becomes the eater, so the kernel's kill ends it with 137;
 * - with TEST_PRINT_LINES=N, prints `line 1` … `line N` (every TEST_PRINT_LONG_EVERY-th with 20,000 more
 *   bytes), then a line of binary bytes (`binary ` FF FE 01 ESC [31m NUL ` end`) and `server: printed N lines`;
 * - on its game port, `print TEXT` (`eprint TEXT`) prints TEXT to its stdout (stderr) and answers `printed`;
 * - with TEST_BURN set, keeps a process spinning on the CPU for as long as it runs (after ready);
 * - with TEST_PRINT_BURST=N, prints `burst 1` … `burst N` every TEST_PRINT_PERIOD_US µs (0.1 s unless set;
 *   busybox usleep) for as long as it runs (after ready): a steady rate for the benchmark of lobby output. Each
 *   burst is two processes (awk, usleep): 100 lobbies at 0.1 s spawn 2,000 a second, which alone fills two
 *   cores, hence a longer period with a bigger burst for many lobbies.
 */
const SERVER_SH = `#!/bin/sh
# The trap first: TERM before it is ignored (the shell is the container's PID 1), and a test that saw any
# output may send TERM.
on_term() {
  echo "server: got TERM"
  if [ -n "$TEST_TERM_IGNORE" ]; then return; fi
  exit "\${TEST_TERM_EXIT:-0}"
}
trap on_term TERM
echo "server: starting args=$*"
env | grep -v '^GCM_LOBBY_TOKEN=' | sort | sed 's/^/env: /'
echo "server: stderr works" >&2
if [ -n "$TEST_LONG_LINE" ]; then
  for n in $TEST_LONG_LINE; do
    awk -v n="$n" 'BEGIN { s = "0123456789"; while (length(s) < n) s = s s; print substr(s, 1, n) }'
  done
  echo "server: after the long line"
fi
if [ -n "$TEST_PRINT_LINES" ]; then
  awk -v n="$TEST_PRINT_LINES" -v every="\${TEST_PRINT_LONG_EVERY:-0}" 'BEGIN { long = "x"; while (length(long) < 20000) long = long long; for (i = 1; i <= n; i++) { if (every > 0 && i % every == 0) print "line " i " " substr(long, 1, 20000); else print "line " i } }'
  printf 'binary \\377\\376\\001\\033[31m\\000 end\\n'
  echo "server: printed $TEST_PRINT_LINES lines"
fi
if [ -n "$TEST_OOM" ]; then
  echo "server: eating memory"
  if [ "$TEST_OOM" = exec ]; then exec awk 'BEGIN { s = "0123456789"; while (1) s = s s }'; fi
  awk 'BEGIN { s = "0123456789"; while (1) s = s s }'
  # The kernel kills the biggest process, awk, not this shell.
  echo "server: out of memory"
  exit 1
fi
if [ -z "$TEST_NO_READY" ]; then
  if wget -q -O- --post-data= --header "Authorization: Bearer $GCM_LOBBY_TOKEN" "$GCM_API_URL/matchmaker/lobbies/ready" >/dev/null; then
    echo "server: ready"
  else
    echo "server: ready failed" >&2
  fi
fi
if [ -n "$TEST_BURN" ]; then
  sh -c 'while :; do :; done' &
  echo "server: burning CPU"
fi
if [ -n "$TEST_PRINT_BURST" ]; then
  period="\${TEST_PRINT_PERIOD_US:-100000}"
  echo "server: printing $TEST_PRINT_BURST lines every $period us"
  while :; do
    awk -v n="$TEST_PRINT_BURST" 'BEGIN { for (i = 1; i <= n; i++) print "burst " i }'
    usleep "$period"
  done &
fi
exit_file="\${TEST_EXIT_FILE:-/tmp/exit}"
if [ -n "$PORT_game" ]; then
  EXIT_FILE="$exit_file" nc -ll -p "$PORT_game" -e /handle.sh &
  echo "server: listening on $PORT_game"
fi
start=$(date +%s)
while :; do
  if [ -e "$exit_file" ]; then
    code=$(cat "$exit_file")
    echo "server: exiting with $code"
    exit "$code"
  fi
  if [ -n "$TEST_EXIT_AFTER" ] && [ $(( $(date +%s) - start )) -ge "$TEST_EXIT_AFTER" ]; then
    echo "server: exiting with \${TEST_EXIT_CODE:-0} after $TEST_EXIT_AFTER s"
    exit "\${TEST_EXIT_CODE:-0}"
  fi
  # In the background, so that a TERM is handled at once rather than after the sleep.
  sleep 0.1 &
  wait $!
done
`;

/** One connection to the game port: echoes lines; `exit N` asks the server to exit with N. */
const HANDLE_SH = `#!/bin/sh
while read -r line; do
  case "$line" in
    "exit "*)
      echo "\${line#exit }" > "$EXIT_FILE"
      echo "bye"
      exit 0
      ;;
    "player "*)
      # A player's first line is its player token: the lobby asks the service before it lets it play.
      if wget -q -O- --post-data="{\\"player_token\\":\\"\${line#player }\\"}" --header "Content-Type: application/json" --header "Authorization: Bearer $GCM_LOBBY_TOKEN" "$GCM_API_URL/matchmaker/players/connected" >/dev/null 2>&1; then
        echo "admitted"
      else
        echo "refused"
      fi
      ;;
    "leave "*)
      wget -q -O- --post-data="{\\"player_token\\":\\"\${line#leave }\\"}" --header "Content-Type: application/json" --header "Authorization: Bearer $GCM_LOBBY_TOKEN" "$GCM_API_URL/matchmaker/players/disconnected" >/dev/null 2>&1
      echo "left"
      ;;
    "print "*)
      # To the server's own stdout (PID 1's), which is the lobby's output.
      echo "\${line#print }" > /proc/1/fd/1
      echo "printed"
      ;;
    "eprint "*)
      echo "\${line#eprint }" > /proc/1/fd/2
      echo "printed"
      ;;
    *) echo "$line" ;;
  esac
done
`;

const DOCKERFILE = `FROM scratch
COPY rootfs/ /
ENV PATH=/bin
ENTRYPOINT ["/bin/sh", "/server.sh"]
`;

export interface TestImage {
  /** The tag it was built under (removed from the engine after the export unless `keep`). */
  name: string;
  /** The image id (`sha256:…`). */
  id: string;
  /** The `docker save` archive. */
  archive: Buffer;
  size: number;
  sha256: string;
}

/** The build context: busybox and a link per applet, the two scripts, a /tmp. */
function buildContext(variant?: string): Buffer {
  const applets = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => /^[a-z0-9_.[-]+$/.test(name) && name !== 'busybox');
  return tar([
    {
      type: 'file',
      name: 'Dockerfile',
      // A label of its own: another image id over the same (cached) layers.
      content: variant === undefined ? DOCKERFILE : `${DOCKERFILE}LABEL gcm.test.variant=${variant}\n`,
    },
    { type: 'dir', name: 'rootfs' },
    { type: 'dir', name: 'rootfs/bin' },
    { type: 'file', name: 'rootfs/bin/busybox', content: readFileSync(BUSYBOX), mode: 0o755 },
    ...applets.map((name) => ({ type: 'symlink' as const, name: `rootfs/bin/${name}`, target: 'busybox' })),
    { type: 'dir', name: 'rootfs/tmp', mode: 0o1777 },
    { type: 'file', name: 'rootfs/server.sh', content: SERVER_SH, mode: 0o755 },
    { type: 'file', name: 'rootfs/handle.sh', content: HANDLE_SH, mode: 0o755 },
  ]);
}

/**
 * Builds the test image on `engine` (`POST /build` of a tar context, no network) and exports it as a
 * `docker save` archive. The image is removed from the engine afterwards unless `keep`, so that loading the
 * archive is a real load.
 */
export async function buildTestImage(
  engine: DockerEngine,
  options: { name?: string; keep?: boolean; variant?: string } = {},
): Promise<TestImage> {
  const name = options.name ?? 'gcm-test-server:1';
  const built = await engine.open({
    method: 'POST',
    path: '/build',
    query: { t: name, rm: 1, forcerm: 1, networkmode: 'none' },
    bodyStream: Readable.from([buildContext(options.variant)]),
    contentType: 'application/x-tar',
    idleTimeoutMs: 120_000,
  });
  const output: string[] = [];
  let id: string | undefined;
  for await (const message of jsonLines(built)) {
    const { stream, error, aux } = message as { stream?: string; error?: string; aux?: { ID?: string } };
    if (error !== undefined) throw new Error(`building the test image failed: ${error}\n${output.join('')}`);
    if (stream !== undefined) output.push(stream);
    if (aux?.ID !== undefined) id = aux.ID;
  }
  if (id === undefined) throw new Error(`building the test image named no image: ${output.join('')}`);
  const exported = await engine.open({ method: 'GET', path: `/images/${encodeURIComponent(name)}/get` });
  const chunks: Buffer[] = [];
  for await (const chunk of exported) chunks.push(chunk as Buffer);
  const archive = Buffer.concat(chunks);
  if (options.keep !== true) {
    await readBody(
      await engine.open({ method: 'DELETE', path: `/images/${encodeURIComponent(name)}` }),
      65536,
    );
  }
  return {
    name,
    id,
    archive,
    size: archive.length,
    sha256: createHash('sha256').update(archive).digest('hex'),
  };
}

/** The archive as a build record describes it, opened as blob storage would stream it (64 KiB chunks). */
export function imageArchive(
  bytes: Buffer,
  options: { buildId?: string; size?: number; sha256?: string } = {},
): ImageArchive {
  return {
    buildId: options.buildId ?? 'build-test',
    size: options.size ?? bytes.length,
    sha256: options.sha256 ?? createHash('sha256').update(bytes).digest('hex'),
    async open() {
      return Readable.from(
        (function* () {
          for (let at = 0; at < bytes.length; at += 65536) yield bytes.subarray(at, at + 65536);
        })(),
      );
    },
  };
}

/**
 * A tiny `docker save` archive made by hand: one layer holding one file with `content`, tagged `repoTags`
 * (several images when `more` is given). Not runnable (no shell): for what the engine stores, not what it
 * runs. Distinct `content` makes a distinct image id.
 */
export function tinyImageArchive(
  content: string,
  repoTags: readonly string[] = [],
  more: readonly { content: string; repoTags: readonly string[] }[] = [],
): { archive: Buffer; ids: string[] } {
  const entries: Parameters<typeof tar>[0][number][] = [];
  const manifest: unknown[] = [];
  const ids: string[] = [];
  for (const image of [{ content, repoTags }, ...more]) {
    const layer = tar([{ type: 'file', name: 'gcm-tiny.txt', content: image.content }]);
    const layerSha = createHash('sha256').update(layer).digest('hex');
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Cmd: ['/nothing'] },
        rootfs: { type: 'layers', diff_ids: [`sha256:${layerSha}`] },
      }),
    );
    const configSha = createHash('sha256').update(config).digest('hex');
    entries.push(
      { type: 'dir', name: layerSha },
      { type: 'file', name: `${layerSha}/layer.tar`, content: layer },
      { type: 'file', name: `${configSha}.json`, content: config },
    );
    manifest.push({
      Config: `${configSha}.json`,
      RepoTags: [...image.repoTags],
      Layers: [`${layerSha}/layer.tar`],
    });
    ids.push(`sha256:${configSha}`);
  }
  entries.push({ type: 'file', name: 'manifest.json', content: JSON.stringify(manifest) });
  return { archive: tar(entries), ids };
}
