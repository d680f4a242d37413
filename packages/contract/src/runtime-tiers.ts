import type { TIERS } from './version-config/validate.js';

/**
 * What each tier a game mode's region names (`tier`, default basic-1d1) gives a lobby's container: a CPU
 * share, a memory limit (no swap beyond it) and a process limit. One table for the service (the container's
 * limits), the docs and the dashboard. basic-XdY is X cores divided by Y.
 */
export interface RuntimeTier {
  readonly name_id: (typeof TIERS)[number];
  readonly cores: number;
  readonly memory_mib: number;
  readonly pids: number;
}

export const RUNTIME_TIERS: readonly RuntimeTier[] = [
  { name_id: 'basic-4d1', cores: 4, memory_mib: 8192, pids: 256 },
  { name_id: 'basic-2d1', cores: 2, memory_mib: 4096, pids: 256 },
  { name_id: 'basic-1d1', cores: 1, memory_mib: 2048, pids: 256 },
  { name_id: 'basic-1d2', cores: 0.5, memory_mib: 1024, pids: 256 },
  { name_id: 'basic-1d4', cores: 0.25, memory_mib: 512, pids: 256 },
  { name_id: 'basic-1d8', cores: 0.125, memory_mib: 256, pids: 256 },
  { name_id: 'basic-1d16', cores: 0.0625, memory_mib: 128, pids: 256 },
];

/** The tier named `nameId`; undefined for a name the validator would refuse. */
export function runtimeTierOf(nameId: string): RuntimeTier | undefined {
  return RUNTIME_TIERS.find((tier) => tier.name_id === nameId);
}
