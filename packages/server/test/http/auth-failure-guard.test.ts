/**
 * The failed-token guard on its own (http/rate-limits.ts) and the shapes it lets an address over its limit
 * have checked (TokenAuthority.plausible): fast, for the mutation run of the lobby and player token checks.
 * The HTTP behaviour is shared-address-limits.test.ts's and rate-limits.test.ts's.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { AppError, errors } from '../../src/errors.js';
import { AuthFailureGuard } from '../../src/http/rate-limits.js';
import { ManualClock } from '../../src/lib/clock.js';
import { Metrics } from '../../src/lib/metrics.js';
import { MemoryCounters } from '../../src/lib/rate-counters.js';
import { createGameWorld } from '../helpers/api-world.js';
import { mintPublicToken } from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';

const from = (ip: string) => ({ ip }) as FastifyRequest;
const failing = async (): Promise<string> => {
  throw errors.unauthorized('the bearer token is not valid');
};
const passing = async () => 'caller';

function newGuard(failures = 2) {
  const clock = new ManualClock();
  const config = loadConfig({ GCM_RATE_LIMIT_AUTH_FAILURES: String(failures) }).rateLimits;
  return { clock, guard: new AuthFailureGuard(new MemoryCounters(clock), clock, config, new Metrics()) };
}

async function statusOf(pending: Promise<unknown>): Promise<number> {
  try {
    await pending;
    return 200;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err.statusCode;
  }
}

describe('AuthFailureGuard', () => {
  it('answers the failures 401 up to the limit, then 429 until the window ends; a valid one always passes', async () => {
    const { clock, guard } = newGuard();
    const lobby = from('127.0.0.1');
    assert.equal(await statusOf(guard.verify(lobby, true, failing)), 401);
    assert.equal(await statusOf(guard.verify(lobby, true, failing)), 401);
    assert.equal(await statusOf(guard.verify(lobby, true, failing)), 429);
    assert.equal(await statusOf(guard.verify(lobby, false, failing)), 429);
    assert.equal(await guard.verify(lobby, true, passing), 'caller');
    assert.equal(await statusOf(guard.verify(from('127.0.0.2'), true, failing)), 401, 'another address');
    // Not a failure: passed on as it is, over the limit too.
    const stopping = async () => {
      throw errors.lobbyStopping();
    };
    assert.equal(await statusOf(guard.verify(lobby, true, stopping)), errors.lobbyStopping().statusCode);
    clock.advance(60_000);
    assert.equal(await statusOf(guard.verify(lobby, true, failing)), 401, 'a new window');
  });

  it('over the limit, checks no credential of a shape the service never issues', async () => {
    const { guard } = newGuard(1);
    const lobby = from('127.0.0.1');
    await statusOf(guard.verify(lobby, true, failing));
    let checked = 0;
    const counted = async () => {
      checked += 1;
      return 'caller';
    };
    assert.equal(await statusOf(guard.verify(lobby, false, counted)), 429);
    assert.equal(checked, 0);
    assert.equal(await guard.verify(lobby, true, counted), 'caller');
    assert.equal(checked, 1);
    // Under the limit, the shape decides nothing: the check does.
    assert.equal(await guard.verify(from('127.0.0.3'), false, counted), 'caller');
  });

  it('over the limit, checks an address’s credentials one at a time, and other addresses’ beside them', async () => {
    const { guard } = newGuard(1);
    const lobby = from('127.0.0.1');
    await statusOf(guard.verify(lobby, true, failing));
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const slow = (outcome: () => Promise<string>) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running -= 1;
      return outcome();
    };
    const answers = [
      guard.verify(lobby, true, slow(failing)),
      guard.verify(lobby, true, slow(passing)),
      guard.verify(lobby, true, slow(failing)),
      guard.verify(lobby, true, slow(passing)),
    ].map(statusOf);
    // An address under its limit is not held up by the queue of one over it.
    assert.equal(await guard.verify(from('127.0.0.4'), true, passing), 'caller');
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await Promise.all(answers), [429, 200, 429, 200]);
    assert.equal(most, 1);
    // The queue is gone once drained: a later check runs at once.
    assert.equal(await guard.verify(lobby, true, passing), 'caller');
  });

  it('over the limit, checks a credential that checked out lately at once, beside the queue', async () => {
    const { clock, guard } = newGuard(1);
    const lobby = from('127.0.0.1');
    const known = 'Bearer gcm_lobby_known';
    assert.equal(await guard.verify(lobby, true, passing, known), 'caller');
    await statusOf(guard.verify(lobby, true, failing, 'Bearer gcm_lobby_bad'));
    // The neighbour's flood: a check that hangs until released holds the address's queue.
    const floodCheck = () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const answer = statusOf(
        guard.verify(lobby, true, async () => {
          await held;
          return failing();
        }),
      );
      return { release, answer };
    };
    const flood = floodCheck();
    let checked = 0;
    const counted = async () => {
      checked += 1;
      return 'caller';
    };
    // Known: checked while the flood's check still runs.
    assert.equal(await guard.verify(lobby, true, counted, known), 'caller');
    assert.equal(checked, 1);
    // Never seen (or seen longer ago than remembered): it waits its turn.
    const first = guard.verify(lobby, true, counted, 'Bearer gcm_lobby_new');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(checked, 1, 'a first call waits behind the flood');
    flood.release();
    assert.equal(await first, 'caller');
    assert.equal(await flood.answer, 429);
    assert.equal(checked, 2);
    // Still checked every time: a remembered credential that no longer checks out counts as a failure.
    assert.equal(await statusOf(guard.verify(lobby, true, failing, known)), 429);
    // Forgotten after ten minutes: queued again.
    assert.equal(await guard.verify(lobby, true, counted, 'Bearer gcm_lobby_new'), 'caller');
    clock.advance(10 * 60_000);
    assert.equal(await statusOf(guard.verify(lobby, true, failing)), 401, 'a new window, used up again');
    const floodLater = floodCheck();
    const late = guard.verify(lobby, true, counted, 'Bearer gcm_lobby_new');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(checked, 3, 'ten minutes on, it waits its turn again');
    floodLater.release();
    assert.equal(await late, 'caller');
    assert.equal(checked, 4);
    await floodLater.answer;
  });

  it('turned off (GCM_RATE_LIMIT_AUTH_FAILURES=0), answers every failure 401', async () => {
    const { guard } = newGuard(0);
    for (let i = 0; i < 5; i += 1)
      assert.equal(await statusOf(guard.verify(from('::1'), false, failing)), 401);
  });
});

describe('TokenAuthority.plausible: what an address over its limit may still have checked', () => {
  let svc: TestService;
  let publicToken: string;
  before(async () => {
    svc = await startTestService();
    publicToken = await mintPublicToken(svc, await createGameWorld(svc, 'plausible-game'));
  });
  after(() => svc?.close());

  it('is a lobby token of its exact shape, or a JWT signed with a loaded key', () => {
    const plausible = (header: string) => svc.deps.tokens.plausible(header);
    const lobby = `gcm_lobby_${randomBytes(32).toString('base64url')}`;
    assert.equal(plausible(`Bearer ${lobby}`), true);
    assert.equal(plausible(`bearer  ${lobby}`), true);
    assert.equal(plausible(`Bearer ${lobby.slice(0, -1)}`), false, 'a character short');
    assert.equal(plausible(`Bearer ${lobby}A`), false, 'a character long');
    assert.equal(plausible(`Bearer ${lobby.slice(0, -1)}+`), false, 'not base64url');
    assert.equal(plausible(lobby), false, 'not a bearer');
    assert.equal(plausible(`Bearer ${publicToken}`), true);
    const [head, body, signature] = publicToken.split('.') as [string, string, string];
    assert.equal(
      plausible(`Bearer ${head}.${body}.${'A'.repeat(signature.length)}`),
      true,
      'a forged one too',
    );
    const kid = (value: unknown) =>
      Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: value, typ: 'JWT' })).toString('base64url');
    assert.equal(plausible(`Bearer ${kid('no-such-key')}.${body}.${signature}`), false, 'an unknown key');
    assert.equal(plausible(`Bearer ${kid(7)}.${body}.${signature}`), false, 'a kid not a string');
    assert.equal(plausible(`Bearer ${head}.${body}`), false, 'two parts');
    assert.equal(plausible(`Bearer ${head}.${body}.${signature}.x`), false, 'four parts');
    assert.equal(plausible(`Bearer not-json.${body}.${signature}`), false, 'a header not JSON');
    const ours = (JSON.parse(Buffer.from(head, 'base64url').toString()) as { kid: string }).kid;
    const padded = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: ours, pad: 'x'.repeat(180) })).toString(
      'base64url',
    );
    assert.equal(plausible(`Bearer ${padded}.${body}.${signature}`), false, 'a header too long to parse');
    assert.equal(plausible(`Bearer ${svc.operatorToken}`), false, 'the operator’s: memory checks it anyway');
  });
});
