import {
  type CreateWebhookResponse as CreateAnswer,
  CreateWebhookBody,
  CreateWebhookResponse,
  GameIdParams,
  GameWebhookDeliveryParams,
  GameWebhookParams,
  NoContent,
  PageQuery,
  type RotateWebhookSecretResponse as RotateAnswer,
  RotateWebhookSecretResponse,
  TeamIdParams,
  TeamWebhookDeliveryParams,
  TeamWebhookParams,
  UpdateWebhookBody,
  WebhookDeliveryList,
  WebhookList,
  WebhookQueuedResponse,
  WebhookResponse,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import type { StoredAnswer } from '../../http/idempotency.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import {
  createWebhook,
  deleteWebhook,
  gameScope,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  pingWebhook,
  redeliverWebhook,
  rotateWebhookSecret,
  type Scope,
  teamScope,
  updateWebhook,
  webhookSecretOf,
} from './webhooks.service.js';

const TAG = 'webhooks';

/** Creation's answer is stored without its secret; a replay reads the endpoint's secret back. */
function createAnswer(deps: Deps): StoredAnswer<CreateAnswer, Omit<CreateAnswer, 'secret'>> {
  return {
    keep: ({ secret: _secret, ...kept }) => kept,
    restore: async (kept) => ({
      ...kept,
      secret: (await webhookSecretOf(deps, kept.webhook.webhook_id)) ?? '',
    }),
  };
}

/** A rotation's replay answers the secret in force, which is the one it made unless rotated since. */
function rotateAnswer(deps: Deps): StoredAnswer<RotateAnswer, Record<string, never>, { webhook_id: string }> {
  return {
    keep: () => ({}),
    restore: async (_kept, params) => ({ secret: (await webhookSecretOf(deps, params.webhook_id)) ?? '' }),
  };
}

function scopeOf(params: { game_id: string } | { team_id: string }): Scope {
  return 'game_id' in params ? gameScope(params.game_id) : teamScope(params.team_id);
}

/**
 * The same eight operations on a game's endpoints and on a team's. A game's are managed with its cloud
 * token or by the team's admins; a team's by its admins (and the operator).
 */
export function webhooksRoutes(app: TypedApp, deps: Deps): void {
  for (const kind of ['game', 'team'] as const) {
    const base = kind === 'game' ? '/cloud/games/:game_id/webhooks' : '/cloud/teams/:team_id/webhooks';
    const op = (name: string) => `${kind === 'game' ? 'games' : 'teams'}.webhooks.${name}`;
    const auth = kind === 'game' ? 'game' : 'operator';
    const owner = kind === 'game' ? 'game' : "team's games and the team";
    const ScopeParams = kind === 'game' ? GameIdParams : TeamIdParams;
    const WebhookParams = kind === 'game' ? GameWebhookParams : TeamWebhookParams;
    const DeliveryParams = kind === 'game' ? GameWebhookDeliveryParams : TeamWebhookDeliveryParams;
    const meta = (name: string, summary: string) =>
      ({ operationId: op(name), auth, personRole: 'admin', summary, tag: TAG }) as const;

    app.post(
      base,
      routeOptions(
        {
          ...meta(
            'create',
            `Register an HTTPS endpoint for the ${owner}'s events; the answer holds its signing secret, shown only now`,
          ),
          idempotent: createAnswer(deps),
        },
        { params: ScopeParams, body: CreateWebhookBody, response: { 200: CreateWebhookResponse } },
      ),
      async (request) => createWebhook(deps, scopeOf(request.params), request.body),
    );

    app.get(
      base,
      routeOptions(meta('list', 'The webhook endpoints, oldest first (at most 10)'), {
        params: ScopeParams,
        response: { 200: WebhookList },
      }),
      async (request) => listWebhooks(deps, scopeOf(request.params)),
    );

    app.get(
      `${base}/:webhook_id`,
      routeOptions(meta('get', 'One webhook endpoint'), {
        params: WebhookParams,
        response: { 200: WebhookResponse },
      }),
      async (request) => getWebhook(deps, scopeOf(request.params), request.params.webhook_id),
    );

    app.patch(
      `${base}/:webhook_id`,
      routeOptions(
        meta('update', 'Change an endpoint: its URL, events, description, or whether it is enabled'),
        {
          params: WebhookParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookResponse },
        },
      ),
      async (request) =>
        updateWebhook(deps, scopeOf(request.params), request.params.webhook_id, request.body),
    );

    app.delete(
      `${base}/:webhook_id`,
      routeOptions(meta('delete', 'Delete an endpoint with its delivery log; nothing more is sent to it'), {
        params: WebhookParams,
        response: { 204: NoContent },
      }),
      async (request, reply) => {
        await deleteWebhook(deps, scopeOf(request.params), request.params.webhook_id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${base}/:webhook_id/secret`,
      routeOptions(
        {
          ...meta(
            'rotateSecret',
            'Replace the signing secret; the new one is answered once and signs every delivery from now on',
          ),
          idempotent: rotateAnswer(deps),
        },
        { params: WebhookParams, response: { 200: RotateWebhookSecretResponse } },
      ),
      async (request) => rotateWebhookSecret(deps, scopeOf(request.params), request.params.webhook_id),
    );

    app.post(
      `${base}/:webhook_id/ping`,
      routeOptions(
        {
          ...meta('ping', 'Queue a `ping` delivery to this endpoint, to check the receiver'),
          idempotent: true,
        },
        { params: WebhookParams, response: { 200: WebhookQueuedResponse } },
      ),
      async (request) => pingWebhook(deps, scopeOf(request.params), request.params.webhook_id),
    );

    app.get(
      `${base}/:webhook_id/deliveries`,
      routeOptions(
        meta(
          'listDeliveries',
          'The delivery log, newest first: each event sent, its attempts and their HTTP status',
        ),
        { params: WebhookParams, querystring: PageQuery, response: { 200: WebhookDeliveryList } },
      ),
      async (request) =>
        listWebhookDeliveries(deps, scopeOf(request.params), request.params.webhook_id, request.query),
    );

    app.post(
      `${base}/:webhook_id/deliveries/:delivery_id/redeliver`,
      routeOptions(
        {
          ...meta('redeliver', 'Send a delivery again (same event and body, a new delivery id)'),
          idempotent: true,
        },
        { params: DeliveryParams, response: { 200: WebhookQueuedResponse } },
      ),
      async (request) =>
        redeliverWebhook(
          deps,
          scopeOf(request.params),
          request.params.webhook_id,
          request.params.delivery_id,
        ),
    );
  }
}
