import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import * as contract from '@gcm/contract';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { AuthRule } from './auth.js';
import { pageHeaders } from './dashboard.js';
import { BODY_EXAMPLES, EXAMPLE_ID } from './openapi-examples.js';
import type { TypedApp } from './typed-app.js';

/**
 * The OpenAPI document (`GET /openapi.json`) and its page (`/docs`). Everything here shapes the document
 * only: the route schemas that validate requests and serialize responses are never changed, so naming a
 * schema or adding an example cannot alter behaviour or the serializers' speed.
 *
 * What every operation gets without its route asking (so routes added later comply too):
 * - request and response schemas exported by `@gcm/contract` become named `components.schemas` entries
 *   (the export's name, less a `Schema` suffix) referenced with `$ref`;
 * - every request body an example: those openapi-examples.ts lists for its schema, else the schema's own
 *   `examples`, else one made from the schema (required members only, each from its own `examples`,
 *   `default`, `const`, format or limits);
 * - every response a description: the schema's own, else one by status; the error ranges say what they
 *   cover for the route's callers.
 */

export const API_TITLE = 'Game Cloud Management API';
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/** No licence is granted: the service is not published (package.json is private). */
const LICENSE = { name: 'Proprietary; all rights reserved', identifier: 'LicenseRef-Proprietary' };

/** Marks a copy of a contract schema so that the finished document can move it into components. */
const COMPONENT_MARK = 'x-gcm-component';
/** @fastify/swagger takes a response's description from this key of its schema, leaving the schema as is. */
const RESPONSE_DESCRIPTION = 'x-response-description';
const SCHEMAS_PREFIX = '#/components/schemas/';
/** What OpenAPI allows as a component name. */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every object schema `@gcm/contract` exports, by identity, with the name it gets in the document. */
export const CONTRACT_COMPONENTS: ReadonlyMap<object, string> = (() => {
  const names = new Map<object, string>();
  for (const [exported, value] of Object.entries(contract as Record<string, unknown>)) {
    if (!isSchema(value) || value.type !== 'object') continue;
    const name = exported.endsWith('Schema') ? exported.slice(0, -'Schema'.length) : exported;
    if (COMPONENT_NAME.test(name)) names.set(value, name);
  }
  return names;
})();

/** Keywords whose value is a schema or a list of schemas; `propertyNames` is left out (keys, not values). */
const SUBSCHEMA_KEYWORDS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
const SUBSCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties'];

/** A copy of `schema` in which every contract schema (the root too) carries the mark naming it. */
function markComponents(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const copy: Schema = { ...schema };
  const name = CONTRACT_COMPONENTS.get(schema);
  if (name !== undefined) {
    copy[COMPONENT_MARK] = name;
    // A contract `$id` would make @fastify/swagger name the schema itself, as `def-N`.
    delete copy.$id;
  }
  for (const key of SUBSCHEMA_KEYWORDS) if (key in copy) copy[key] = markComponents(copy[key]);
  for (const key of SUBSCHEMA_LIST_KEYWORDS) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map(markComponents);
  }
  for (const key of SUBSCHEMA_MAP_KEYWORDS) {
    const map = copy[key];
    if (isSchema(map)) {
      copy[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, markComponents(v)]));
    }
  }
  return copy;
}

const EXAMPLE_TIME = '2026-01-01T12:00:00.000Z';

function matches(schema: Schema, text: string): boolean {
  const pattern = schema.pattern;
  return typeof pattern !== 'string' || new RegExp(pattern, 'u').test(text);
}

/**
 * A value `schema` accepts, as plain as the schema allows. Where the guess cannot satisfy the schema
 * (a pattern it does not know), the lint test says so: give that schema `examples` then.
 */
export function exampleOf(schema: unknown): unknown {
  if (!isSchema(schema)) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const choices = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choices)) {
    const chosen = choices.find((c) => isSchema(c) && c.type !== 'null') ?? choices[0];
    return exampleOf(chosen);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return exampleOf(schema.allOf[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      for (const [key, member] of Object.entries(isSchema(schema.properties) ? schema.properties : {})) {
        // Optional members appear only when their schema has an example worth showing.
        if (required.has(key) || (isSchema(member) && Array.isArray(member.examples))) {
          out[key] = exampleOf(member);
        }
      }
      return out;
    }
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      if (schema.maxItems === 0) return [];
      const item = exampleOf(schema.items);
      return Array.from({ length: Math.max(1, minItems) }, () => item);
    }
    case 'string':
      return exampleString(schema);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      if (min !== undefined && min > 0) return min;
      if (max !== undefined && max < 0) return max;
      return 0;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

function exampleString(schema: Schema): string {
  if (schema.format === 'uuid') return EXAMPLE_ID;
  if (schema.format === 'date-time') return EXAMPLE_TIME;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  for (const candidate of ['example', 'x', '1']) {
    const text = candidate.length < minLength ? candidate.padEnd(minLength, candidate) : candidate;
    if (text.length <= maxLength && matches(schema, text)) return text;
  }
  return 'example';
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'Success',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'Success; no body',
};

/** What the error ranges cover, for the callers a route has. */
function errorDescriptions(auth: AuthRule | undefined): Record<string, string> {
  const tokenErrors =
    auth === 'public'
      ? ''
      : '401 no token or one that is not valid, expired or revoked; 403 not this token; ';
  return {
    '4xx':
      `The request was refused; the body's \`code\` says why (the README lists every code), for example: ` +
      `400 a malformed request or a rule it breaks (\`VALIDATION_ERROR\` lists each); ${tokenErrors}` +
      '404 no such thing; 409 a conflict with the current state; 413 a body over the size limit; ' +
      '429 too many requests from this address (`Retry-After` says when to try again).',
    '5xx': 'The service failed (500) or is shutting down (503); `ray_id` names the log line.',
  };
}

function describeResponse(schema: unknown, status: string, auth: AuthRule | undefined): unknown {
  if (!isSchema(schema)) return schema;
  // The error ranges share one schema (ErrorBody, described as such): what they mean differs by route.
  const given =
    schema[RESPONSE_DESCRIPTION] ?? errorDescriptions(auth)[status.toLowerCase()] ?? schema.description;
  const description =
    typeof given === 'string' && given !== ''
      ? given
      : (SUCCESS_DESCRIPTIONS[status] ?? `Status ${status} (no description given)`);
  return { ...schema, [RESPONSE_DESCRIPTION]: description };
}

/** The @fastify/swagger `transform`: the document's view of one route (see the comment at the top). */
export function documentRoute({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: RouteOptions;
}): {
  schema: FastifySchema;
  url: string;
} {
  if (schema === undefined) return { schema, url };
  const out: FastifySchema = { ...schema };
  if (schema.body !== undefined) {
    const body = markComponents(schema.body) as Schema;
    const listed = isSchema(schema.body) ? BODY_EXAMPLES.get(schema.body) : undefined;
    if (listed !== undefined) body.examples = [...listed];
    else if (!Array.isArray(body.examples) || body.examples.length === 0)
      body.examples = [exampleOf(schema.body)];
    out.body = body;
  }
  const auth = (route.config as { auth?: AuthRule } | undefined)?.auth;
  if (isSchema(schema.response)) {
    out.response = Object.fromEntries(
      Object.entries(schema.response).map(([status, response]) => [
        status,
        describeResponse(markComponents(response), status.toUpperCase(), auth),
      ]),
    );
  }
  return { schema: out, url };
}

/**
 * Moves every marked schema into `components.schemas` under its name and leaves a `$ref` in its place.
 * The first copy of a name wins: all of them come from the same contract object.
 */
export function hoistComponents<D extends object>(document: D): D {
  const doc = document as Schema;
  const components = (isSchema(doc.components) ? doc.components : {}) as Schema;
  const schemas = (isSchema(components.schemas) ? components.schemas : {}) as Schema;
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!isSchema(node)) return node;
    const copy: Schema = {};
    for (const [key, value] of Object.entries(node)) if (key !== COMPONENT_MARK) copy[key] = hoist(value);
    const name = node[COMPONENT_MARK];
    if (typeof name !== 'string') return copy;
    if (!(name in schemas)) schemas[name] = copy;
    return { $ref: `${SCHEMAS_PREFIX}${name}` };
  };
  const paths = hoist(doc.paths);
  // Components may hold marked schemas too (schemas nested under a shared `$id`).
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = hoist(schema);
  return {
    ...doc,
    paths,
    components: { ...components, schemas: Object.fromEntries(Object.entries(schemas).sort()) },
  } as D;
}

/**
 * The one inline style swagger-ui's page has: the `<style>` inside its top bar's logo (an SVG), whose text
 * is `.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`. Should an upgrade change it,
 * the browser test of the page (test/browser/docs-page.test.ts) reports the refused style and its hash.
 */
const SWAGGER_LOGO_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

/**
 * Registers the document at `/openapi.json` and the swagger-ui page at `/docs`, reading that document.
 * `publicUrl` is where clients reach the service (GCM_PUBLIC_URL): the document's one server.
 */
export async function registerOpenApi(app: TypedApp, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: API_TITLE,
        version: '0.1.0',
        description:
          'Control plane for multiplayer game hosting: games, their namespaces (environments), versions and ' +
          'builds, tokens, lobby logs and billing. Every error body is `{code, message, ray_id, metadata?}`.',
        license: LICENSE,
      },
      servers: [{ url: publicUrl, description: 'this service (GCM_PUBLIC_URL)' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'the operator token, a game cloud token or a lobby reporter token',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'gcm.session_token',
            description:
              'a person signed in through POST /auth/sign-in/email (named __Secure-gcm.session_token on https); ' +
              'writes must come from a trusted origin (Origin header)',
          },
        },
      },
    },
    // Routes live at the root whatever path GCM_PUBLIC_URL has: its path is the server's, not theirs.
    stripBasePath: false,
    transform: documentRoute,
    transformObject: (document) => hoistComponents('openapiObject' in document ? document.openapiObject : {}),
    refResolver: {
      // A schema with an `$id` of its own keeps it as its name (the default calls every one `def-N`).
      buildLocalReference(json, _baseUri, _fragment, i) {
        const id = json.$id;
        return typeof id === 'string' && COMPONENT_NAME.test(id) ? id : `def-${i}`;
      },
    },
  });
  // The page is held to the dashboard's rules (its own scripts and styles only, no framing); "Try it out"
  // may call the service at its public URL, should the page be read at another address.
  const docsHeaders = pageHeaders([new URL(publicUrl).origin], [SWAGGER_LOGO_STYLE]);
  await app.register(async (docs) => {
    docs.addHook('onSend', (_request, reply, payload, done) => {
      reply.headers(docsHeaders);
      done(null, payload);
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      theme: { title: API_TITLE },
      // With `urls`, swagger-ui loads the first of them rather than the plugin's own `/docs/json` copy.
      uiConfig: { urls: [{ url: OPENAPI_PATH, name: API_TITLE }] },
    });
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
