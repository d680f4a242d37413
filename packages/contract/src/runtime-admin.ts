import { type Static, Type } from 'typebox';
import { Timestamp } from './common.js';

/**
 * The operator's view of the runtime (GET /cloud/admin/runtime, `gcm-server runtime status`): the machines
 * lobbies run on, by region, as the orchestrator reports them, beside the live lobbies the database holds.
 */
export const RUNTIME_VIEW_LIMITS = {
  /** Regions in one answer (every one of GCM_REGIONS). */
  regions: 1000,
  /** Machines in one answer (engines of the docker driver, nodes of a swarm). */
  nodes: 10_000,
  /** An orchestrator's message is cut to this many characters. */
  messageChars: 2000,
} as const;

const RegionId = Type.String({ maxLength: 32, description: 'a region name id (GCM_REGIONS)' });
const Count = Type.Integer({ minimum: 0 });

export const RuntimeKind = Type.Union([Type.Literal('none'), Type.Literal('docker'), Type.Literal('swarm')], {
  description:
    'GCM_RUNTIME: none runs no lobby (nodes is empty), docker runs them on engines, swarm on a swarm',
});
export type RuntimeKind = Static<typeof RuntimeKind>;

export const RuntimeRegionSummary = Type.Object({
  region_id: RegionId,
  nodes: { ...Count, description: 'machines that serve the region, whatever their state' },
  nodes_ready: {
    ...Count,
    description: 'of those, the ready ones that take new lobbies (availability active)',
  },
  capacity: {
    ...Count,
    description: 'lobbies the ready, active machines take in all (each counted once per region)',
  },
  lobbies: {
    ...Count,
    description: "this service's lobbies the orchestrator runs on the region's machines now",
  },
  live_lobbies: Type.Optional({
    ...Count,
    description:
      "the database's lobbies of the region the runtime runs or is about to (starting, ready, stopping); " +
      "always in the route's answer, absent from `gcm-server runtime status` when it could not read the store",
  }),
  problem: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'why new lobbies of the region cannot start (no ready node serves it); absent when they can',
    }),
  ),
});
export type RuntimeRegionSummary = Static<typeof RuntimeRegionSummary>;

const Bytes = Type.Integer({ minimum: 0 });

export const RuntimeNodeDisk = Type.Object(
  {
    images_bytes: { ...Bytes, description: "every image's layers on the engine, shared layers once" },
    containers_bytes: { ...Bytes, description: 'what containers wrote on top of their images' },
    build_cache_bytes: { ...Bytes, description: "the engine's build cache" },
    volumes_bytes: { ...Bytes, description: 'volumes' },
    service_images: {
      ...Count,
      description: "build images this service loaded there and keeps (the image collector's)",
    },
    service_images_bytes: {
      ...Bytes,
      description: 'their sizes summed, each image whole (layers they share counted in each)',
    },
    budget_bytes: Type.Optional({
      ...Bytes,
      description:
        'GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: past it no further build is loaded there; absent: no budget',
    }),
  },
  { description: "the engine's disk as it counts it (GET /system/df of the Engine API)" },
);
export type RuntimeNodeDisk = Static<typeof RuntimeNodeDisk>;

export const RuntimeNodeView = Type.Object({
  id: Type.String({
    maxLength: 2048,
    description: "the orchestrator's id (an engine's DOCKER_HOST, a swarm node id)",
  }),
  name: Type.String({ maxLength: 2048, description: 'its host name, as its engine reports it' }),
  address: Type.String({
    maxLength: 2048,
    description: "where it is reached (DOCKER_HOST, a node's address)",
  }),
  region_ids: Type.Array(RegionId, { maxItems: RUNTIME_VIEW_LIMITS.regions }),
  role: Type.Union([Type.Literal('engine'), Type.Literal('manager'), Type.Literal('worker')]),
  state: Type.Union([Type.Literal('ready'), Type.Literal('down'), Type.Literal('unknown')]),
  availability: Type.Union([Type.Literal('active'), Type.Literal('pause'), Type.Literal('drain')]),
  cpu_nanos: { ...Count, description: "the machine's CPUs in billionths (0 when it does not answer)" },
  memory_bytes: { ...Count, description: "the machine's memory (0 when it does not answer)" },
  capacity: { ...Count, description: 'lobbies it takes at most (GCM_RUNTIME_MAX_LOBBIES_PER_HOST)' },
  lobbies: { ...Count, description: "this service's lobbies running there now" },
  engine_version: Type.Optional(Type.String({ maxLength: 200 })),
  disk: Type.Optional(RuntimeNodeDisk),
  message: Type.Optional(
    Type.String({
      maxLength: RUNTIME_VIEW_LIMITS.messageChars,
      description: "why it is down or not ready, in the orchestrator's words",
    }),
  ),
});
export type RuntimeNodeView = Static<typeof RuntimeNodeView>;

export const GetRuntimeResponse = Type.Object({
  kind: RuntimeKind,
  checked_ts: Timestamp,
  regions: Type.Array(RuntimeRegionSummary, { maxItems: RUNTIME_VIEW_LIMITS.regions }),
  nodes: Type.Array(RuntimeNodeView, { maxItems: RUNTIME_VIEW_LIMITS.nodes }),
});
export type GetRuntimeResponse = Static<typeof GetRuntimeResponse>;
