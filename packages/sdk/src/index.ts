/**
 * The one client of the service's HTTP API, for the CLI, the dashboard and a studio's own backend:
 * openapi-fetch over types generated from the service's own OpenAPI document (src/schema.ts), so a path,
 * its parameters, its body and its answer are checked together; refusals as ApiError; retries with backoff.
 * No Node-only module: it runs in Node 20+ and in a browser.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { NetworkError, toApiError } from './errors.js';
import type { components, paths } from './schema.js';

export * from './errors.js';
export * from './retry.js';
export type { components, operations, paths } from './schema.js';

/** A named schema of the API as the OpenAPI document defines it: `Schema<'GameSummary'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** `GET`, `POST`, `PUT`, `PATCH` and `DELETE` over the API's paths, each typed from the document. */
export type GcmClient = Client<paths>;

export interface GcmClientOptions {
  /** The service's address (`https://cloud.example`); `''` in a browser page the service serves. */
  baseUrl: string;
  /** A bearer token (a cloud token, the operator token); none in a browser, whose session cookie goes along. */
  token?: string | undefined;
  /** Headers every request carries (a User-Agent, say). */
  headers?: Record<string, string>;
  /** `same-origin` in the dashboard, so the session cookie is sent. */
  credentials?: RequestInit['credentials'];
  /** The fetch to use; the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A fetch that could not reach the service becomes a NetworkError naming why; a cancelled one stays as it is. */
function networkErrors(baseUrl: string): Middleware {
  return {
    onError({ request, error }) {
      if (request.signal.aborted) return undefined;
      const err = error as { message?: string; cause?: { code?: string; message?: string } };
      return new NetworkError(
        `could not reach ${baseUrl}: ${err.cause?.code ?? err.cause?.message ?? err.message ?? String(error)}`,
      );
    },
  };
}

export function createGcmClient(options: GcmClientOptions): GcmClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: {
      ...options.headers,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  client.use(networkErrors(options.baseUrl));
  return client;
}

/**
 * A call's answer as its data, or its refusal thrown as an ApiError: `await unwrap(api.GET('/cloud/games'))`.
 * The data's type is the one the document gives the operation's success answer.
 */
export async function unwrap<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await pending;
  if (error !== undefined || !response.ok) throw toApiError(response, error);
  // openapi-fetch leaves data undefined only for an empty success (204), whose type is never read.
  return data as T;
}
