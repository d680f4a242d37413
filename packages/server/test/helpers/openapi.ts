import type { JsonSchema } from './schema-arbitrary.js';
import type { TestService } from './service.js';

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, unknown>;
}

export interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One operation of the document, as the suites that walk every route see it. */
export interface DocOperation {
  method: HttpMethod;
  /** In `{param}` form, as the document writes it. */
  path: string;
  operationId: string;
  op: OpenApiOperation;
}

const METHODS: Record<string, HttpMethod> = {
  get: 'GET',
  post: 'POST',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
};

/** The service's OpenAPI document as served, fetched as any client would (no token). */
export async function readRawOpenApi(svc: TestService): Promise<Record<string, unknown>> {
  const res = await svc.call('GET', '/openapi.json', { token: null });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json: ${res.statusCode} ${res.body}`);
  return res.json<Record<string, unknown>>();
}

/**
 * The service's own OpenAPI document with every `$ref` to `#/components/schemas/...` replaced by the schema
 * it names, so that suites walking the schemas see each one where it is used.
 */
export async function readOpenApi(svc: TestService): Promise<OpenApiDoc> {
  return dereference(await readRawOpenApi(svc)) as unknown as OpenApiDoc;
}

const SCHEMA_REF = '#/components/schemas/';

/** `document` with its component schema references inlined; a reference cycle is an error (none exists). */
export function dereference(document: Record<string, unknown>): Record<string, unknown> {
  const components =
    (document.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {};
  const inline = (node: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, seen));
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF)) {
      const name = ref.slice(SCHEMA_REF.length);
      if (seen.includes(name)) throw new Error(`schema reference cycle: ${[...seen, name].join(' → ')}`);
      if (!(name in components)) throw new Error(`unresolved reference ${ref}`);
      return inline(components[name], [...seen, name]);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, seen)]));
  };
  return { ...document, paths: inline(document.paths, []) };
}

/** Every operation of the document; one it lists under a method no suite knows how to send is an error. */
export function listOperations(doc: OpenApiDoc): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [key, op] of Object.entries(item)) {
      if (key === 'parameters' || key === 'summary' || key === 'description' || key === 'servers') continue;
      const method = METHODS[key];
      if (method === undefined)
        throw new Error(`${key.toUpperCase()} ${path}: a method the suites cannot send`);
      out.push({ method, path, operationId: op.operationId ?? `${key} ${path}`, op });
    }
  }
  return out;
}

/** The JSON schema of an operation's body, if it takes a JSON body. */
export function jsonBodySchema(op: OpenApiOperation): JsonSchema | undefined {
  return op.requestBody?.content?.['application/json']?.schema;
}

/** `/a/{x}/b` with `{x}` replaced by `values.x`, which the caller has already encoded as it wants. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
    return value;
  });
}

/** The docs page's own assets (scripts, styles, its copies of the document): public, served by swagger-ui. */
export function isDocsAsset(path: string): boolean {
  return /^\/docs(\/|$)/.test(path);
}

/**
 * The routes the public document leaves out, as `METHOD /path/{param}` keys (the docs page's own assets
 * aside): the suites that walk the document must cover each of these some other way.
 */
export function hiddenRouteKeys(svc: TestService): string[] {
  return svc.app.routeTable
    .filter((r) => r.hidden && !isDocsAsset(r.url))
    .map((r) => `${r.method} ${r.url.replace(/:([a-z_]+)/g, '{$1}')}`);
}
