import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../src/errors.js';
import { REPO_ROOT } from './helpers/paths.js';

describe('error catalogue', () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/api-and-errors.md'), 'utf8');

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
