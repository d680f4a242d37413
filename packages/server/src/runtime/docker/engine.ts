import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * A Docker Engine API client over node:http, no more than the driver needs. Not dockerode: it brings ssh2 and
 * its native optional dependency for a transport we do not offer, and its typings are loose anyway.
 *
 * Every path carries an API version, negotiated once per engine as the docker CLI does: the engine's own
 * version (GET /version), capped at the newest we were written against. v1.41 is what Debian's docker.io
 * 20.10 speaks (the engine the tests and CI run); Docker 29 refuses anything below v1.44, so a fixed v1.41
 * would lock studios on current engines out. The fields the driver uses are the same from v1.41 to v1.47.
 */
export const DOCKER_API_VERSION = 'v1.41';
/** The newest API version the driver was checked against; a newer engine is spoken to in this one. */
export const DOCKER_API_VERSION_MAX = '1.47';

/** The version to speak: the engine's, capped at DOCKER_API_VERSION_MAX; v1.41 when the engine says none. */
export function negotiateApiVersion(engineVersion: unknown): string {
  if (typeof engineVersion !== 'string' || !/^1\.\d{1,3}$/.test(engineVersion)) return DOCKER_API_VERSION;
  const minor = (v: string) => Number(v.split('.')[1]);
  return minor(engineVersion) > minor(DOCKER_API_VERSION_MAX)
    ? `v${DOCKER_API_VERSION_MAX}`
    : `v${engineVersion}`;
}
export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** Docker's TLS settings as the docker CLI reads them from DOCKER_TLS_VERIFY and DOCKER_CERT_PATH. */
export interface DockerTls {
  /** Check the engine's certificate against ca.pem (DOCKER_TLS_VERIFY set); the client cert is sent either way. */
  verify: boolean;
  /** Holds ca.pem, cert.pem and key.pem (DOCKER_CERT_PATH, else ~/.docker). */
  certPath: string;
}

/**
 * The TLS settings `env` asks for, as Docker reads them: DOCKER_TLS_VERIFY (any non-empty value) turns TLS on
 * with verification, DOCKER_TLS alone turns it on without; DOCKER_CERT_PATH defaults to ~/.docker.
 */
export function dockerTlsFromEnv(env: Readonly<Record<string, string | undefined>>): DockerTls | undefined {
  const verify = (env.DOCKER_TLS_VERIFY ?? '') !== '';
  const tls = verify || (env.DOCKER_TLS ?? '') !== '';
  if (!tls) return undefined;
  const certPath = env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker');
  return { verify, certPath };
}

/** DOCKER_HOST as Docker reads it, or Docker's default socket. */
export function dockerHostFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  return env.DOCKER_HOST || DEFAULT_DOCKER_HOST;
}

/** The engine refused, or could not be reached; `status` is the engine's HTTP status when it answered. */
export class DockerEngineError extends Error {
  override readonly name = 'DockerEngineError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface Target {
  socketPath?: string;
  host?: string;
  port?: number;
}

function parseDockerHost(dockerHost: string): { target: Target; scheme: 'unix' | 'tcp' } {
  if (dockerHost.startsWith('unix://')) {
    const socketPath = dockerHost.slice('unix://'.length);
    if (socketPath === '') throw new DockerEngineError(`DOCKER_HOST ${dockerHost}: no socket path`);
    return { target: { socketPath }, scheme: 'unix' };
  }
  // Docker takes http:// and https:// as tcp:// too.
  const match = /^(?:tcp|http|https):\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(dockerHost);
  if (match === null) {
    throw new DockerEngineError(
      `DOCKER_HOST ${dockerHost} is not unix:///path/to/docker.sock or tcp://host:port (ssh:// and npipe:// are not supported)`,
    );
  }
  const host = (match[1] as string).replace(/^\[|\]$/g, '');
  return { target: { host, port: match[2] === undefined ? 2375 : Number(match[2]) }, scheme: 'tcp' };
}

export interface EngineRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON, or a stream sent as it comes (an image archive). */
  body?: unknown;
  bodyStream?: Readable;
  contentType?: string;
  /** Milliseconds without any byte either way before the call fails. */
  idleTimeoutMs?: number;
  /** A followed stream (events, logs): the idle timeout covers the wait for the answer only. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Versioned path (the default) or the engine's unversioned /_ping and /version. */
  unversioned?: boolean;
  /** More headers: X-Registry-Auth for a push, a pull or a service that names a private image. */
  headers?: Readonly<Record<string, string>>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** An engine's error bodies are short JSON; anything longer is cut in messages. */
const MAX_ERROR_BODY = 4096;
/** A JSON answer the driver reads whole (inspect, list, stats); a longer one is a fault, not data. */
const MAX_JSON_BODY = 32 * 1024 * 1024;

/** One Docker engine, reached as DOCKER_HOST says. */
export class DockerEngine {
  readonly dockerHost: string;
  private readonly target: Target;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(dockerHost: string, tls?: DockerTls) {
    this.dockerHost = dockerHost;
    const { target, scheme } = parseDockerHost(dockerHost);
    this.target = target;
    if (tls !== undefined && scheme === 'tcp') {
      const file = (name: string) => {
        try {
          return readFileSync(path.join(tls.certPath, name));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT' && name !== 'ca.pem') return undefined;
          throw new DockerEngineError(
            `DOCKER_CERT_PATH ${tls.certPath}: cannot read ${name} for ${dockerHost}: ${(err as Error).message}`,
          );
        }
      };
      this.transport = https;
      this.agent = new https.Agent({
        keepAlive: true,
        ca: tls.verify ? file('ca.pem') : undefined,
        cert: file('cert.pem'),
        key: file('key.pem'),
        rejectUnauthorized: tls.verify,
      });
    } else {
      this.transport = http;
      this.agent = new http.Agent({ keepAlive: true });
    }
  }

  private apiVersion: Promise<string> | undefined;

  /** The API version this engine is spoken to in, asked once (again after a failed ask). */
  version(): Promise<string> {
    this.apiVersion ??= this.json<{ ApiVersion?: unknown }>({
      method: 'GET',
      path: '/version',
      unversioned: true,
      idleTimeoutMs: 10_000,
    }).then(
      (answer) => negotiateApiVersion(answer?.ApiVersion),
      (err: unknown) => {
        this.apiVersion = undefined;
        throw err;
      },
    );
    return this.apiVersion;
  }

  /** Sends the request; answers the response once its status is known (2xx and 3xx), else throws. */
  async open(request: EngineRequest): Promise<http.IncomingMessage> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) query.set(key, String(value));
    }
    const search = query.size > 0 ? `?${query}` : '';
    const prefix = request.unversioned === true ? '' : `/${await this.version()}`;
    const requestPath = `${prefix}${request.path}${search}`;
    const json = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: http.OutgoingHttpHeaders = { ...request.headers, host: 'docker' };
    if (json !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = json.length;
    } else if (request.bodyStream !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/octet-stream';
    }
    const what = `${request.method} ${request.path}`;
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = this.transport.request({
        ...this.target,
        agent: this.agent,
        method: request.method,
        path: requestPath,
        headers,
        signal: request.signal,
      });
      const idle = request.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
      req.setTimeout(idle, () =>
        req.destroy(new DockerEngineError(`${what} on ${this.dockerHost}: nothing for ${idle} ms`)),
      );
      let bodyError: Error | undefined;
      // A body that fails to stream (its source's own fault) is that fault, not the engine's.
      req.once('error', (err) => reject(bodyError ?? this.describe(err, what)));
      req.once('response', (res) => {
        // A followed stream may then be quiet for as long as the lobby is.
        if (request.follow === true) req.setTimeout(0);
        resolve(res);
      });
      if (json !== undefined) req.end(json);
      else if (request.bodyStream !== undefined) {
        request.bodyStream.once('error', (err) => {
          bodyError = err;
          req.destroy(err);
        });
        request.bodyStream.pipe(req);
      } else req.end();
    });
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 400) return response;
    const body = await readBody(response, MAX_ERROR_BODY).catch(() => '');
    let message = body.trim();
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new DockerEngineError(
      `${what} on ${this.dockerHost}: the engine answered ${status}${message === '' ? '' : `: ${message}`}`,
      status,
    );
  }

  /** A call whose answer is JSON (or empty); `allow` lists error statuses answered as undefined (404 gone). */
  async json<T>(request: EngineRequest, allow: readonly number[] = []): Promise<T | undefined> {
    let response: http.IncomingMessage;
    try {
      response = await this.open(request);
    } catch (err) {
      if (err instanceof DockerEngineError && err.status !== undefined && allow.includes(err.status)) {
        return undefined;
      }
      throw err;
    }
    const text = await readBody(response, MAX_JSON_BODY);
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new DockerEngineError(
        `${request.method} ${request.path} on ${this.dockerHost}: the answer is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }

  /** Whether the engine answers its /_ping; throws the reason when it does not. */
  async ping(signal?: AbortSignal): Promise<void> {
    const response = await this.open({
      method: 'GET',
      path: '/_ping',
      unversioned: true,
      idleTimeoutMs: 10_000,
      signal,
    });
    await readBody(response, MAX_ERROR_BODY);
  }

  close(): void {
    this.agent.destroy();
  }

  private describe(err: unknown, what: string): Error {
    if (err instanceof DockerEngineError) return err;
    const error = err as NodeJS.ErrnoException;
    if (error.name === 'AbortError') return error;
    const why =
      error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
        ? ' (is dockerd running there, and is DOCKER_HOST right?)'
        : error.code === 'EACCES'
          ? ' (the service may not use that socket: check its owner and group)'
          : '';
    return new DockerEngineError(
      `cannot reach the Docker engine at DOCKER_HOST ${this.dockerHost} for ${what}: ${error.message}${why}`,
    );
  }
}

/** Reads a response whole as UTF-8, failing beyond `max` bytes. */
export async function readBody(response: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response) {
    length += (chunk as Buffer).length;
    if (length > max) {
      response.destroy();
      throw new DockerEngineError(`the engine's answer is over ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The JSON messages of a streamed answer (events, image load, build), one object a line as the engine writes
 * them; a line over `maxLine` bytes fails the stream.
 */
export async function* jsonLines(response: Readable, maxLine = 1024 * 1024): AsyncGenerator<unknown> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of response) {
    pending += decoder.write(chunk as Buffer);
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '') yield JSON.parse(line);
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxLine) {
      response.destroy();
      throw new DockerEngineError(`the engine sent a line over ${maxLine} bytes`);
    }
  }
  if (pending.trim() !== '') yield JSON.parse(pending);
}
