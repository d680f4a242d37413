import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SETTINGS } from '../src/config.js';
import { REPO_ROOT } from './helpers/paths.js';

const CONFIGURATION_DOC = path.join(REPO_ROOT, 'docs/configuration.md');

/** The settings table's rows: the variable and its Default cell. */
function documentedRows(): Map<string, string> {
  const text = readFileSync(CONFIGURATION_DOC, 'utf8');
  return new Map(
    [...text.matchAll(/^\| `([A-Z0-9_]+)` \| (.*?) \|/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

describe('docs/configuration.md', () => {
  it('has a row for every setting, and a setting for every row (OTEL_* belong to the tracing SDK)', () => {
    const rows = documentedRows();
    const settings = SETTINGS.map((setting) => setting.env);
    assert.deepEqual(
      settings.filter((name) => !rows.has(name)),
      [],
      'settings the table is missing',
    );
    assert.deepEqual(
      [...rows.keys()].filter((name) => !name.startsWith('OTEL_') && !settings.includes(name)),
      [],
      'rows no setting reads',
    );
  });

  it('states each fixed default as the config schema has it', () => {
    const rows = documentedRows();
    for (const { env, documentedDefault } of SETTINGS) {
      if (documentedDefault === undefined) continue;
      const cell = rows.get(env) ?? '';
      assert.ok(
        cell.startsWith(documentedDefault),
        `${env}: the docs say ${cell}, the schema ${documentedDefault}`,
      );
    }
  });
});
