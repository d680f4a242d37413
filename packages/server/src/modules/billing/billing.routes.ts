import { BillingQuery, GameBilling, GameIdParams, NoContent, UpdatePlanBody } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { answerWatchable, withWatch } from '../../http/watch.js';
import { billingWatchKey, getBilling, updatePlan } from './billing.service.js';

const TAG = 'billing';

export function billingRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/cloud/games/:game_id/billing',
    routeOptions(
      {
        operationId: 'games.billing.get',
        auth: 'game',
        summary:
          'The plan in force and the plan chosen; with watch_index, waits for the next change (at most the watch timeout)',
        tag: TAG,
      },
      { params: GameIdParams, querystring: BillingQuery, response: { 200: GameBilling } },
    ),
    async (request, reply) => {
      const gameId = request.params.game_id;
      const result = await answerWatchable(
        reply,
        deps.notifier,
        {
          key: billingWatchKey(gameId),
          watchIndex: request.query.watch_index,
          timeoutMs: deps.config.watchTimeoutMs,
        },
        () => getBilling(deps, gameId),
      );
      return withWatch(result);
    },
  );

  app.put(
    '/cloud/games/:game_id/billing/plan',
    routeOptions(
      {
        operationId: 'games.billing.updatePlan',
        auth: 'game',
        personRole: 'owner',
        summary:
          'Choose the plan: an upgrade is in force at once, a downgrade at the end of the period; the active plan again cancels a pending downgrade',
        tag: TAG,
      },
      { params: GameIdParams, body: UpdatePlanBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await updatePlan(deps, request.params.game_id, request.body.plan);
      return reply.code(204).send(null);
    },
  );
}
