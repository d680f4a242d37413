import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../src/errors.js';

describe('error catalogue', () => {
  const doc = readFileSync(new URL('../../../docs/api-and-errors.md', import.meta.url), 'utf8');

  it('documents every code in docs/api-and-errors.md with its status', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      const rows = doc.split('\n').filter((line) => line.startsWith(`| \`${code}\` |`));
      assert.ok(rows.length > 0, `docs/api-and-errors.md has no row for ${code}`);
      // A code sent with a second status (a token given as input: 400) has a row for each.
      const statuses = 'inputStatus' in entry ? [entry.status, entry.inputStatus] : [entry.status];
      for (const status of statuses) {
        assert.ok(
          rows.some((row) => row.includes(`| ${status} |`)),
          `docs/api-and-errors.md has no row for ${code} with status ${status}`,
        );
      }
    }
  });

  it('uses UPPER_SNAKE codes', () => {
    for (const code of Object.keys(ERROR_CATALOGUE)) assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });
});
