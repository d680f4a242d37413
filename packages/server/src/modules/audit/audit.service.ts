import {
  type AuditActor,
  type AuditActorKind,
  type AuditEvent,
  type AuditList,
  auditOutcome,
  type PageQuery,
} from '@gcm/contract';
import type { AuditEventsTable } from '../../db/database.js';
import { assertGameExists, teamExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { deleteInBatches } from '../../lib/batched-delete.js';
import { toTimestamp } from '../../lib/clock.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import * as repo from './audit.repository.js';

const DAY_MS = 86_400_000;

function actorOf(row: AuditEventsTable): AuditActor {
  return {
    kind: row.actor_kind as AuditActorKind,
    ...(row.actor_token_id === null ? {} : { token_id: row.actor_token_id }),
    ...(row.actor_user_id === null ? {} : { user_id: row.actor_user_id }),
    ...(row.actor_email === null ? {} : { email: row.actor_email }),
  };
}

function eventOf(row: AuditEventsTable): AuditEvent {
  const status = Number(row.status);
  return {
    event_id: row.event_id,
    ts: toTimestamp(Number(row.ts)),
    actor: actorOf(row),
    operation: row.operation,
    method: row.method,
    path: row.path,
    ...(row.game_id === null ? {} : { game_id: row.game_id }),
    ...(row.team_id === null ? {} : { team_id: row.team_id }),
    resource: JSON.parse(row.resource) as Record<string, string>,
    status,
    outcome: auditOutcome(status),
    ray_id: row.ray_id,
  };
}

async function listOf(
  deps: Deps,
  scope: { column: 'game_id' | 'team_id'; id: string } | undefined,
  query: PageQuery,
): Promise<AuditList> {
  const page = readPage('audit', query);
  const rows = await repo.listEvents(deps.db, scope, page.after, page.limit + 1);
  const { items, cursor } = pageOf('audit', rows, page.limit, (r) => ({ ts: Number(r.ts), id: r.event_id }));
  return { events: items.map(eventOf), ...cursorField(cursor) };
}

export async function listGameAudit(deps: Deps, gameId: string, query: PageQuery): Promise<AuditList> {
  await assertGameExists(deps, gameId);
  return listOf(deps, { column: 'game_id', id: gameId }, query);
}

export async function listTeamAudit(deps: Deps, teamId: string, query: PageQuery): Promise<AuditList> {
  if (!(await teamExists(deps.db, teamId))) throw errors.teamNotFound();
  return listOf(deps, { column: 'team_id', id: teamId }, query);
}

/**
 * Every event, the operator's view: with those no game's or team's list shows (refused calls to
 * operator-only routes, calls naming a team their caller is not in).
 */
export function listAllAudit(deps: Deps, query: PageQuery): Promise<AuditList> {
  return listOf(deps, undefined, query);
}

/** The retention job's pass: deletes events older than GCM_AUDIT_RETENTION_DAYS. */
export async function deleteExpiredAuditEvents(deps: Deps): Promise<number> {
  const before = deps.clock.now() - deps.config.auditRetentionDays * DAY_MS;
  return deleteInBatches(10_000, (batch) => repo.deleteEventsBefore(deps.db, before, batch));
}
