import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

/** The service's typed API client: same origin, so the session cookie goes along and nothing else does. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

export type ErrorBody = components['schemas']['ErrorBody'];
export type GameSummary = components['schemas']['GameSummary'];
export type GameFull = components['schemas']['GameFull'];
export type Inspect = components['schemas']['InspectResponse'];
export type Person = NonNullable<Inspect['agent']['person']>;

/** A refusal of the service, carrying its own words: `{code, message, ray_id}` as the body said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly rayId: string | undefined,
    /** The body's metadata: which field a refusal is about (`field`, `errors`, better-auth's `auth_code`). */
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** The error a failed answer stands for: the service's body when it sent one, else the HTTP status. */
export function toApiError(response: Response, body: unknown): ApiError {
  if (isErrorBody(body))
    return new ApiError(response.status, body.code, body.message, body.ray_id, body.metadata);
  return new ApiError(response.status, 'HTTP_ERROR', `the service answered ${response.status}`, undefined);
}

/** openapi-fetch's answer as its data, or thrown as an ApiError (what TanStack Query expects). */
export async function unwrap<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await pending;
  if (error !== undefined || !response.ok) throw toApiError(response, error);
  return data as T;
}
