import { type Insertable, sql, type Updateable } from 'kysely';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import type { PageKey } from '../../lib/paging.js';

/** Whose endpoints: a game's or a team's. */
export interface Scope {
  column: 'game_id' | 'team_id';
  id: string;
}

// Literals, not parameters: a partial index (state = 'pending') is used only when the query says so itself.
const PENDING = sql.lit<WebhookDeliveriesTable['state']>('pending');

export async function countEndpoints(db: Db, scope: Scope): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where(scope.column, '=', scope.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertEndpoint(db: Db, row: Insertable<WebhookEndpointsTable>) {
  return db.insertInto('webhook_endpoints').values(row).execute();
}

export function listEndpoints(db: Db, scope: Scope) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(scope.column, '=', scope.id)
    .orderBy('create_ts')
    .orderBy('webhook_id')
    .execute();
}

export function findEndpoint(db: Db, scope: Scope, webhookId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where(scope.column, '=', scope.id)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

export async function updateEndpoint(
  db: Db,
  scope: Scope,
  webhookId: string,
  values: Updateable<WebhookEndpointsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(values)
    .where(scope.column, '=', scope.id)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The endpoint and its delivery log; false when the scope has no such endpoint. */
export async function deleteEndpoint(db: Db, scope: Scope, webhookId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where(scope.column, '=', scope.id)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) return false;
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute();
  return true;
}

/** Every endpoint of a scope (a retired game, a deleted team) and every delivery they had. */
export async function deleteEndpointsOf(db: Db, scope: Scope): Promise<number> {
  const ids = db.selectFrom('webhook_endpoints').select('webhook_id').where(scope.column, '=', scope.id);
  await db.deleteFrom('webhook_deliveries').where('webhook_id', 'in', ids).execute();
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where(scope.column, '=', scope.id)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A live game's team, and the enabled endpoints that hear its events (its own and its team's). */
export async function subscribersOfGame(db: Db, gameId: string) {
  const game = await db
    .selectFrom('games')
    .select('team_id')
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  if (game === undefined) return undefined;
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['webhook_id', 'events'])
    .where('enabled', '=', 1)
    .where((eb) =>
      game.team_id === null
        ? eb('game_id', '=', gameId)
        : eb.or([eb('game_id', '=', gameId), eb('team_id', '=', game.team_id)]),
    )
    .execute();
  return { teamId: game.team_id, endpoints };
}

export function subscribersOfTeam(db: Db, teamId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['webhook_id', 'events'])
    .where('enabled', '=', 1)
    .where('team_id', '=', teamId)
    .execute();
}

/** Queues deliveries; one whose endpoint already has its dedupe key is left out. */
export async function insertDeliveries(db: Db, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['webhook_id', 'dedupe_key']).doNothing())
    .execute();
}

/**
 * The endpoints with pending deliveries (due or not), in id order, at most `limit`: a loose index scan,
 * each step one lookup of the next id in webhook_deliveries_queue, so its cost grows with the endpoints that
 * have something pending, not with how much one of them has (a receiver down for a day).
 */
export async function endpointsWithPending(db: Db, limit: number): Promise<string[]> {
  const rows = await endpointsWithPendingQuery(db, limit).execute();
  return rows.map((row) => row.webhook_id as string);
}

/** endpointsWithPending's statement, for its plan to be checked. */
export function endpointsWithPendingQuery(db: Db, limit: number) {
  return db
    .withRecursive('queues(webhook_id)', (qc) =>
      qc
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min<string | null>('webhook_id').as('webhook_id'))
        .where('state', '=', PENDING)
        .unionAll((eb) =>
          eb
            .selectFrom('queues')
            .select((q) =>
              q
                .selectFrom('webhook_deliveries as n')
                .select((n) => n.fn.min<string | null>('n.webhook_id').as('next'))
                .where('n.state', '=', PENDING)
                .whereRef('n.webhook_id', '>', 'queues.webhook_id')
                .as('webhook_id'),
            )
            .where('queues.webhook_id', 'is not', null),
        ),
    )
    .selectFrom('queues')
    .select('webhook_id')
    .where('webhook_id', 'is not', null)
    .limit(limit);
}

/**
 * Of each endpoint in `take` (endpoint id → how many), that many of its oldest deliveries that are due now
 * and are the oldest pending delivery of their resource to the endpoint (a later event of a lobby waits
 * until the earlier one is delivered or given up); none of a disabled endpoint. One statement, a part per
 * endpoint, each read in `seq` order from webhook_deliveries_queue.
 */
export async function dueDeliveries(db: Db, now: number, take: ReadonlyMap<string, number>) {
  return take.size === 0 ? [] : dueDeliveriesQuery(db, now, take).execute();
}

/** dueDeliveries's statement (`take` not empty), for its plan to be checked. */
export function dueDeliveriesQuery(db: Db, now: number, take: ReadonlyMap<string, number>) {
  const parts = [...take].map(([webhookId, count]) =>
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.webhook_id', 'd.webhook_id')
      .select([
        'd.seq',
        'd.delivery_id',
        'd.webhook_id',
        'd.event_id',
        'd.event_type',
        'd.payload',
        'd.attempt_count',
        'd.attempts',
        'd.next_attempt_ts',
        'e.url',
        'e.secret',
      ])
      .where('d.webhook_id', '=', webhookId)
      .where('d.state', '=', PENDING)
      .where('d.next_attempt_ts', '<=', now)
      .where('e.enabled', '=', 1)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as p')
              .select('p.seq')
              .whereRef('p.webhook_id', '=', 'd.webhook_id')
              .whereRef('p.resource_key', '=', 'd.resource_key')
              .where('p.state', '=', PENDING)
              .whereRef('p.seq', '<', 'd.seq'),
          ),
        ),
      )
      .orderBy('d.seq')
      .limit(count),
  );
  const [first, ...rest] = parts;
  if (first === undefined) throw new Error('dueDeliveriesQuery needs at least one endpoint');
  // Each part keeps its own ORDER BY and LIMIT inside the union (a subquery), as both stores require.
  return rest.reduce(
    (all, part) => all.unionAll(db.selectFrom(part.as('x')).selectAll()),
    db.selectFrom(first.as('x')).selectAll(),
  );
}

/** Of `webhookIds`, the enabled endpoints. */
export async function enabledEndpoints(db: Db, webhookIds: readonly string[]): Promise<Set<string>> {
  if (webhookIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select('webhook_id')
    .where('webhook_id', 'in', webhookIds)
    .where('enabled', '=', 1)
    .execute();
  return new Set(rows.map((row) => row.webhook_id));
}

/**
 * Takes a due delivery for `untilTs`: true when this pass won it (no other instance, at a lease hand-over,
 * took it since it was read). Should the process die mid-send, the delivery is due again at `untilTs`.
 */
export async function claimDelivery(
  db: Db,
  seq: number,
  seenNext: number,
  untilTs: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_ts: untilTs })
    .where('seq', '=', seq)
    .where('state', '=', PENDING)
    .where('next_attempt_ts', '=', seenNext)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function recordAttempt(
  db: Db,
  seq: number,
  values: Pick<
    Updateable<WebhookDeliveriesTable>,
    'state' | 'attempt_count' | 'attempts' | 'next_attempt_ts' | 'delivered_ts'
  >,
) {
  return db.updateTable('webhook_deliveries').set(values).where('seq', '=', seq).execute();
}

/** One endpoint's delivery log, newest first. */
export function listDeliveries(db: Db, webhookId: string, after: PageKey | undefined, limit: number) {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple('create_ts', 'delivery_id'), '<', eb.tuple(after.ts, after.id)),
    );
  }
  return query.orderBy('create_ts', 'desc').orderBy('delivery_id', 'desc').limit(limit).execute();
}

export function findDelivery(db: Db, webhookId: string, deliveryId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
}

/** Retention: deletes deliveries made before `before` (epoch ms), a bounded batch at a time. */
export async function deleteDeliveriesBefore(db: Db, before: number, batch = 10_000): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where(
      'seq',
      'in',
      db.selectFrom('webhook_deliveries').select('seq').where('create_ts', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
