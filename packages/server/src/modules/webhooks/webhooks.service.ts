import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  type CreateWebhookBody,
  type CreateWebhookResponse,
  type PageQuery,
  quote,
  type UpdateWebhookBody,
  WEBHOOKS_PER_SCOPE_MAX,
  type Webhook,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookEventType,
} from '@gcm/contract';
import type { Selectable } from 'kysely';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/database.js';
import { assertGameExists, teamExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { deleteInBatches } from '../../lib/batched-delete.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import { isInternalAddress, isInternalName } from '../../lib/public-address.js';
import * as repo from './webhooks.repository.js';

export type { Scope } from './webhooks.repository.js';

const DAY_MS = 86_400_000;

export function gameScope(gameId: string): repo.Scope {
  return { column: 'game_id', id: gameId };
}

export function teamScope(teamId: string): repo.Scope {
  return { column: 'team_id', id: teamId };
}

async function assertScope(deps: Deps, scope: repo.Scope): Promise<void> {
  if (scope.column === 'game_id') await assertGameExists(deps, scope.id);
  else if (!(await teamExists(deps.db, scope.id))) throw errors.teamNotFound();
}

/** A new signing secret: 256 random bits, prefixed so that a leaked one is recognisable (secret scanners). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Why a URL may not receive deliveries, or undefined. https:// to a public host only, unless the operator
 * allows http:// (GCM_WEBHOOK_ALLOW_HTTP) or internal hosts (GCM_WEBHOOK_ALLOW_INTERNAL) for a receiver
 * on their own network. Names are checked again when resolved, at each delivery (lib/public-address.ts).
 */
export function webhookUrlProblem(
  raw: string,
  allow: { http: boolean; internal: boolean },
): { rule: string; message: string } | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { rule: 'invalid', message: `url ${quote(raw)} is not an absolute URL` };
  }
  if (url.protocol !== 'https:' && !(allow.http && url.protocol === 'http:')) {
    return {
      rule: 'invalid-scheme',
      message: allow.http ? 'url must be an http:// or https:// URL' : 'url must be an https:// URL',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      rule: 'credentials',
      message: 'url must not carry a user name or password: check the Gcm-Signature header instead',
    };
  }
  if (url.hash !== '') return { rule: 'fragment', message: 'url must not have a #fragment' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const internal = isIP(host) !== 0 ? isInternalAddress(host) : isInternalName(host);
  if (internal && !allow.internal) {
    return {
      rule: 'internal-host',
      message:
        'url points at an internal host (loopback, private, link-local, shared or reserved addresses, ' +
        'localhost, .local)',
    };
  }
  return undefined;
}

function checkUrl(deps: Deps, raw: string): void {
  const problem = webhookUrlProblem(raw, {
    http: deps.config.webhooks.allowHttp,
    internal: deps.config.webhooks.allowInternal,
  });
  if (problem !== undefined) {
    throw errors.validation([{ path: ['url', problem.rule], message: problem.message }]);
  }
}

export function toWebhook(row: WebhookEndpointsTable): Webhook {
  return {
    webhook_id: row.webhook_id,
    ...(row.game_id === null ? {} : { game_id: row.game_id }),
    ...(row.team_id === null ? {} : { team_id: row.team_id }),
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    enabled: Number(row.enabled) === 1,
    create_ts: toTimestamp(Number(row.create_ts)),
    update_ts: toTimestamp(Number(row.update_ts)),
  };
}

/** In one transaction with the outbox's invalidation, so every instance hears of it when it commits. */
async function changing<T>(deps: Deps, work: (trx: Deps['db']) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const result = await work(trx);
      await deps.webhooks.publish(trx);
      return result;
    });
  } finally {
    deps.webhooks.changed();
  }
}

export async function createWebhook(
  deps: Deps,
  scope: repo.Scope,
  body: CreateWebhookBody,
): Promise<CreateWebhookResponse> {
  checkUrl(deps, body.url);
  await assertScope(deps, scope);
  const now = deps.clock.now();
  const row: WebhookEndpointsTable = {
    webhook_id: newId(),
    game_id: scope.column === 'game_id' ? scope.id : null,
    team_id: scope.column === 'team_id' ? scope.id : null,
    url: body.url,
    description: body.description ?? '',
    events: JSON.stringify(body.events),
    secret: newSecret(),
    enabled: body.enabled === false ? 0 : 1,
    create_ts: now,
    update_ts: now,
  };
  await changing(deps, async (trx) => {
    // Counted inside the transaction: two creates racing for the last place cannot both take it on SQLite;
    // on PostgreSQL the limit may be passed by the racers at most, a bound on rows rather than a rule.
    if ((await repo.countEndpoints(trx, scope)) >= WEBHOOKS_PER_SCOPE_MAX) {
      throw errors.webhookLimitReached(WEBHOOKS_PER_SCOPE_MAX);
    }
    await repo.insertEndpoint(trx, row);
  });
  return { webhook: toWebhook(row), secret: row.secret };
}

async function endpointOrThrow(deps: Deps, scope: repo.Scope, webhookId: string) {
  await assertScope(deps, scope);
  const row = await repo.findEndpoint(deps.db, scope, webhookId);
  if (row === undefined) throw errors.webhookNotFound();
  return row;
}

export async function listWebhooks(deps: Deps, scope: repo.Scope) {
  await assertScope(deps, scope);
  return { webhooks: (await repo.listEndpoints(deps.db, scope)).map(toWebhook) };
}

export async function getWebhook(deps: Deps, scope: repo.Scope, webhookId: string) {
  return { webhook: toWebhook(await endpointOrThrow(deps, scope, webhookId)) };
}

export async function updateWebhook(
  deps: Deps,
  scope: repo.Scope,
  webhookId: string,
  body: UpdateWebhookBody,
) {
  if (body.url !== undefined) checkUrl(deps, body.url);
  await endpointOrThrow(deps, scope, webhookId);
  const found = await changing(deps, async (trx) =>
    repo.updateEndpoint(trx, scope, webhookId, {
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.events === undefined ? {} : { events: JSON.stringify(body.events) }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled ? 1 : 0 }),
      update_ts: deps.clock.now(),
    }),
  );
  if (!found) throw errors.webhookNotFound();
  return getWebhook(deps, scope, webhookId);
}

export async function deleteWebhook(deps: Deps, scope: repo.Scope, webhookId: string): Promise<void> {
  await assertScope(deps, scope);
  if (!(await changing(deps, (trx) => repo.deleteEndpoint(trx, scope, webhookId)))) {
    throw errors.webhookNotFound();
  }
}

/** A new secret, answered once; deliveries from now on (retries included) are signed with it. */
export async function rotateWebhookSecret(deps: Deps, scope: repo.Scope, webhookId: string) {
  await endpointOrThrow(deps, scope, webhookId);
  const secret = newSecret();
  const found = await repo.updateEndpoint(deps.db, scope, webhookId, {
    secret,
    update_ts: deps.clock.now(),
  });
  if (!found) throw errors.webhookNotFound();
  return { secret };
}

/** The secret of an endpoint, for an Idempotency-Key replay of its creation (the stored answer has none). */
export async function webhookSecretOf(deps: Deps, webhookId: string): Promise<string | undefined> {
  const row = await deps.db
    .selectFrom('webhook_endpoints')
    .select('secret')
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return row?.secret;
}

/** Queues a `ping` to this endpoint alone: a receiver's set-up can be checked without waiting for events. */
export async function pingWebhook(deps: Deps, scope: repo.Scope, webhookId: string) {
  const endpoint = await endpointOrThrow(deps, scope, webhookId);
  const deliveryId = await deps.webhooks.direct(
    deps.db,
    webhookId,
    { game_id: endpoint.game_id, team_id: endpoint.team_id },
    { type: 'ping', resourceKey: `ping:${newId()}`, data: { webhook_id: webhookId } },
  );
  return { delivery_id: deliveryId };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    create_ts: toTimestamp(Number(row.create_ts)),
    state: row.state,
    ...(row.state === 'pending' ? { next_attempt_ts: toTimestamp(Number(row.next_attempt_ts)) } : {}),
    ...(row.delivered_ts === null ? {} : { delivered_ts: toTimestamp(Number(row.delivered_ts)) }),
    attempts: JSON.parse(row.attempts) as WebhookAttempt[],
    payload: JSON.parse(row.payload) as unknown,
  };
}

/** The delivery log: newest first and paged, 20 a page unless `limit` says otherwise. */
export async function listWebhookDeliveries(
  deps: Deps,
  scope: repo.Scope,
  webhookId: string,
  query: PageQuery,
): Promise<WebhookDeliveryList> {
  await endpointOrThrow(deps, scope, webhookId);
  // Each delivery carries its body and attempts: a smaller default page than the other lists.
  const page = readPage('deliveries', query, 20);
  const rows = await repo.listDeliveries(deps.db, webhookId, page.after, page.limit + 1);
  const { items, cursor } = pageOf('deliveries', rows, page.limit, (r) => ({
    ts: Number(r.create_ts),
    id: r.delivery_id,
  }));
  return { deliveries: items.map(toDelivery), ...cursorField(cursor) };
}

/**
 * Sends a delivery again (after the receiver is fixed, say): a new delivery of the same event and body,
 * queued behind any still pending for the same resource.
 */
export async function redeliverWebhook(deps: Deps, scope: repo.Scope, webhookId: string, deliveryId: string) {
  await endpointOrThrow(deps, scope, webhookId);
  const original = await repo.findDelivery(deps.db, webhookId, deliveryId);
  if (original === undefined) throw errors.webhookDeliveryNotFound();
  const newDeliveryId = await deps.webhooks.direct(
    deps.db,
    webhookId,
    { game_id: original.game_id, team_id: original.team_id },
    {
      type: original.event_type as WebhookEventType | 'ping',
      resourceKey: original.resource_key,
      dedupeKey: `redelivery:${newId()}`,
      data: {},
    },
    { eventId: original.event_id, body: original.payload },
  );
  return { delivery_id: newDeliveryId };
}

/** A retired game's endpoints and deliveries (the purge), a deleted team's (its deletion). */
export async function deleteWebhooksOf(deps: Deps, scope: repo.Scope): Promise<number> {
  return changing(deps, (trx) => repo.deleteEndpointsOf(trx, scope));
}

/** The retention job's pass: deliveries older than GCM_WEBHOOK_RETENTION_DAYS go, sent or not. */
export async function deleteExpiredDeliveries(deps: Deps): Promise<number> {
  const before = deps.clock.now() - deps.config.webhooks.retentionDays * DAY_MS;
  return deleteInBatches(10_000, (batch) => repo.deleteDeliveriesBefore(deps.db, before, batch));
}
