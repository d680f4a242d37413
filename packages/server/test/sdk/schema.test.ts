import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SERVER_ROOT } from '../helpers/paths.js';
import { outputUntilClose } from '../helpers/process.js';
import { sqliteOnly } from '../helpers/stores.js';

/**
 * The SDK's types are committed (packages/sdk/src/schema.ts), so that building it needs no server. They must
 * be what the routes as they stand generate: the document is written from this source tree, then turned into
 * types by the very script `npm run generate -w @gcm/sdk` runs.
 */

const SERVER = SERVER_ROOT;
const SDK = path.resolve(SERVER, '../sdk');
const COMMITTED = path.join(SDK, 'src/schema.ts');
const REGENERATE = 'npm run build -w @gcm/server && npm run generate -w @gcm/sdk';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'gcm-sdk-schema-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

async function ok(args: string[], cwd: string): Promise<void> {
  const res = await outputUntilClose(
    spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  assert.equal(res.code, 0, `node ${args.join(' ')} failed:\n${res.stderr}\n${res.stdout}`);
}

/** Where two texts part, with a few lines of each from there: a 240 kB diff says nothing. */
function firstDifference(want: string, got: string): string {
  const a = want.split('\n');
  const b = got.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line += 1;
  const show = (lines: string[]) => lines.slice(line, line + 4).join('\n');
  return `first difference at line ${line + 1}:\n--- generated now\n${show(a)}\n--- committed\n${show(b)}`;
}

// The document does not depend on the store; the PostgreSQL pass would only repeat the check.
test('the SDK’s committed types are what the service’s OpenAPI document generates', sqliteOnly, async () => {
  const document = path.join(scratch, 'openapi.json');
  const generated = path.join(scratch, 'schema.ts');
  await ok(['--import', 'tsx', 'src/scripts/write-openapi.ts', document], SERVER);
  await ok(['scripts/generate.mjs', '--openapi', document, '--out', generated], SDK);
  const want = readFileSync(generated, 'utf8');
  const got = readFileSync(COMMITTED, 'utf8');
  assert.ok(
    want === got,
    `packages/sdk/src/schema.ts is not what the routes generate: run \`${REGENERATE}\` and commit it\n` +
      firstDifference(want, got),
  );
});
