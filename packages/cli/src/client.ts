import { readFileSync } from 'node:fs';

/** A refusal from the service: its error body (`{code, message, ray_id, metadata?}`) and status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly rayId: string | undefined,
    readonly metadata: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

/** The service could not be reached at all (refused, DNS, TLS, timeout). */
export class NetworkError extends Error {}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send no bearer token even when the client has one (the device-link calls before login). */
  anonymous?: boolean;
}

export const VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

export const USER_AGENT = `gcm-cli/${VERSION} (node ${process.versions.node}; ${process.platform})`;

/** A thin typed client: JSON in and out, errors as ApiError with the service's own code and ray id. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
  ) {}

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...options.headers };
    if (this.token !== undefined && options.anonymous !== true)
      headers.authorization = `Bearer ${this.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.url(path, options.query), {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new NetworkError(
        `could not reach ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
      );
    }
    const text = await res.text();
    if (!res.ok) throw errorOf(res, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  get<T>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  post<T>(path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', path, { ...options, body: body ?? {} });
  }

  put<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  patch<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  delete<T>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, options);
  }
}

function errorOf(res: Response, text: string): ApiError {
  let body: { code?: unknown; message?: unknown; ray_id?: unknown; metadata?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not the service's error body (a proxy's page, say): keep the status.
  }
  const rayId = typeof body.ray_id === 'string' ? body.ray_id : (res.headers.get('x-ray-id') ?? undefined);
  return new ApiError(
    res.status,
    typeof body.code === 'string' ? body.code : `HTTP_${res.status}`,
    typeof body.message === 'string' ? body.message : `the service answered ${res.status} ${res.statusText}`,
    rayId,
    typeof body.metadata === 'object' && body.metadata !== null
      ? (body.metadata as Record<string, unknown>)
      : undefined,
  );
}
