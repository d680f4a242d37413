import { type Schema, unwrap } from '@gcm/sdk';
import type { Context } from '../context.js';
import { note, printJson } from '../output.js';
import { terminalSafe } from '../terminal-text.js';

type Rollout = Schema<'NamespaceRollout'>;
type FailedLobby = Rollout['failed'][number];

export interface WaitOptions {
  timeoutMs: number;
  intervalMs: number;
}

/**
 * One line for people: per region, the current version's idle lobbies ready out of those wanted, how many
 * are starting, and why a region cannot run lobbies ("lnd-atl: 2/2 ready; lnd-fra: 1/2 ready, 1 starting;
 * eu: 0/2 ready — no ready node: …").
 */
export function progressLine(rollout: Rollout): string {
  const regions = new Map<string, { ready: number; wanted: number; starting: number }>();
  for (const group of rollout.groups) {
    if (group.version_id !== rollout.version_id) continue;
    const region = regions.get(group.region_id) ?? { ready: 0, wanted: 0, starting: 0 };
    region.ready += Math.min(group.lobbies.ready_idle, group.idle_wanted);
    region.wanted += group.idle_wanted;
    region.starting += group.lobbies.starting;
    regions.set(group.region_id, region);
  }
  if (regions.size === 0) return 'no game mode of the version runs a container';
  const problems = new Map((rollout.problems ?? []).map((p) => [p.region_id, p.message]));
  return [...regions]
    .map(([name, r]) => {
      const problem = problems.get(name);
      return (
        `${name}: ${r.ready}/${r.wanted} ready${r.starting > 0 ? `, ${r.starting} starting` : ''}` +
        (problem === undefined ? '' : ` — ${problem}`)
      );
    })
    .join('; ');
}

function describeFailure(f: FailedLobby): string {
  const reason = f.stop_reason === undefined ? '' : `, ${f.stop_reason}`;
  return `lobby ${f.lobby_id} (${f.game_mode}, ${f.region_id}): exit code ${f.exit_code}${reason}`;
}

/**
 * `gcm deploy --wait`: polls the namespace's rollout until the version has every idle lobby it asks for
 * ready (true), or gives up (false) when the wait times out or when as many of its lobbies have failed since
 * the wait began as it wants idle ones (each place failed once on average: a server that cannot start).
 * Progress goes to stderr: rewritten in place on a terminal, a line per change otherwise.
 */
export async function waitForRollout(
  ctx: Context,
  path: { game_id: string; namespace_id: string },
  versionId: string,
  options: WaitOptions,
): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  const live = process.stderr.isTTY === true && !ctx.json;
  let known: Set<string> | undefined;
  let shown = '';
  let fresh: FailedLobby[] = [];
  const show = (line: string) => {
    if (line === shown) return;
    shown = line;
    if (live) process.stderr.write(`\r\x1b[K${terminalSafe(line, { keepNewlines: false })}`);
    else note(line);
  };
  for (;;) {
    const rollout = await unwrap(
      ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/rollout', { params: { path } }),
    );
    if (rollout.version_id !== versionId) {
      if (live) process.stderr.write('\n');
      note(`error: the namespace now runs version ${rollout.version_id}, not ${versionId}: another deploy?`);
      return false;
    }
    // Failures from before the wait (an earlier deploy of the same version) are not this rollout's.
    known ??= new Set(rollout.failed.map((f) => f.lobby_id));
    const seen = known;
    fresh = rollout.failed.filter((f) => !seen.has(f.lobby_id));
    const wanted = rollout.groups
      .filter((g) => g.version_id === versionId)
      .reduce((sum, g) => sum + g.idle_wanted, 0);
    show(`${progressLine(rollout)}${fresh.length > 0 ? ` (${fresh.length} failed)` : ''}`);
    const result = (complete: boolean, why: string) => {
      if (live) process.stderr.write('\n');
      if (ctx.json) {
        printJson({
          rollout_complete: complete,
          version_id: versionId,
          failed: fresh,
          problems: complete ? [] : (rollout.problems ?? []),
        });
      }
      note(why);
      for (const f of fresh) note(`  ${describeFailure(f)}`);
      return complete;
    };
    if (rollout.complete) return result(true, `Version ${versionId}: every idle lobby it asks for is ready`);
    if (fresh.length > 0 && fresh.length >= Math.max(1, wanted)) {
      return result(false, `error: ${fresh.length} lobby(ies) of the new version failed; it cannot start:`);
    }
    if (Date.now() + options.intervalMs > deadline) {
      // What keeps the version from its lobbies, when the service knows: said, not left to the progress line.
      const blocked = (rollout.problems ?? []).map((p) => `; ${p.region_id}: ${p.message}`).join('');
      return result(
        false,
        `error: the version's idle lobbies were not ready within ${options.timeoutMs / 1000} s${blocked}` +
          (fresh.length > 0 ? '; failed lobbies:' : ''),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}
