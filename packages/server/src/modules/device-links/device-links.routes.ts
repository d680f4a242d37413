import {
  CompleteDeviceLinkBody,
  DeviceLinkPage,
  DeviceLinkPageParams,
  DeviceLinkResult,
  GetDeviceLinkQuery,
  NoContent,
  PrepareDeviceLinkResponse,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { callerOf } from '../../http/auth.js';
import { clientKey } from '../../http/rate-limits.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { answerWatchable, withWatch } from '../../http/watch.js';
import { newNonce, pageHeaders, pageStatus, renderDeviceLinkPage } from './device-links.page.js';
import {
  completeDeviceLink,
  describeDeviceLink,
  prepareDeviceLink,
  watchDeviceLink,
} from './device-links.service.js';

const TAG = 'devices';

/** `stylesheets`: the dashboard's built stylesheets, which give the page the dashboard's look. */
export function deviceLinksRoutes(
  app: TypedApp,
  deps: Deps,
  options: { stylesheets: readonly string[] },
): void {
  app.post(
    '/cloud/devices/links',
    routeOptions(
      {
        operationId: 'devices.links.prepare',
        auth: 'public',
        limit: 'deviceLinkStarts',
        summary:
          'Start a device login: a link token (valid one hour) and the URL where a person completes it',
        tag: TAG,
      },
      { response: { 200: PrepareDeviceLinkResponse } },
    ),
    async (request) =>
      prepareDeviceLink(deps, {
        clientAddress: clientKey(request),
        userAgent: request.headers['user-agent'],
      }),
  );

  app.get(
    '/cloud/devices/links',
    routeOptions(
      {
        operationId: 'devices.links.get',
        auth: 'public',
        limit: 'deviceLinkReads',
        summary:
          'The cloud token once the link is completed; with watch_index, waits for the next change (at most the watch timeout)',
        tag: TAG,
      },
      { querystring: GetDeviceLinkQuery, response: { 200: DeviceLinkResult } },
    ),
    async (request, reply) => {
      const link = await watchDeviceLink(deps, request.query.device_link_token);
      const result = await answerWatchable(
        reply,
        deps.notifier,
        { key: link.key, watchIndex: request.query.watch_index, timeoutMs: deps.config.watchTimeoutMs },
        link.load,
      );
      return withWatch(result);
    },
  );

  app.post(
    '/cloud/devices/links/complete',
    routeOptions(
      {
        operationId: 'devices.links.complete',
        auth: 'any',
        summary:
          'Complete a device link: mint a new cloud token for game_id (the operator: any game; a game cloud token: its own) and attach it',
        tag: TAG,
        idempotent: true,
      },
      { body: CompleteDeviceLinkBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await completeDeviceLink(deps, callerOf(request), request.body);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/devices/link/:token',
    routeOptions(
      {
        operationId: 'devices.links.page',
        auth: 'public',
        limit: 'deviceLinkReads',
        summary:
          'The page where a signed-in person (or an operator, with a token) completes a device link (HTML)',
        tag: TAG,
      },
      {
        params: DeviceLinkPageParams,
        response: { 200: DeviceLinkPage, 400: DeviceLinkPage, 410: DeviceLinkPage },
      },
    ),
    async (request, reply) => {
      const view = await describeDeviceLink(deps, request.params.token);
      const nonce = newNonce();
      return reply
        .code(pageStatus(view))
        .headers(pageHeaders(nonce))
        .send(renderDeviceLinkPage(view, request.params.token, { nonce, stylesheets: options.stylesheets }));
    },
  );
}
