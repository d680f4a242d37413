import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';

/** Operational figures of this instance, outside the interface; operator only. */
export function debugRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/cloud/debug/watchers',
    routeOptions(
      {
        operationId: 'debug.getWatchers',
        auth: 'operator',
        summary: 'How many watch_index requests wait for a change on this instance right now',
        tag: 'debug',
        internal: true,
      },
      { response: { 200: Type.Object({ waiting: Type.Integer({ minimum: 0 }) }) } },
    ),
    async () => ({ waiting: deps.notifier.waiting }),
  );
}
