import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ApiError,
  createGcmClient,
  type GcmClient,
  isTransientApiError,
  NetworkError,
  type RetryPolicy,
  unwrap,
  withRetries,
} from '@gcm/sdk';
import { type AppError, errors } from '../../src/errors.js';
import { freePort, startListening } from '../helpers/listening.js';
import type { TestService } from '../helpers/service.js';

/**
 * @gcm/sdk as a studio's backend uses it, against the real service over HTTP: typed calls in and out, a
 * refusal as an ApiError in the service's own words, and the retries gcm relies on.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NO_SUCH_GAME = '01900000-0000-7000-8000-000000000000';
/** Short waits: the test is about whether a refusal is retried, not about how long the backoff is. */
const QUICK: RetryPolicy = { attempts: 3, baseMs: 1, maxMs: 5 };

let svc: TestService;
let api: GcmClient;
let baseUrl: string;
/** Refusals the next GET /cloud/games get instead of their answer, as a restarting or a busy instance gives them. */
const refusals: AppError[] = [];

before(async () => {
  const started = await startListening({
    beforeListen: (service) => {
      service.app.addHook('onRequest', async (request) => {
        if (request.method !== 'GET' || request.url !== '/cloud/games') return;
        const refusal = refusals.shift();
        if (refusal !== undefined) throw refusal;
      });
    },
  });
  svc = started.svc;
  baseUrl = started.publicUrl;
  api = createGcmClient({ baseUrl, token: svc.operatorToken });
});

after(async () => {
  await svc?.close();
});

describe('@gcm/sdk against the service', () => {
  test('creates a game and finds it in the list and by id', async () => {
    const made = await unwrap(
      api.POST('/cloud/games', { body: { name_id: 'sdk-game', display_name: 'SDK Game' } }),
    );
    assert.match(made.game_id, UUID);
    const { games } = await unwrap(api.GET('/cloud/games'));
    assert.deepEqual(
      games.filter((g) => g.game_id === made.game_id).map((g) => [g.name_id, g.display_name]),
      [['sdk-game', 'SDK Game']],
    );
    const { game } = await unwrap(
      api.GET('/cloud/games/{game_id}', { params: { path: { game_id: made.game_id } } }),
    );
    assert.equal(game.name_id, 'sdk-game');
  });

  test('a refusal is an ApiError carrying the service’s status, code, message, ray id and metadata', async () => {
    const missing = await unwrap(
      api.GET('/cloud/games/{game_id}', { params: { path: { game_id: NO_SUCH_GAME } } }),
    ).then(
      () => assert.fail('a game that does not exist was answered'),
      (err: unknown) => err,
    );
    assert.ok(missing instanceof ApiError, String(missing));
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'GAME_NOT_FOUND');
    assert.match(missing.message, /game/i);
    assert.match(missing.rayId ?? '', /\S/);

    const invalid = await unwrap(
      api.POST('/cloud/games', { body: { name_id: 'Not An Id', display_name: 'x' } }),
    ).catch((err: unknown) => err);
    assert.ok(invalid instanceof ApiError, String(invalid));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    const items = invalid.metadata.errors as { path: string[] }[];
    assert.ok(
      items.some((item) => item.path[0] === 'name-id'),
      JSON.stringify(invalid.metadata),
    );

    const anonymous = createGcmClient({ baseUrl });
    await assert.rejects(
      unwrap(anonymous.GET('/cloud/games')),
      (err: unknown) => err instanceof ApiError && err.status === 401 && err.code === 'API_UNAUTHORIZED',
    );
  });

  test('withRetries tries again after a 503 and a 429, never after a 404', async () => {
    refusals.push(errors.serviceUnavailable('store_unavailable'), errors.rateLimited(1, 'too many requests'));
    const retried: unknown[] = [];
    const { games } = await withRetries(() => unwrap(api.GET('/cloud/games')), {
      policy: QUICK,
      onRetry: (err) => retried.push(err),
    });
    assert.ok(Array.isArray(games));
    assert.equal(refusals.length, 0);
    assert.deepEqual(
      retried.map((err) => (err instanceof ApiError ? [err.status, err.code] : err)),
      [
        [503, 'SERVICE_UNAVAILABLE'],
        [429, 'RATE_LIMITED'],
      ],
    );

    let tries = 0;
    await assert.rejects(
      withRetries(
        () => {
          tries += 1;
          return unwrap(api.GET('/cloud/games/{game_id}', { params: { path: { game_id: NO_SUCH_GAME } } }));
        },
        { policy: QUICK },
      ),
      (err: unknown) => err instanceof ApiError && err.code === 'GAME_NOT_FOUND',
    );
    assert.equal(tries, 1, 'a 404 is not retried');

    // Out of tries, the last refusal is what the caller gets.
    refusals.push(
      errors.serviceUnavailable('store_unavailable'),
      errors.serviceUnavailable('store_unavailable'),
      errors.rateLimited(1, 'too many requests'),
    );
    await assert.rejects(
      withRetries(() => unwrap(api.GET('/cloud/games')), { policy: QUICK }),
      (err: unknown) => err instanceof ApiError && err.code === 'RATE_LIMITED',
    );
    assert.equal(refusals.length, 0);
  });

  test('a service that cannot be reached is a NetworkError, which is worth a retry', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const err = await unwrap(createGcmClient({ baseUrl: nowhere }).GET('/cloud/regions')).catch(
      (thrown: unknown) => thrown,
    );
    assert.ok(err instanceof NetworkError, String(err));
    assert.equal(err.message, `could not reach ${nowhere}: ECONNREFUSED`);
    assert.equal(isTransientApiError(err), true);
  });
});
