import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dereference, readRawOpenApi } from '../helpers/openapi.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Every string a request can carry has a length limit, every list a size limit and every map an entry
 * limit, written in its schema: read off the OpenAPI document, so a route added without limits fails here.
 */

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every place in `schema` that lacks a limit, as dotted paths. */
function unbounded(schema: unknown, at: string, out: string[]): string[] {
  if (!isSchema(schema)) return out;
  const type = schema.type;
  const constrained = 'enum' in schema || 'const' in schema;
  if (type === 'string' && !constrained && typeof schema.maxLength !== 'number') out.push(`${at}: string`);
  if (type === 'array' && typeof schema.maxItems !== 'number') out.push(`${at}: array`);
  const map = schema.additionalProperties;
  if (isSchema(map) && typeof schema.maxProperties !== 'number') out.push(`${at}: map`);
  if (isSchema(map)) unbounded(map, `${at}.*`, out);
  if (isSchema(schema.propertyNames))
    unbounded({ type: 'string', ...schema.propertyNames }, `${at}.<key>`, out);
  if (isSchema(schema.properties)) {
    for (const [name, member] of Object.entries(schema.properties)) unbounded(member, `${at}.${name}`, out);
  }
  if (schema.items !== undefined) unbounded(schema.items, `${at}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    for (const [i, member] of members.entries()) unbounded(member, `${at}<${key}${i}>`, out);
  }
  return out;
}

describe('schema limits', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('bounds every string, list and map of every request (path, query and body)', async () => {
    const doc = dereference(await readRawOpenApi(svc)) as { paths: Record<string, Record<string, Schema>> };
    const missing: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        const parameters = Array.isArray(op.parameters) ? (op.parameters as Schema[]) : [];
        for (const p of parameters)
          unbounded(p.schema, `${where} ${String(p.in)}.${String(p.name)}`, missing);
        const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)
          ?.content;
        for (const [type, content] of Object.entries(body ?? {})) {
          unbounded(content.schema, `${where} body(${type})`, missing);
        }
        checked++;
      }
    }
    assert.ok(checked >= 40, `only ${checked} operations in the document`);
    assert.deepEqual(missing, []);
  });

  it('finds an unbounded string, list and map (the check itself)', () => {
    assert.deepEqual(
      unbounded(
        {
          type: 'object',
          properties: {
            s: { type: 'string' },
            l: { type: 'array', items: { type: 'string', maxLength: 1 } },
            m: { type: 'object', additionalProperties: { type: 'string', maxLength: 1 } },
          },
        },
        'x',
        [],
      ),
      ['x.s: string', 'x.l: array', 'x.m: map'],
    );
  });
});
