import type { components } from './schema.js';

/** Every refusal of the service has this body: `{code, message, ray_id, documentation?, metadata?}`. */
export type ErrorBody = components['schemas']['ErrorBody'];

/** A refusal from the service: its status and error body (`code` from the README's Errors table). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The body's ray_id (else the X-Ray-Id header): what finds the request in the service's log. */
    readonly rayId: string | undefined,
    /** The body's metadata: what a refusal is about (`field`, `errors`, `retry_after_seconds`, …); `{}` if none. */
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The service could not be reached at all (refused, DNS, TLS, a dropped connection). */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a parsed body is the service's error body (a proxy's page or an object store's XML is not). */
export function isErrorBody(value: unknown): value is ErrorBody {
  return isRecord(value) && typeof value.code === 'string' && typeof value.message === 'string';
}

/**
 * The error a failed answer stands for: each field of the service's body when it sent one, else what the
 * status says (`HTTP_502`: a proxy in front of the service answered, not the service).
 */
export function toApiError(
  response: Pick<Response, 'status' | 'statusText' | 'headers'>,
  body: unknown,
): ApiError {
  const fields = isRecord(body) ? body : {};
  const rayId =
    typeof fields.ray_id === 'string' ? fields.ray_id : (response.headers.get('x-ray-id') ?? undefined);
  return new ApiError(
    response.status,
    typeof fields.code === 'string' ? fields.code : `HTTP_${response.status}`,
    typeof fields.message === 'string'
      ? fields.message
      : `the service answered ${response.status} ${response.statusText}`.trimEnd(),
    rayId,
    isRecord(fields.metadata) ? fields.metadata : {},
  );
}
