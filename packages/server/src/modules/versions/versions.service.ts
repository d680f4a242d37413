import type {
  PageQuery,
  ValidateFacts,
  VersionBody,
  VersionConfig,
  VersionList,
  VersionValidationResult,
} from '@gcm/contract';
import { imageIdsOf, resolveVersionConfig } from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import { findGame, gameExists, lockGame } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { type AppError, errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import type { VersionValidator } from './version-validator.js';
import * as repo from './versions.repository.js';

/** The runtime may be sent as `container` or (older clients) `docker`, never both at one place. */
function assertOneRuntimeName(config: VersionConfig): void {
  const mm = config.matchmaker;
  if (mm === null || mm === undefined) return;
  const both = (o: { container?: unknown; docker?: unknown }) =>
    o.container !== null && o.container !== undefined && o.docker !== null && o.docker !== undefined;
  if (both(mm)) {
    throw errors.badBody('body field "config.matchmaker" has both "container" and "docker"; send one', {
      field: 'config.matchmaker.docker',
    });
  }
  for (const [name, gm] of Object.entries(mm.game_modes ?? {})) {
    if (both(gm)) {
      const field = `config.matchmaker.game_modes.${name}`;
      throw errors.badBody(`body field "${field}" has both "container" and "docker"; send one`, {
        field: `${field}.docker`,
      });
    }
  }
}

/** What a validation needs to know about the game, read through `db` (a transaction when creating). */
async function factsOf(db: Db, deps: Deps, gameId: string, input: VersionBody): Promise<ValidateFacts> {
  const game = await findGame(db, gameId);
  if (game === undefined) throw errors.gameNotFound();
  const existing = await repo.listVersionSummaries(db, gameId);
  const buildIds = await repo.completedBuildIdsAmong(db, gameId, imageIdsOf(input.config));
  return {
    regions: deps.config.regions,
    // Only whether this name is taken matters: a game's thousand other names need not go to a worker.
    existingDisplayNames: existing.some((v) => v.display_name === input.display_name)
      ? [input.display_name]
      : [],
    hostNetworkingEnabled: game.host_networking_enabled === 1,
    buildIds: new Set(buildIds),
  };
}

/** Whether two readings of the facts give every rule the same answer. */
function sameFacts(a: ValidateFacts, b: ValidateFacts): boolean {
  return (
    a.existingDisplayNames.length === b.existingDisplayNames.length &&
    a.hostNetworkingEnabled === b.hostNetworkingEnabled &&
    a.buildIds?.size === b.buildIds?.size &&
    [...(a.buildIds ?? [])].every((id) => b.buildIds?.has(id))
  );
}

/** How a request's validation is run: on the event loop or in a worker, by its body's size. */
export interface ValidationRun {
  readonly validator: VersionValidator;
  readonly bodyBytes: number | undefined;
}

export async function validateGameVersion(
  deps: Deps,
  run: ValidationRun,
  gameId: string,
  input: VersionBody,
): Promise<VersionValidationResult> {
  assertOneRuntimeName(input.config);
  const facts = await factsOf(deps.db, deps, gameId, input);
  const found = await run.validator.validate({ input, facts }, run.bodyBytes);
  return { errors: found.errors, error_count: found.total };
}

export async function createVersion(
  deps: Deps,
  run: ValidationRun,
  gameId: string,
  input: VersionBody,
): Promise<string> {
  assertOneRuntimeName(input.config);
  // Validated before the transaction: a large configuration takes a worker tens of milliseconds, and the
  // transaction (on SQLite, the one connection) must not be held meanwhile.
  const facts = await factsOf(deps.db, deps, gameId, input);
  const found = await run.validator.validate({ input, facts }, run.bodyBytes);
  if (found.total > 0) throw errors.validation(found.errors, found.total);
  const versionId = newId();
  await deps.db.transaction().execute(async (trx) => {
    // Locks the game row first, so two creates with one display name cannot both pass the check.
    if (!(await lockGame(trx, gameId))) throw errors.gameNotFound();
    const now = await factsOf(trx, deps, gameId, input);
    // Another write changed the facts since (a version took the name, a build went): validate again,
    // under the lock this time. Rare, so the transaction is held for it.
    if (!sameFacts(facts, now)) {
      const again = await run.validator.validate({ input, facts: now }, run.bodyBytes);
      if (again.total > 0) throw errors.validation(again.errors, again.total);
    }
    await repo.insertVersion(trx, {
      version_id: versionId,
      game_id: gameId,
      display_name: input.display_name,
      config_json: JSON.stringify(input.config),
      create_ts: deps.clock.now(),
    });
  });
  return versionId;
}

export async function getVersion(deps: Deps, gameId: string, versionId: string, resolved: boolean) {
  const row = await repo.findVersion(deps.db, gameId, versionId);
  if (row === undefined) {
    if (!(await gameExists(deps.db, gameId))) throw errors.gameNotFound();
    throw errors.versionNotFound();
  }
  const config = JSON.parse(row.config_json) as VersionConfig;
  return {
    version_id: row.version_id,
    display_name: row.display_name,
    create_ts: toTimestamp(row.create_ts),
    config: resolved ? resolveVersionConfig(config, { regions: deps.config.regions }) : config,
  };
}

/** A page of the game's versions, newest first, without their configurations. */
export async function listVersions(deps: Deps, gameId: string, query: PageQuery): Promise<VersionList> {
  const page = readPage('versions', query);
  // A retired game keeps its versions, so their presence does not prove the game is there.
  if (!(await gameExists(deps.db, gameId))) throw errors.gameNotFound();
  const rows = await repo.listVersionPage(deps.db, gameId, page.after, page.limit + 1);
  const { items, cursor } = pageOf('versions', rows, page.limit, (r) => ({
    ts: r.create_ts,
    id: r.version_id,
  }));
  return {
    versions: items.map((r) => ({ ...r, create_ts: toTimestamp(r.create_ts) })),
    ...cursorField(cursor),
  };
}

/**
 * The error for a body's version_id (a namespace's version) that names no version of the game: it says
 * whether to pick another id or to create the game's first version.
 */
export async function versionToRunNotFound(db: Db, gameId: string): Promise<AppError> {
  return errors.versionToRunNotFound(await repo.gameHasVersion(db, gameId));
}

export function listRegions(deps: Deps) {
  return { regions: deps.config.regions.map((r) => ({ region_id: r, name_id: r })) };
}

/**
 * The builds any version of the game names (its image ids). Versions never change and any namespace may be
 * pointed at any of them, so a deleted namespace keeps these builds (purge.service.ts).
 */
export async function buildIdsNamedByVersions(deps: Deps, gameId: string): Promise<Set<string>> {
  const named = new Set<string>();
  for (const row of await repo.versionConfigsOf(deps.db, gameId)) {
    for (const id of imageIdsOf(JSON.parse(row.config_json) as VersionConfig)) named.add(id);
  }
  return named;
}

/** What other modules read of versions' rows: whether one exists (namespaces), the full game view. */
export { listVersionSummaries, versionExists } from './versions.repository.js';
