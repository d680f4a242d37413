import type { Config } from './config.js';
import { ownerOf } from './modules/runtime/runtime.service.js';
import { DockerDriver, dockerHostsFromRegions } from './runtime/docker/docker-driver.js';
import { dockerHostFromEnv, dockerTlsFromEnv } from './runtime/docker/engine.js';
import type { RuntimeDriver } from './runtime/driver.js';
import { SwarmDriver } from './runtime/swarm/swarm-driver.js';

/*
 * The runtime driver made from the configuration: the service's start (composition-root.ts) and
 * `gcm-server runtime status` (scripts/runtime-status.ts) make it here, so both see the same machines.
 * Making one connects to nothing: engines are first called when the driver is used.
 */

/** The driver GCM_RUNTIME names (docker or swarm). */
export function runtimeDriverOf(config: Config): RuntimeDriver {
  return config.runtime.kind === 'swarm' ? swarmDriver(config) : dockerDriver(config);
}

/**
 * The swarm's manager at GCM_SWARM_MANAGER, else DOCKER_HOST (with DOCKER_TLS_VERIFY / DOCKER_CERT_PATH as Docker reads them); builds
 * go through GCM_REGISTRY.
 */
function swarmDriver(config: Config): SwarmDriver {
  const tls = dockerTlsFromEnv(process.env);
  const { registry, registryUsername, registryPassword } = config.runtime;
  if (registry === undefined) throw new Error('GCM_RUNTIME=swarm needs GCM_REGISTRY');
  return new SwarmDriver({
    managerHost: config.runtime.swarmManager ?? dockerHostFromEnv(process.env),
    ...(tls === undefined ? {} : { tls }),
    regions: config.regions,
    capacityPerNode: config.runtime.maxLobbiesPerHost,
    ...imageOptions(config),
    maxUnpackedBytes: config.runtime.maxUnpackedBytes,
    registry: {
      address: registry,
      ...(registryUsername === undefined ? {} : { username: registryUsername, password: registryPassword }),
    },
  });
}

/**
 * Each region on its GCM_RUNTIME_HOSTS engine, or on DOCKER_HOST (Docker's own variable, read as Docker
 * reads it, with DOCKER_TLS_VERIFY / DOCKER_CERT_PATH); regions on one engine share its capacity.
 */
function dockerDriver(config: Config): DockerDriver {
  const fallback = dockerHostFromEnv(process.env);
  const regionHosts = Object.fromEntries(
    config.regions.map((region) => [region, config.runtime.hosts[region] ?? fallback]),
  );
  const tls = dockerTlsFromEnv(process.env);
  return new DockerDriver({
    hosts: dockerHostsFromRegions(regionHosts, config.runtime.maxLobbiesPerHost),
    maxUnpackedBytes: config.runtime.maxUnpackedBytes,
    ...(tls === undefined ? {} : { tls }),
    ...imageOptions(config),
  });
}

/** Whose images the driver loads (what its collector may remove), and the budget they keep to. */
function imageOptions(config: Config): { owner: string; imageDiskBudgetBytes?: number } {
  const budget = config.runtime.imageDiskBudgetBytes;
  return { owner: ownerOf(config), ...(budget > 0 ? { imageDiskBudgetBytes: budget } : {}) };
}
