import assert from 'node:assert/strict';
import type { TestService } from './service.js';

export interface BillingBody {
  active_plan: string;
  plan: string;
  subscription?: { period_start_ts: string; period_end_ts: string };
  watch: { index: string };
}

/** A game (no version or namespace: billing needs none) and a cloud token of it. */
export async function createBillingGame(svc: TestService, nameId: string) {
  const game = await svc.call('POST', '/cloud/games', { body: { name_id: nameId, display_name: 'Billing' } });
  assert.equal(game.statusCode, 200, game.body);
  const gameId = game.json<{ game_id: string }>().game_id;
  const tok = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`);
  assert.equal(tok.statusCode, 200, tok.body);
  return { gameId, token: tok.json<{ token: string }>().token };
}

export const billingUrl = (gameId: string) => `/cloud/games/${gameId}/billing`;

export async function readBilling(svc: TestService, gameId: string): Promise<BillingBody> {
  const res = await svc.call('GET', billingUrl(gameId));
  assert.equal(res.statusCode, 200, res.body);
  return res.json<BillingBody>();
}

export async function choosePlan(svc: TestService, gameId: string, plan: string): Promise<void> {
  const res = await svc.call('PUT', `${billingUrl(gameId)}/plan`, { body: { plan } });
  assert.equal(res.statusCode, 204, res.body);
}

/** Polls until exactly `count` requests wait on the service's change notifier, or fails after `ms`. */
export async function waitForWaiters(svc: TestService, count: number, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (svc.deps.notifier.waiting !== count) {
    if (Date.now() > deadline) {
      assert.fail(`expected ${count} waiting requests, have ${svc.deps.notifier.waiting} after ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
