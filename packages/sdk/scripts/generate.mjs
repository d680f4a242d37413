#!/usr/bin/env node
/**
 * Writes src/schema.ts, the SDK's types, from the service's OpenAPI document: `npm run generate -w @gcm/sdk`
 * after `npm run build -w @gcm/server` (the document comes from the server's dist, exactly as GET
 * /openapi.json serves it). The file is committed, so building the SDK needs no server; a test of the server
 * (test/sdk/schema.test.ts) fails when it differs from what the current routes generate.
 *
 *   --openapi FILE   read the document from FILE instead of asking the built server for it
 *   --out FILE       write somewhere else than src/schema.ts (the test compares in a temp dir)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const WRITE_OPENAPI = path.resolve(HERE, '../../server/dist/scripts/write-openapi.js');

const HEADER = `/**
 * The service's HTTP API as types, generated from its OpenAPI document by packages/sdk/scripts/generate.mjs.
 * Do not edit: after changing a route's schemas run
 * \`npm run build -w @gcm/server && npm run generate -w @gcm/sdk\`.
 */

`;

function documentFromServer() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-sdk-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    execFileSync(process.execPath, [WRITE_OPENAPI, file], { stdio: ['ignore', 'inherit', 'inherit'] });
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: { openapi: { type: 'string' }, out: { type: 'string' } },
});
const document = JSON.parse(
  values.openapi === undefined ? documentFromServer() : readFileSync(values.openapi, 'utf8'),
);
// rootTypes: `SchemaGameSummary` beside `components['schemas']['GameSummary']`, for callers who like names.
const source = HEADER + astToString(await openapiTS(document, { rootTypes: true }));
const out = values.out ?? path.resolve(HERE, '../src/schema.ts');
writeFileSync(out, source);
process.stderr.write(`wrote ${path.relative(process.cwd(), out) || out}\n`);
