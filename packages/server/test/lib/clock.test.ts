import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import { toTimestamp } from '../../src/lib/clock.js';

describe('toTimestamp', () => {
  it('writes what Date#toISOString writes, at the edges of days, months, leap years and its range', () => {
    const edges = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      // Outside the fast range, and not whole milliseconds: toISOString's own answer.
      Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1,
      -1,
      Date.UTC(1969, 11, 31, 12),
      1_735_689_600_000.5,
    ];
    for (const ms of edges) assert.equal(toTimestamp(ms), new Date(ms).toISOString(), String(ms));
  });

  it('writes what Date#toISOString writes for random moments from 1970 to 9999, in any order', () => {
    for (let i = 0; i < 100_000; i++) {
      // Half of them near the previous one (same day, as in a page), half anywhere.
      const ms =
        i % 2 === 0
          ? randomInt(0, 253_402_300_800_000)
          : Date.UTC(2026, 10, 24) + randomInt(0, 3 * 86_400_000);
      assert.equal(toTimestamp(ms), new Date(ms).toISOString(), String(ms));
    }
  });
});
