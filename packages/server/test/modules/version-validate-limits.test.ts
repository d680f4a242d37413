/**
 * What bounds the work one version validation can cause (issue 33): the versions' own body limit, at most
 * 100 errors in an answer with the count of all, and what a validation worker that runs out of time or
 * memory answers. How long another caller waits while one floods validate is `npm run bench`'s to say
 * (`--only validate-contention`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validateVersion } from '@gcm/contract';
import { DEFAULT_REGIONS } from '../../src/config.js';
import { assertError } from '../helpers/error-answer.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
// Store-independent work (the validator, the worker pool, address and password checks): the SQLite run
// covers it, and the PostgreSQL run would only pay for it twice.
import { sqliteOnly } from '../helpers/stores.js';

const MAX_ANSWERED = 100;
/** Every body through the workers, or every body on the event loop. */
const THROUGH_POOL = { GCM_VALIDATE_INLINE_MAX_BYTES: '0' };
/** Only large bodies through the workers: the fixtures' small ones stay on the event loop. */
const LARGE_THROUGH_POOL = { GCM_VALIDATE_INLINE_MAX_BYTES: '4096' };
const INLINE = { GCM_VALIDATE_INLINE_MAX_BYTES: String(64 * 1024 * 1024) };

/** `modes` game modes each naming `regions` regions the service does not offer: modes × regions errors. */
function brokenConfig(modes: number, regions: number, regionName = (i: number) => `nowhere-${i}`) {
  const gameModes: Record<string, { regions: Record<string, object> }> = {};
  for (let g = 0; g < modes; g++) {
    const named: Record<string, object> = {};
    for (let r = 0; r < regions; r++) named[regionName(r)] = {};
    gameModes[`mode-${g}`] = { regions: named };
  }
  return { matchmaker: { game_modes: gameModes } };
}

/** The errors the pure validator finds in `config` for a fresh game of this service. */
function expectedErrors(displayName: string, config: ReturnType<typeof brokenConfig>) {
  return validateVersion(
    { display_name: displayName, config },
    {
      regions: DEFAULT_REGIONS,
      existingDisplayNames: [],
      hostNetworkingEnabled: false,
      buildIds: new Set(),
    },
  );
}

interface Answer {
  errors: { path: string[]; message: string }[];
  error_count: number;
}

for (const [name, env] of [
  ['on the event loop', INLINE],
  ['in a worker', THROUGH_POOL],
] as const) {
  describe(`a configuration breaking thousands of rules, validated ${name}`, () => {
    let svc: TestService;
    let gameId: string;

    before(async () => {
      svc = await startTestService({ env });
      gameId = (await createGameFixture(svc, 'vv-cap')).gameId;
    });
    after(async () => {
      await svc.close();
    });

    it('validate answers the first 100 errors and error_count, the number of all', async () => {
      const config = brokenConfig(64, 64);
      const all = expectedErrors('many errors', config);
      assert.ok(all.length > 4_000, `the config breaks ${all.length} rules`);
      const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
        body: { display_name: 'many errors', config },
      });
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));
      const answer = res.json<Answer>();
      assert.equal(answer.errors.length, MAX_ANSWERED);
      assert.equal(answer.error_count, all.length);
      assert.deepEqual(answer.errors, all.slice(0, MAX_ANSWERED), 'the first 100, in the stable order');
      assert.ok(res.body.length < 40_000, `the answer is ${res.body.length} bytes`);
    });

    it('a configuration with few errors is answered whole, error_count its length', async () => {
      const config = brokenConfig(1, 3);
      const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
        body: { display_name: 'few errors', config },
      });
      assert.equal(res.statusCode, 200, res.body);
      const all = expectedErrors('few errors', config);
      assert.deepEqual(res.json<Answer>(), { errors: all, error_count: all.length });
    });

    it('create refuses with VALIDATION_ERROR holding the first 100 and metadata.error_count', async () => {
      const config = brokenConfig(64, 64);
      const all = expectedErrors('not created', config);
      const res = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
        body: { display_name: 'not created', config },
      });
      const body = assertError<{
        code: string;
        message: string;
        metadata: { errors: unknown[]; error_count: number };
      }>(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(body.metadata.errors, all.slice(0, MAX_ANSWERED));
      assert.equal(body.metadata.error_count, all.length);
      assert.match(
        body.message,
        new RegExp(`and ${all.length - 20} more \\(the first 100 in metadata\\.errors\\)$`),
      );
    });
  });
}

describe('the versions body limit (GCM_VERSION_BODY_LIMIT_BYTES)', sqliteOnly, () => {
  let svc: TestService;
  let gameId: string;

  before(async () => {
    svc = await startTestService();
    gameId = (await createGameFixture(svc, 'vv-limit')).gameId;
  });
  after(async () => {
    await svc.close();
  });

  /** A body of exactly `bytes` bytes: a valid configuration padded in its key-value object. */
  function bodyOf(bytes: number): string {
    const empty = JSON.stringify({ display_name: 'padded', config: { kv: { pad: '' } } });
    return JSON.stringify({
      display_name: 'padded',
      config: { kv: { pad: 'x'.repeat(bytes - empty.length) } },
    });
  }

  for (const route of ['versions/validate', 'versions']) {
    it(`POST .../${route}: 256 KiB is accepted; one byte more is 413 API_BODY_TOO_LARGE naming the limit`, async () => {
      const url = `/cloud/games/${gameId}/${route}`;
      const headers = { 'content-type': 'application/json' };
      const fits = await svc.call('POST', url, { body: bodyOf(256 * 1024), headers });
      assert.equal(fits.statusCode, 200, fits.body.slice(0, 300));
      const over = await svc.call('POST', url, { body: bodyOf(256 * 1024 + 1), headers });
      const body = assertError(over, 413, 'API_BODY_TOO_LARGE');
      assert.match(body.message, /limit of 262144 bytes/);
    });
  }

  it('other routes keep the global limit (GCM_BODY_LIMIT_BYTES, 1 MiB)', async () => {
    const res = await svc.call('POST', '/cloud/games', {
      body: JSON.stringify({ name_id: 'big', display_name: 'Big', pad: 'x'.repeat(512 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  });

  it('the limit is configurable', async () => {
    const small = await startTestService({ env: { GCM_VERSION_BODY_LIMIT_BYTES: '65536' } });
    try {
      const game = await createGameFixture(small, 'vv-small');
      const res = await small.call('POST', `/cloud/games/${game.gameId}/versions/validate`, {
        body: bodyOf(65_537),
        headers: { 'content-type': 'application/json' },
      });
      assert.match(assertError(res, 413, 'API_BODY_TOO_LARGE').message, /limit of 65536 bytes/);
    } finally {
      await small.close();
    }
  });
});

describe('one caller, many large bodies at once', sqliteOnly, () => {
  it('one is validated at a time, 8 wait their turn, the next is 429 VALIDATION_BUSY; another caller is not held', async () => {
    const svc = await startTestService({ env: LARGE_THROUGH_POOL });
    try {
      const { gameId, cloudToken } = await createGameFixture(svc, 'vv-busy');
      const url = `/cloud/games/${gameId}/versions/validate`;
      const body = { display_name: 'flood', config: brokenConfig(64, 64) };
      // All sent before the first is answered: its validation alone takes a worker's start and tens of ms.
      const flood = await Promise.all(
        Array.from({ length: 12 }, () => svc.call('POST', url, { token: cloudToken, body })),
      );
      const statuses = flood.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [...Array(9).fill(200), ...Array(3).fill(429)], String(statuses));
      const busy = assertError<{ code: string; metadata: { retry_after_seconds: number } }>(
        flood.find((r) => r.statusCode === 429) ?? flood[0]!,
        429,
        'VALIDATION_BUSY',
      );
      assert.equal(busy.metadata.retry_after_seconds, 1);
      // The operator is another caller, with turns of its own.
      const [own, other] = await Promise.all([
        Promise.all(Array.from({ length: 9 }, () => svc.call('POST', url, { token: cloudToken, body }))),
        svc.call('POST', url, { body }),
      ]);
      assert.equal(other.statusCode, 200, other.body.slice(0, 300));
      assert.ok(own.every((r) => r.statusCode === 200));
    } finally {
      await svc.close();
    }
  });
});

describe('a validation worker that runs out of time or memory', sqliteOnly, () => {
  it('out of time (GCM_VALIDATE_TIMEOUT_MS): 503 VALIDATION_UNAVAILABLE saying so; other requests are answered', async () => {
    const svc = await startTestService({ env: { ...LARGE_THROUGH_POOL, GCM_VALIDATE_TIMEOUT_MS: '1' } });
    try {
      const { gameId } = await createGameFixture(svc, 'vv-slow');
      const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
        body: { display_name: 'slow', config: brokenConfig(64, 64) },
      });
      const body = assertError<{ code: string; message: string; metadata: { reason: string } }>(
        res,
        503,
        'VALIDATION_UNAVAILABLE',
      );
      assert.equal(body.metadata.reason, 'timeout');
      assert.match(body.message, /within 1 ms \(GCM_VALIDATE_TIMEOUT_MS\)/);
      assert.equal((await svc.call('GET', '/cloud/regions')).statusCode, 200);
    } finally {
      await svc.close();
    }
  });

  it('out of memory (GCM_VALIDATE_WORKER_HEAP_MB): 503 VALIDATION_UNAVAILABLE; the next validation works', async () => {
    const svc = await startTestService({
      env: {
        ...LARGE_THROUGH_POOL,
        // A worker starts in 24 MB (under tsx, as here); built, in less.
        GCM_VALIDATE_WORKER_HEAP_MB: '24',
        // Near its heap limit a worker collects garbage again and again: let it reach the limit.
        GCM_VALIDATE_TIMEOUT_MS: '120000',
        GCM_VERSION_BODY_LIMIT_BYTES: String(4 * 1024 * 1024),
      },
    });
    try {
      const { gameId } = await createGameFixture(svc, 'vv-oom');
      const url = `/cloud/games/${gameId}/versions/validate`;
      // 16,384 errors, each naming a 200-character region twice: far more than a 24 MB heap holds.
      const far = (i: number) => `${'far-away-'.repeat(22)}${i}`;
      const res = await svc.call('POST', url, {
        body: { display_name: 'huge', config: brokenConfig(128, 128, far) },
      });
      const body = assertError<{ code: string; metadata: { reason: string } }>(
        res,
        503,
        'VALIDATION_UNAVAILABLE',
      );
      assert.equal(body.metadata.reason, 'failed');
      // The pool replaced the worker.
      const config = brokenConfig(2, 2);
      const next = await svc.call('POST', url, { body: { display_name: 'small', config } });
      assert.equal(next.statusCode, 200, next.body);
      assert.equal(next.json<Answer>().error_count, expectedErrors('small', config).length);
    } finally {
      await svc.close();
    }
  });
});
