import type { WebhookEventBody } from '@gcm/contract';
import type { Insertable } from 'kysely';
import type { WebhookDeliveriesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import type { WebhookEvent, WebhookEvents } from '../../deps.js';
import type { CacheCoherence } from '../../lib/cache-coherence.js';
import { type Clock, toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { ReadCache } from '../../lib/read-cache.js';
import * as repo from './webhooks.repository.js';

interface Subscriber {
  webhook_id: string;
  /** The event types it hears, parsed once when the list is read (the cached list serves every report). */
  events: ReadonlySet<string>;
}

interface GameSubscribers {
  teamId: string | null;
  endpoints: Subscriber[];
}

/** Games whose subscriber lists are kept in memory: the lobby log's reporters name a few thousand at most. */
const CACHED_GAMES = 10_000;

function parsed(rows: { webhook_id: string; events: string }[]): Subscriber[] {
  return rows.map((r) => ({ webhook_id: r.webhook_id, events: new Set(JSON.parse(r.events) as string[]) }));
}

function listening(endpoints: Subscriber[], type: WebhookEvent['type']): Subscriber[] {
  return endpoints.filter((e) => e.events.has(type));
}

async function gameSubscribers(db: Db, gameId: string): Promise<GameSubscribers | undefined> {
  const found = await repo.subscribersOfGame(db, gameId);
  return found === undefined ? undefined : { teamId: found.teamId, endpoints: parsed(found.endpoints) };
}

/**
 * The outbox's writing end. A change's event is queued in the store, one delivery per endpoint that hears
 * it, before the change is answered (inside its transaction where the change has one), so an acknowledged
 * change is never left untold; the `webhook-delivery` job sends what is queued (webhooks.dispatcher.ts).
 *
 * Lobby reports are the service's hot path, and most games have no endpoint: their subscriber lists are
 * cached (kept true across instances like the other read caches), so a report costs no extra statement
 * unless someone listens.
 */
export class WebhookOutbox implements WebhookEvents {
  readonly #games: ReadCache<string, GameSubscribers>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly caches: CacheCoherence,
  ) {
    const games = caches.newCache<string, GameSubscribers>(CACHED_GAMES);
    caches.listen({
      apply: (invalidation) => {
        if (invalidation.kind === 'webhooks') games.clear();
      },
      clear: () => games.clear(),
    });
    this.#games = games;
  }

  /**
   * Inside the transaction of a write that changes who hears what (an endpoint made, changed or deleted; a
   * game given to another team): other instances drop their lists when it commits. Call `changed` after.
   */
  publish(trx: Db): Promise<void> {
    return this.caches.publish(trx, { kind: 'webhooks' });
  }

  /** After such a write, committed or not: this instance's lists go (a load racing it is not kept). */
  changed(): void {
    this.#games.clear();
  }

  /** Queues a game's event with `db` (the change's transaction): its endpoints' and its team's. */
  async gameEvent(db: Db, gameId: string, event: WebhookEvent): Promise<void> {
    const subscribers = await gameSubscribers(db, gameId);
    if (subscribers === undefined) return;
    await this.queue(db, listening(subscribers.endpoints, event.type), event, {
      gameId,
      teamId: subscribers.teamId,
    });
  }

  /** The same, with the subscriber list from the cache: for lobby reports, which have no transaction. */
  async gameEventCached(
    gameId: string,
    event: () => WebhookEvent,
    type: WebhookEvent['type'],
  ): Promise<void> {
    const subscribers = await this.#games.get(gameId, () => gameSubscribers(this.db, gameId));
    if (subscribers === undefined) return;
    const endpoints = listening(subscribers.endpoints, type);
    if (endpoints.length === 0) return;
    await this.queue(this.db, endpoints, event(), { gameId, teamId: subscribers.teamId });
  }

  /** Queues a team's own event (a member joined) for the team's endpoints. */
  async teamEvent(db: Db, teamId: string, event: WebhookEvent): Promise<void> {
    const endpoints = parsed(await repo.subscribersOfTeam(db, teamId));
    await this.queue(db, listening(endpoints, event.type), event, { teamId });
  }

  /** One endpoint only, whatever it subscribes to: a ping, or a delivery sent again (same event, body). */
  async direct(
    db: Db,
    webhookId: string,
    scope: { game_id: string | null; team_id: string | null },
    event: WebhookEvent,
    again?: { eventId: string; body: string },
  ): Promise<string> {
    const eventId = again?.eventId ?? newId();
    const body = again?.body ?? this.body(event, eventId, scope);
    const row = this.deliveryRow(webhookId, event, eventId, body, scope);
    await repo.insertDeliveries(db, [row]);
    return row.delivery_id;
  }

  /** `listeners`: the endpoints that hear the event's type (`listening`). */
  private async queue(
    db: Db,
    listeners: Subscriber[],
    event: WebhookEvent,
    owner: { gameId?: string; teamId: string | null },
  ): Promise<void> {
    if (listeners.length === 0) return;
    const eventId = newId();
    const scope = { game_id: owner.gameId ?? null, team_id: owner.teamId };
    const body = this.body(event, eventId, scope);
    await repo.insertDeliveries(
      db,
      listeners.map((e) => this.deliveryRow(e.webhook_id, event, eventId, body, scope)),
    );
  }

  private body(
    event: WebhookEvent,
    eventId: string,
    scope: { game_id: string | null; team_id: string | null },
  ): string {
    const body: WebhookEventBody = {
      event_id: eventId,
      type: event.type,
      create_ts: toTimestamp(this.clock.now()),
      ...(scope.team_id === null ? {} : { team_id: scope.team_id }),
      ...(scope.game_id === null ? {} : { game_id: scope.game_id }),
      data: event.data,
    };
    return JSON.stringify(body);
  }

  private deliveryRow(
    webhookId: string,
    event: WebhookEvent,
    eventId: string,
    body: string,
    scope: { game_id: string | null; team_id: string | null },
  ): Insertable<WebhookDeliveriesTable> {
    const now = this.clock.now();
    return {
      delivery_id: newId(),
      webhook_id: webhookId,
      game_id: scope.game_id,
      team_id: scope.team_id,
      event_id: eventId,
      event_type: event.type,
      resource_key: event.resourceKey,
      dedupe_key: event.dedupeKey ?? eventId,
      payload: body,
      state: 'pending',
      attempt_count: 0,
      attempts: '[]',
      next_attempt_ts: now,
      create_ts: now,
      delivered_ts: null,
    };
  }
}
