import type { GetRuntimeResponse } from '@gcm/contract';
import type { Config } from '../config.js';
import { openStoreToRead } from '../db/open-db.js';
import { liveLobbiesByRegion, ownerOf, runtimeView } from '../modules/runtime/runtime.service.js';
import { LOBBY_LABELS, type RuntimeNode } from '../runtime/driver.js';
import { runtimeDriverOf } from '../runtime-drivers.js';
import { loadConfigOrSay } from './check-config.js';

const USAGE = 'usage: gcm-server runtime status [--json]';

/**
 * `gcm-server runtime status [--json]`: the operator's view of GET /cloud/admin/runtime without the
 * service: the driver is made from the environment as the service makes it (runtime-drivers.ts), asked for
 * its machines, and the store is read (only read) for the live lobbies of each region. A running service
 * holds the embedded store's exclusive lock: then the live counts are left out and the note says so (the
 * route has them). Exit 0 when every region has a ready node (or GCM_RUNTIME=none), 1 when one has not,
 * 2 on bad arguments or configuration.
 */
export async function runtimeStatus(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  const json = rest.includes('--json');
  const unknown = rest.filter((a) => a !== '--json');
  if (sub !== 'status' || unknown.length > 0) {
    process.stderr.write(
      `${sub === undefined ? 'missing subcommand' : `unknown argument "${sub !== 'status' ? sub : unknown[0]}"`}\n${USAGE}\n`,
    );
    return 2;
  }
  const config = loadConfigOrSay();
  if (config === undefined) return 2;
  let nodes: RuntimeNode[] = [];
  if (config.runtime.kind !== 'none') {
    let driver: ReturnType<typeof runtimeDriverOf>;
    try {
      driver = runtimeDriverOf(config);
    } catch (err) {
      // A configuration the driver refuses (swarm without GCM_REGISTRY, a region on two engines).
      process.stderr.write(`${(err as Error).message}\n`);
      return 2;
    }
    try {
      nodes = await driver.nodes({ [LOBBY_LABELS.owner]: ownerOf(config) });
    } finally {
      await driver.close();
    }
  }
  const { live, note } = await readLive(config);
  const view = runtimeView({
    kind: config.runtime.kind,
    regions: config.regions,
    nodes,
    live,
    nowMs: Date.now(),
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  } else {
    process.stdout.write(
      describe(view, note, process.stdout.isTTY === true && process.env.NO_COLOR === undefined),
    );
  }
  return view.regions.some((region) => region.problem !== undefined) ? 1 : 0;
}

/** The live lobbies per region, or why they were not read. */
async function readLive(config: Config): Promise<{ live?: Map<string, number>; note?: string }> {
  let store: ReturnType<typeof openStoreToRead>;
  try {
    store = openStoreToRead(config);
  } catch (err) {
    return { note: `live lobbies not read: ${(err as Error).message}` };
  }
  if (store === undefined) return { live: new Map() };
  try {
    return { live: await liveLobbiesByRegion(store.db) };
  } catch (err) {
    const busy = err instanceof Error && 'code' in err && String(err.code).startsWith('SQLITE_BUSY');
    return {
      note: busy
        ? 'live lobbies not read: the running service holds the embedded store (GET /cloud/admin/runtime has them)'
        : `live lobbies not read: ${(err as Error).message}`,
    };
  } finally {
    await store.close();
  }
}

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** Bytes as the operator reads a disk: MiB below a GiB, GiB above. */
function size(bytes: number): string {
  return bytes >= GIB ? `${(bytes / GIB).toFixed(1)} GiB` : `${(bytes / MIB).toFixed(1)} MiB`;
}

/** Plain text: the regions, then the machines, in columns; red marks trouble on a terminal only. */
function describe(view: GetRuntimeResponse, note: string | undefined, colour: boolean): string {
  const red = (text: string) => (colour ? `\u001b[31m${text}\u001b[0m` : text);
  const lines = [`runtime: ${view.kind}   checked ${view.checked_ts}`];
  if (view.kind === 'none')
    lines.push('GCM_RUNTIME=none: this service runs no lobby (an external data plane reports them)');
  lines.push('');
  lines.push(
    ...table(
      ['REGION', 'NODES', 'READY', 'CAPACITY', 'LOBBIES', 'LIVE', 'PROBLEM'],
      view.regions.map((r) => [
        r.region_id,
        String(r.nodes),
        String(r.nodes_ready),
        String(r.capacity),
        String(r.lobbies),
        r.live_lobbies === undefined ? '-' : String(r.live_lobbies),
        r.problem === undefined ? '' : red(r.problem),
      ]),
    ),
  );
  if (view.nodes.length > 0) {
    lines.push('');
    lines.push(
      ...table(
        [
          'NODE',
          'STATE',
          'AVAILABILITY',
          'ROLE',
          'REGIONS',
          'CPUS',
          'MEMORY',
          'CAPACITY',
          'LOBBIES',
          'ENGINE',
          'ADDRESS',
        ],
        view.nodes.map((n) => [
          n.name,
          n.state === 'ready' ? n.state : red(n.state),
          n.availability,
          n.role,
          n.region_ids.join(',') || '-',
          String(Math.round((n.cpu_nanos / 1e9) * 100) / 100),
          `${(n.memory_bytes / GIB).toFixed(1)} GiB`,
          String(n.capacity),
          String(n.lobbies),
          n.engine_version ?? '-',
          n.address,
        ]),
      ),
    );
    const disks = view.nodes.filter((n) => n.disk !== undefined);
    if (disks.length > 0) {
      lines.push('');
      lines.push(
        ...table(
          ['NODE', 'IMAGES', 'CONTAINERS', 'BUILD CACHE', 'VOLUMES', 'BUILDS', 'BUILDS SIZE', 'BUDGET'],
          disks.map((n) => {
            const d = n.disk as NonNullable<typeof n.disk>;
            const over = d.budget_bytes !== undefined && d.service_images_bytes >= d.budget_bytes;
            return [
              n.name,
              size(d.images_bytes),
              size(d.containers_bytes),
              size(d.build_cache_bytes),
              size(d.volumes_bytes),
              String(d.service_images),
              over ? red(size(d.service_images_bytes)) : size(d.service_images_bytes),
              d.budget_bytes === undefined ? '-' : size(d.budget_bytes),
            ];
          }),
        ),
      );
    }
    for (const n of view.nodes) {
      if (n.message !== undefined) lines.push(`${n.name}: ${red(n.message)}`);
    }
  }
  if (note !== undefined) lines.push('', note);
  return `${lines.join('\n')}\n`;
}

/** Rows padded into columns (the widths of what is printed, escapes left out). */
function table(head: string[], rows: string[][]): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour escapes are measured out on purpose
  const shown = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => shown(row[i] ?? ''))));
  return [head, ...rows].map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - shown(cell))))
      .join('  ')
      .trimEnd(),
  );
}
