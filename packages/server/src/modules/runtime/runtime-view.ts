import {
  type GetRuntimeResponse,
  RUNTIME_VIEW_LIMITS,
  type RuntimeNodeDisk,
  type RuntimeNodeView,
} from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { toTimestamp } from '../../lib/clock.js';
import type { EngineDisk, RuntimeNode } from '../../runtime/driver.js';
import { countLiveByRegion } from './runtime.repository.js';

/**
 * The operator's view of the runtime (GET /cloud/admin/runtime): what the orchestrator reports of its
 * machines now, by region, beside the live lobbies the database holds.
 */
export async function getRuntimeView(deps: Deps): Promise<GetRuntimeResponse> {
  const [nodes, live] = await Promise.all([
    deps.runtime.nodes?.() ?? Promise.resolve([]),
    countLiveByRegion(deps.db),
  ]);
  return runtimeView({
    kind: deps.runtime.kind,
    regions: deps.config.regions,
    nodes,
    live,
    nowMs: deps.clock.now(),
  });
}

/** The live lobbies of each region, read from the database (`gcm-server runtime status` reads them too). */
export function liveLobbiesByRegion(db: Db): Promise<Map<string, number>> {
  return countLiveByRegion(db);
}

/**
 * The answer from what was read: every region of GCM_REGIONS, with a `problem` when no ready, active machine
 * serves it (with GCM_RUNTIME=none nothing is expected to run, so none says so). `live` undefined: the
 * store was not read, and live_lobbies is left out.
 */
export function runtimeView(input: {
  kind: GetRuntimeResponse['kind'];
  regions: readonly string[];
  nodes: readonly RuntimeNode[];
  live: ReadonlyMap<string, number> | undefined;
  nowMs: number;
}): GetRuntimeResponse {
  const regions = input.regions.map((region) => {
    const serving = input.nodes.filter((node) => node.regions.includes(region));
    const takes = serving.filter((node) => node.state === 'ready' && node.availability === 'active');
    const summary: GetRuntimeResponse['regions'][number] = {
      region_id: region,
      nodes: serving.length,
      nodes_ready: takes.length,
      capacity: takes.reduce((sum, node) => sum + node.capacity, 0),
      lobbies: serving.reduce((sum, node) => sum + (node.lobbiesByRegion?.[region] ?? node.lobbies), 0),
    };
    if (input.live !== undefined) summary.live_lobbies = input.live.get(region) ?? 0;
    if (input.kind !== 'none' && takes.length === 0) {
      summary.problem =
        serving.length === 0
          ? `no node serves region ${region}`
          : `no ready node serves region ${region} (${serving.map(nodeState).join(', ')})`;
    }
    return summary;
  });
  return {
    kind: input.kind,
    checked_ts: toTimestamp(input.nowMs),
    regions: regions.slice(0, RUNTIME_VIEW_LIMITS.regions),
    nodes: input.nodes.slice(0, RUNTIME_VIEW_LIMITS.nodes).map(nodeView),
  };
}

function nodeState(node: RuntimeNode): string {
  return `${node.name}: ${node.state === 'ready' ? node.availability : node.state}`;
}

function nodeView(node: RuntimeNode): RuntimeNodeView {
  return {
    id: node.id,
    name: node.name,
    address: node.address,
    region_ids: [...node.regions],
    role: node.role,
    state: node.state,
    availability: node.availability,
    cpu_nanos: Math.max(0, Math.round(node.nanoCpus)),
    memory_bytes: Math.max(0, Math.round(node.memoryBytes)),
    capacity: node.capacity,
    lobbies: node.lobbies,
    ...(node.engineVersion === undefined ? {} : { engine_version: node.engineVersion.slice(0, 200) }),
    ...(node.disk === undefined ? {} : { disk: diskView(node.disk) }),
    ...(node.message === undefined
      ? {}
      : { message: node.message.slice(0, RUNTIME_VIEW_LIMITS.messageChars) }),
  };
}

function diskView(disk: EngineDisk): RuntimeNodeDisk {
  const bytes = (n: number) => Math.max(0, Math.round(n));
  return {
    images_bytes: bytes(disk.imagesBytes),
    containers_bytes: bytes(disk.containersBytes),
    build_cache_bytes: bytes(disk.buildCacheBytes),
    volumes_bytes: bytes(disk.volumesBytes),
    service_images: bytes(disk.serviceImages),
    service_images_bytes: bytes(disk.serviceImagesBytes),
    ...(disk.budgetBytes === undefined ? {} : { budget_bytes: bytes(disk.budgetBytes) }),
  };
}
