import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { API_TITLE } from '../../src/http/openapi.js';
import { dereference, listOperations, type OpenApiDoc, readRawOpenApi } from '../helpers/openapi.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The live document against redocly's `recommended` rules (what `redocly lint` runs by default), and the
 * promises those rules do not cover: an example for every request body, a description for every response,
 * `format: uuid` on every id. Everything here holds by construction (routeOptions and http/openapi.ts), so
 * a route added later fails here only when it does something unusual; the messages say what to change.
 */

const PUBLIC_URL = 'https://gcm.studio.test/api';

/** Properties named like ids that are not UUIDs: names, regions, and the build a version config names. */
// game_mode_id: the original's lobby list names game modes by their name id, as region_id regions.
const NOT_UUIDS = new Set([
  'name_id',
  'region_id',
  'lobby_group_name_id',
  'site_id',
  'image_id',
  'game_mode_id',
]);

type Json = Record<string, unknown>;

async function lint(document: Json) {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: 'openapi.json',
    config,
  });
  return problems.map(
    (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '(no location)'}`,
  );
}

/** Every schema property in `node` with its name and where it is. */
function properties(node: unknown, at: string, out: { name: string; schema: Json; at: string }[]) {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      properties(item, `${at}/${i}`, out);
    });
    return out;
  }
  if (typeof node !== 'object' || node === null) return out;
  const props = (node as Json).properties;
  if (typeof props === 'object' && props !== null && !Array.isArray(props)) {
    for (const [name, schema] of Object.entries(props)) out.push({ name, schema: schema as Json, at });
  }
  for (const [key, value] of Object.entries(node)) properties(value, `${at}/${key}`, out);
  return out;
}

describe('OpenAPI document: redocly lint and completeness', () => {
  let svc: TestService;
  let raw: Json;
  let doc: OpenApiDoc;

  before(async () => {
    svc = await startTestService({ env: { GCM_PUBLIC_URL: PUBLIC_URL } });
    raw = await readRawOpenApi(svc);
    doc = dereference(raw) as unknown as OpenApiDoc;
  });
  after(() => svc.close());

  it('passes redocly lint with the recommended rules: no error, no warning', async () => {
    assert.deepEqual(await lint(raw), []);
  });

  it('with the default GCM_PUBLIC_URL (localhost) only the server gets a warning', async () => {
    const local = await startTestService();
    try {
      const problems = await lint(await readRawOpenApi(local));
      assert.deepEqual(problems, [
        'warn no-server-example.com: Server `url` should not point to example.com or localhost. at #/servers/0/url',
      ]);
    } finally {
      await local.close();
    }
  });

  it('names the service, its licence and GCM_PUBLIC_URL as its server', () => {
    const info = raw.info as { title: string; license?: { name?: string } };
    assert.equal(info.title, API_TITLE);
    assert.equal(typeof info.license?.name, 'string');
    assert.deepEqual(
      (raw.servers as { url: string }[]).map((s) => s.url),
      [PUBLIC_URL],
    );
    // The server URL's path is the deployment's prefix, not part of the routes' paths.
    assert.ok(Object.keys(raw.paths as Json).includes('/cloud/games'));
  });

  it('uses named component schemas, referenced with $ref', () => {
    const schemas = (raw.components as { schemas?: Json }).schemas ?? {};
    for (const name of ['ErrorBody', 'GameFull', 'NamespaceFull', 'VersionBody', 'VersionConfig', 'Build']) {
      assert.ok(name in schemas, `components.schemas.${name} is missing`);
    }
    assert.deepEqual(
      Object.keys(schemas).filter((name) => /^def-\d+$/.test(name)),
      [],
      'an unnamed def-N component: give the schema a name (export it from @gcm/contract)',
    );
    const text = JSON.stringify(raw.paths);
    for (const name of Object.keys(schemas)) {
      assert.ok(
        text.includes(`"#/components/schemas/${name}"`) ||
          JSON.stringify(schemas).includes(`"#/components/schemas/${name}"`),
        `${name} is never referenced`,
      );
    }
  });

  it('gives every request body an example', () => {
    const missing: string[] = [];
    for (const { method, path, op } of listOperations(doc)) {
      const body = (op as { requestBody?: { content?: Record<string, Json> } }).requestBody;
      for (const [type, media] of Object.entries(body?.content ?? {})) {
        if (media.example === undefined && media.examples === undefined)
          missing.push(`${method} ${path} ${type}`);
      }
    }
    assert.deepEqual(missing, [], 'list an example in src/http/openapi-examples.ts');
  });

  it('describes every response of every operation, error ranges and 204s included', () => {
    const undescribed: string[] = [];
    let errorRanges = 0;
    for (const { method, path, op } of listOperations(doc)) {
      const responses = (op.responses ?? {}) as Record<string, { description?: string }>;
      assert.ok(Object.keys(responses).length > 0, `${method} ${path} has no responses`);
      for (const [status, response] of Object.entries(responses)) {
        const text = response.description ?? '';
        if (text.trim() === '' || text === 'Default Response' || text.includes('no description given')) {
          undescribed.push(`${method} ${path} ${status}`);
        }
        if (status === '4XX' || status === '5XX') errorRanges++;
      }
      assert.ok('4XX' in responses && '5XX' in responses, `${method} ${path} lacks the error ranges`);
    }
    assert.deepEqual(undescribed, []);
    assert.ok(errorRanges > 0);
  });

  it('says on every operation whether it needs a token: security [], bearerAuth, or either credential', () => {
    for (const { method, path, op } of listOperations(doc)) {
      const where = `${method} ${path}`;
      assert.ok(Array.isArray(op.security), `${where} does not declare security`);
      const isPublic = (op.description ?? '').startsWith('Who may call: anyone');
      // The text says whether a signed-in person may call, and the security list must say the same.
      const people = (op.description ?? '').includes('Or a signed-in person (session cookie)');
      if (isPublic) assert.deepEqual(op.security, [], where);
      else if (people) assert.deepEqual(op.security, [{ bearerAuth: [] }, { sessionCookie: [] }], where);
      else assert.deepEqual(op.security, [{ bearerAuth: [] }], where);
    }
  });

  it('marks every id (parameters, bodies, responses) as format uuid', () => {
    const wrong: string[] = [];
    for (const { method, path, op } of listOperations(doc)) {
      for (const p of op.parameters ?? []) {
        if (/(^|_)id$/.test(p.name) && !NOT_UUIDS.has(p.name) && p.schema?.format !== 'uuid') {
          wrong.push(`${method} ${path} ${p.in} ${p.name}`);
        }
      }
      const found = properties({ body: op.requestBody, responses: op.responses }, '', []);
      for (const { name, schema, at } of found) {
        if (!/(^|_)id$/.test(name) || NOT_UUIDS.has(name)) continue;
        const string =
          schema.type === 'string' || (schema.anyOf as Json[] | undefined)?.[0]?.type === 'string';
        const format = schema.format ?? (schema.anyOf as Json[] | undefined)?.[0]?.format;
        if (string && format !== 'uuid') wrong.push(`${method} ${path} ${at} ${name}`);
      }
    }
    assert.deepEqual(wrong, [], 'use Id or IdOf from @gcm/contract for ids');
  });
});
