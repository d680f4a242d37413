import { type Static, Type } from 'typebox';
import { IdOf, Text, Timestamp } from './common.js';
import { NextCursor } from './paging.js';

/**
 * What a webhook can be told. A game's endpoints hear its own events; a team's hear those of every game
 * the team owns, and the team's own (`member.joined`). `ping` is sent only on request (the ping operation).
 */
export const WEBHOOK_EVENT_TYPES = [
  'lobby.created',
  'lobby.stopped',
  'lobby.failed',
  'build.completed',
  'version.deployed',
  'plan.changed',
  'member.joined',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints per game and per team. */
export const WEBHOOKS_PER_SCOPE_MAX = 10;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 256;
/** Attempts per delivery, the first included, before it is marked failed. */
export const WEBHOOK_ATTEMPTS_MAX = 12;

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (README "Webhooks"). */
export const WEBHOOK_SIGNATURE_HEADER = 'gcm-signature';

const EventType = Type.Union(
  [
    Type.Literal('lobby.created'),
    Type.Literal('lobby.stopped'),
    Type.Literal('lobby.failed'),
    Type.Literal('build.completed'),
    Type.Literal('version.deployed'),
    Type.Literal('plan.changed'),
    Type.Literal('member.joined'),
  ],
  { description: 'an event type' },
);

const Events = Type.Array(EventType, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'the event types sent to this endpoint',
});

const Url = Text(WEBHOOK_URL_MAX_LENGTH, {
  minLength: 1,
  description: 'where deliveries are POSTed: an https:// URL of a public host',
});
const Description = Text(WEBHOOK_DESCRIPTION_MAX_LENGTH, { description: 'a note for people' });

/** `POST /cloud/games/{game_id}/webhooks`, `POST /cloud/teams/{team_id}/webhooks`. */
export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'false keeps the endpoint without sending to it' })),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

/** `PATCH .../webhooks/{webhook_id}`: the members given are changed, the others kept. */
export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const Webhook = Type.Object({
  webhook_id: IdOf("the endpoint's id"),
  game_id: Type.Optional(IdOf('the game whose events it hears (a game endpoint)')),
  team_id: Type.Optional(IdOf("the team whose games' events it hears (a team endpoint)")),
  url: Type.String(),
  events: Type.Array(EventType),
  description: Type.String(),
  enabled: Type.Boolean(),
  create_ts: Timestamp,
  update_ts: Timestamp,
});
export type Webhook = Static<typeof Webhook>;

export const WebhookResponse = Type.Object({ webhook: Webhook });
export type WebhookResponse = Static<typeof WebhookResponse>;

export const WebhookSecret = Type.String({
  description:
    'the signing secret (whsec_…): shown when the endpoint is made and when it is rotated, never again',
});

export const CreateWebhookResponse = Type.Object({ webhook: Webhook, secret: WebhookSecret });
export type CreateWebhookResponse = Static<typeof CreateWebhookResponse>;

export const RotateWebhookSecretResponse = Type.Object({ secret: WebhookSecret });
export type RotateWebhookSecretResponse = Static<typeof RotateWebhookSecretResponse>;

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });
export type WebhookList = Static<typeof WebhookList>;

export const GameWebhookParams = Type.Object({
  game_id: IdOf("the game's id"),
  webhook_id: IdOf("the endpoint's id"),
});
export type GameWebhookParams = Static<typeof GameWebhookParams>;

export const TeamWebhookParams = Type.Object({
  team_id: IdOf("the team's id"),
  webhook_id: IdOf("the endpoint's id"),
});
export type TeamWebhookParams = Static<typeof TeamWebhookParams>;

const DeliveryId = IdOf("the delivery's id (the delivery log lists them)");

export const GameWebhookDeliveryParams = Type.Object({
  game_id: IdOf("the game's id"),
  webhook_id: IdOf("the endpoint's id"),
  delivery_id: DeliveryId,
});
export type GameWebhookDeliveryParams = Static<typeof GameWebhookDeliveryParams>;

export const TeamWebhookDeliveryParams = Type.Object({
  team_id: IdOf("the team's id"),
  webhook_id: IdOf("the endpoint's id"),
  delivery_id: DeliveryId,
});
export type TeamWebhookDeliveryParams = Static<typeof TeamWebhookDeliveryParams>;

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

export const WebhookAttempt = Type.Object({
  ts: Timestamp,
  status_code: Type.Optional(Type.Integer({ description: "the receiver's HTTP status" })),
  error: Type.Optional(Type.String({ description: 'why no status came back (timeout, refused address, …)' })),
  duration_ms: Type.Integer(),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

/** One event sent (or to be sent) to one endpoint, with every attempt so far. */
export const WebhookDelivery = Type.Object({
  delivery_id: IdOf("the delivery's id (the Gcm-Delivery-Id header)"),
  event_id: IdOf("the event's id (the same for every endpoint told of it)"),
  event_type: Type.String(),
  create_ts: Timestamp,
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  next_attempt_ts: Type.Optional(Timestamp),
  delivered_ts: Type.Optional(Timestamp),
  attempts: Type.Array(WebhookAttempt, { description: 'oldest first' }),
  payload: Type.Unknown({ description: 'the JSON body sent' }),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryList = Type.Object({
  deliveries: Type.Array(WebhookDelivery, { description: 'newest first' }),
  cursor: NextCursor,
});
export type WebhookDeliveryList = Static<typeof WebhookDeliveryList>;

/** Ping and redeliver: the delivery they queued (the job sends it within GCM_WEBHOOK_POLL_MS). */
export const WebhookQueuedResponse = Type.Object({ delivery_id: IdOf('the delivery queued') });
export type WebhookQueuedResponse = Static<typeof WebhookQueuedResponse>;

/** The body of every delivery. */
export interface WebhookEventBody {
  event_id: string;
  type: WebhookEventType | 'ping';
  create_ts: string;
  team_id?: string;
  game_id?: string;
  data: Record<string, unknown>;
}
