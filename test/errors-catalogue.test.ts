import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../src/errors.js';

describe('error catalogue', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('documents every code in the README with its status', () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      assert.ok(row, `README has no row for ${code}`);
      assert.ok(row.includes(`| ${status} |`), `README row for ${code} does not give status ${status}`);
    }
  });

  it('uses UPPER_SNAKE codes', () => {
    for (const code of Object.keys(ERROR_CATALOGUE)) assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });
});
