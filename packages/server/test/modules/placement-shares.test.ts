/**
 * The host shares' arithmetic (placement-shares.ts), without an engine or a store: each namespace's share
 * and reservation, what a placement must leave for other tenants, and the verdict at each boundary; then a
 * flood played out on one host. The same rule on a real host, through find and create, is in
 * matchmaker-auto-create.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type HostTenant,
  namespaceReservation,
  placementVerdict,
  reservedFromOthers,
  sharesOf,
} from '../../src/modules/runtime/placement-shares.js';
import { sqliteOnly } from '../helpers/stores.js';

const tenant = (namespaceId: string, gameId: string, idleMin: number, live = 0): HostTenant => ({
  namespaceId,
  gameId,
  idleMin,
  live,
});

describe('the host shares', sqliteOnly, () => {
  it('shares the capacity over the namespaces and the games that keep idle lobbies there', () => {
    assert.deepEqual(sharesOf(24, []), { namespaceShare: 0, gameShare: 0 });
    assert.deepEqual(sharesOf(24, [tenant('a1', 'a', 0, 5)]), { namespaceShare: 0, gameShare: 0 });
    const three = [tenant('b1', 'b', 1), tenant('b2', 'b', 2), tenant('c1', 'c', 1), tenant('a1', 'a', 0)];
    assert.deepEqual(sharesOf(24, three), { namespaceShare: 8, gameShare: 12 });
    assert.deepEqual(sharesOf(25, three), { namespaceShare: 8, gameShare: 12 }, 'rounded down');
    assert.deepEqual(sharesOf(2, three), { namespaceShare: 0, gameShare: 1 });
  });

  it("reserves a namespace's idle minimum while it runs less than its share", () => {
    assert.equal(namespaceReservation(tenant('a', 'a', 0), 8), 0, 'no idle minimum, nothing reserved');
    assert.equal(namespaceReservation(tenant('b', 'b', 2), 8), 2);
    assert.equal(namespaceReservation(tenant('b', 'b', 2, 6), 8), 2);
    assert.equal(namespaceReservation(tenant('b', 'b', 2, 7), 8), 1, 'up to its share');
    assert.equal(namespaceReservation(tenant('b', 'b', 2, 8), 8), 0);
    assert.equal(namespaceReservation(tenant('b', 'b', 2, 11), 8), 0, 'over its share: none');
    assert.equal(namespaceReservation(tenant('b', 'b', -1), 8), 0);
  });

  it("leaves other games' reservations, each game's within its share, and the asking game's other namespaces'", () => {
    // Capacity 6: three reserving namespaces (share 2), two reserving games (share 3).
    const tenants = [
      tenant('b1', 'b', 3),
      tenant('b2', 'b', 3),
      tenant('c1', 'c', 1),
      tenant('a1', 'a', 0, 0),
    ];
    assert.equal(reservedFromOthers(6, tenants, { namespaceId: 'a1', gameId: 'a' }), 3 + 1, 'b capped at 3');
    assert.equal(reservedFromOthers(6, tenants, { namespaceId: 'c1', gameId: 'c' }), 3);
    assert.equal(
      reservedFromOthers(6, tenants, { namespaceId: 'b1', gameId: 'b' }),
      2 + 1,
      "its sibling's own reservation, and c's",
    );
    // b runs 2 lobbies: b1 is at its share, and b's reservations stop at what its game share leaves.
    const busy = [tenant('b1', 'b', 3, 2), tenant('b2', 'b', 3), tenant('c1', 'c', 1)];
    assert.equal(reservedFromOthers(6, busy, { namespaceId: 'a1', gameId: 'a' }), 1 + 1);
    // A game's namespaces together: their sum, not each namespace's share, counts against another game.
    const many = [tenant('m1', 'm', 1), tenant('m2', 'm', 1), tenant('m3', 'm', 1), tenant('n1', 'n', 1)];
    assert.equal(reservedFromOthers(8, many, { namespaceId: 'n1', gameId: 'n' }), 3);
    assert.equal(reservedFromOthers(4, many, { namespaceId: 'n1', gameId: 'n' }), 2, "m's game share");
    // Siblings are not held to the game's share: the game's own flood does not eat its other namespaces'.
    const siblings = [tenant('s1', 's', 0, 3), tenant('s2', 's', 2), tenant('s3', 's', 2)];
    assert.equal(reservedFromOthers(8, siblings, { namespaceId: 's1', gameId: 's' }), 4);
    // Capacity 8 over three reserving namespaces (2 each) and two games (4 each): s2 runs 3 lobbies, so the
    // game s as another game would keep 4 - 3 = 1; its own namespaces keep s3's 2.
    const crowded = [
      tenant('s1', 's', 0),
      tenant('s2', 's', 2, 3),
      tenant('s3', 's', 2),
      tenant('t1', 't', 1),
    ];
    assert.equal(reservedFromOthers(8, crowded, { namespaceId: 's1', gameId: 's' }), 2 + 1);
  });

  it('places while one more lobby leaves the reservations free, at each boundary', () => {
    const others = [tenant('b1', 'b', 2, 1)];
    const a = { namespaceId: 'a1', gameId: 'a' };
    assert.equal(placementVerdict(4, 1, others, a), 'ok', '1 + 1 + 2 = 4');
    assert.equal(placementVerdict(4, 2, others, a), 'host-share', '2 + 1 + 2 > 4');
    assert.equal(placementVerdict(4, 3, others, a), 'host-share');
    assert.equal(placementVerdict(4, 4, others, a), 'host-full');
    assert.equal(placementVerdict(4, 5, others, a), 'host-full');
    assert.equal(placementVerdict(4, 3, [], a), 'ok', 'nobody reserves: the last slot is anyone’s');
    const b = { namespaceId: 'b1', gameId: 'b' };
    assert.equal(placementVerdict(4, 3, others, b), 'ok', 'its own reservation is its to take');
  });

  it('keeps a flooding game from the slots another game needs for its idle minimum', () => {
    const capacity = 24;
    const tenants = [tenant('a1', 'a', 0), tenant('b1', 'b', 2, 2)];
    const place = (namespaceId: string) => {
      const t = tenants.find((x) => x.namespaceId === namespaceId) as HostTenant;
      const live = tenants.reduce((sum, x) => sum + x.live, 0);
      const verdict = placementVerdict(capacity, live, tenants, t);
      if (verdict === 'ok') t.live++;
      return verdict;
    };
    let flooded = 0;
    while (place('a1') === 'ok') flooded++;
    assert.equal(flooded, 24 - 2 - 2, "a fills all but b's lobbies and b's reservation");
    assert.equal(place('a1'), 'host-share');
    // b's players take its idle lobbies; its reconciler starts their replacements at once.
    assert.equal(place('b1'), 'ok');
    assert.equal(place('b1'), 'ok');
    assert.equal(place('b1'), 'host-full');
  });
});
