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

/** The service's own OpenAPI document, fetched as any client would (no token). */
export async function readOpenApi(svc: TestService): Promise<OpenApiDoc> {
  const res = await svc.call('GET', '/openapi.json', { token: null });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json: ${res.statusCode} ${res.body}`);
  return res.json<OpenApiDoc>();
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
