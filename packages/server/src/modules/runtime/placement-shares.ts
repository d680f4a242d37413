/**
 * How a host's lobby capacity is shared between the tenants that run on it (docs/runtime.md "What a tenant
 * is guaranteed: lobby capacity"). Pure arithmetic, so the rule is tested (and mutated) without an engine.
 *
 * A tenant is a namespace; namespaces belong to games. A namespace whose version keeps idle lobbies on the
 * host (idle_lobbies.min > 0 in a region the host serves) reserves free slots for its next lobbies: its idle
 * minimum, as long as it runs fewer than its share of the host. Its share is the host's capacity over the
 * namespaces that reserve there, and a game's reservations together stop at the capacity over the games that
 * reserve there, so a game cannot multiply its guarantee by making namespaces. Any other placement may take
 * only what those reservations leave free: one tenant's flood of finds or creates fills the rest of the host
 * and then is refused (`host-share`), while every other tenant can still start its idle minimum at once.
 */

/** One namespace on a host, as the share rule reads it. */
export interface HostTenant {
  namespaceId: string;
  gameId: string;
  /** Its lobbies on the host that run or are about to (starting, ready, stopping). */
  live: number;
  /** The sum of its game modes' idle_lobbies.min over the regions the host serves (0: it reserves nothing). */
  idleMin: number;
}

export type ShareVerdict = 'ok' | 'host-full' | 'host-share';

/** Each reserving namespace's and game's share of a host of `capacity`. */
export function sharesOf(
  capacity: number,
  tenants: readonly HostTenant[],
): { namespaceShare: number; gameShare: number } {
  const reserving = tenants.filter((t) => t.idleMin > 0);
  const games = new Set(reserving.map((t) => t.gameId)).size;
  return {
    namespaceShare: reserving.length === 0 ? 0 : Math.floor(capacity / reserving.length),
    gameShare: games === 0 ? 0 : Math.floor(capacity / games),
  };
}

/** The free slots a namespace reserves: its idle minimum, within what its share leaves it. */
export function namespaceReservation(tenant: HostTenant, namespaceShare: number): number {
  return Math.max(0, Math.min(tenant.idleMin, namespaceShare - tenant.live));
}

/**
 * The free slots a placement for `asking` must leave: every other game's reservations (together at most
 * what the game's share leaves it), and the asking game's other namespaces' own (a game's staging flood
 * cannot take its production's idle minimum either).
 */
export function reservedFromOthers(
  capacity: number,
  tenants: readonly HostTenant[],
  asking: { namespaceId: string; gameId: string },
): number {
  const { namespaceShare, gameShare } = sharesOf(capacity, tenants);
  const byGame = new Map<string, { live: number; reserved: number }>();
  let siblings = 0;
  for (const tenant of tenants) {
    if (tenant.namespaceId === asking.namespaceId) continue;
    const reserved = namespaceReservation(tenant, namespaceShare);
    if (tenant.gameId === asking.gameId) {
      siblings += reserved;
      continue;
    }
    const game = byGame.get(tenant.gameId) ?? { live: 0, reserved: 0 };
    game.live += tenant.live;
    game.reserved += reserved;
    byGame.set(tenant.gameId, game);
  }
  let others = 0;
  for (const game of byGame.values()) others += Math.min(game.reserved, Math.max(0, gameShare - game.live));
  return others + siblings;
}

/**
 * Whether one more lobby of `asking` fits a host of `capacity` that runs `liveOnHost` lobbies (every tenant's,
 * those of namespaces no longer configured included): `host-full` when the host is at its capacity,
 * `host-share` when the free slots left are other tenants' reservations.
 */
export function placementVerdict(
  capacity: number,
  liveOnHost: number,
  tenants: readonly HostTenant[],
  asking: { namespaceId: string; gameId: string },
): ShareVerdict {
  if (liveOnHost >= capacity) return 'host-full';
  if (liveOnHost + 1 + reservedFromOthers(capacity, tenants, asking) > capacity) return 'host-share';
  return 'ok';
}
