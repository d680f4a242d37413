import assert from 'node:assert/strict';
import type { TestService } from './service.js';

export interface PreparedLink {
  device_link_id: string;
  device_link_token: string;
  device_link_url: string;
  device_link_user_code: string;
}

export interface LinkResult {
  cloud_token?: string;
  watch: { index: string };
}

/** POST /cloud/devices/links, with no token, as a command-line tool starts its login. */
export async function prepareLink(svc: TestService): Promise<PreparedLink> {
  const res = await svc.call('POST', '/cloud/devices/links', { token: null });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<PreparedLink>();
}

export function getLink(svc: TestService, linkToken: string, watchIndex?: string) {
  const query = new URLSearchParams({ device_link_token: linkToken });
  if (watchIndex !== undefined) query.set('watch_index', watchIndex);
  return svc.call('GET', `/cloud/devices/links?${query}`, { token: null });
}

/** `bearer` defaults to the operator token. */
export function completeLink(svc: TestService, linkToken: string, gameId: string, bearer?: string | null) {
  return svc.call('POST', '/cloud/devices/links/complete', {
    ...(bearer === undefined ? {} : { token: bearer }),
    body: { device_link_token: linkToken, game_id: gameId },
  });
}

/** Resolves once `count` requests wait on the notifier (a watch_index GET has subscribed). */
export async function untilWaiting(svc: TestService, count = 1): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (svc.deps.notifier.waiting < count) {
    if (Date.now() > deadline) throw new Error(`no ${count} waiter(s) after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
