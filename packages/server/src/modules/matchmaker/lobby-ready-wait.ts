import type { Deps } from '../../deps.js';
import * as repo from './matchmaker-players.repository.js';

/**
 * How often a waiting find/create reads its lobby's row again: on PostgreSQL another instance may take the
 * lobby's ready call (no event here), and a lobby that fails to start is only seen in its row.
 */
const REREAD_MS = 500;

/** Players waiting in this process for a lobby's ready, by lobby id. */
const waiting = new Map<string, Set<() => void>>();

/** The lobby called ready (on this instance): its waiting players read its row now. */
export function lobbyBecameReady(lobbyId: string): void {
  for (const wake of waiting.get(lobbyId) ?? []) wake();
}

export type ReadyWait =
  | { ready: true; lobby: repo.TakenLobby }
  | { ready: false; why: 'timeout' | 'stopped' };

/**
 * Waits up to `timeoutMs` for the lobby to be ready, woken by its ready call and reading its row at least
 * every REREAD_MS; answers at once when it stopped (or is stopping) instead: it will never take the player.
 */
export async function waitForReady(
  deps: Deps,
  namespaceId: string,
  lobbyId: string,
  timeoutMs: number,
): Promise<ReadyWait> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => undefined;
  const wakes = waiting.get(lobbyId) ?? new Set<() => void>();
  waiting.set(lobbyId, wakes);
  try {
    for (;;) {
      // Listening before the read: a ready call between the read and the wait still wakes it.
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
        wakes.add(resolve);
      });
      const row = await repo.lobbyForWait(deps.db, namespaceId, lobbyId);
      if (row?.run_state === 'ready') {
        const { lobby_id, region_id, ports, public_host } = row;
        return { ready: true, lobby: { lobby_id, region_id, ports, public_host } };
      }
      if (row === undefined || row.run_state !== 'starting') return { ready: false, why: 'stopped' };
      const left = deadline - Date.now();
      if (left <= 0) return { ready: false, why: 'timeout' };
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        woken,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.min(left, REREAD_MS));
        }),
      ]);
      clearTimeout(timer);
      wakes.delete(wake);
    }
  } finally {
    wakes.delete(wake);
    if (wakes.size === 0 && waiting.get(lobbyId) === wakes) waiting.delete(lobbyId);
  }
}
