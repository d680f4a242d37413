import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isInternalAddress, publicLookup } from './public-address.js';

export interface PostOptions {
  /** Loopback, private and link-local addresses too (an operator's own network, tests). */
  allowInternal: boolean;
  timeoutMs: number;
  /** Of the answer's body only this much is kept; the rest is not read. */
  maxBodyBytes: number;
  /** Cuts the request short (the service stopping); the outcome's error is the signal's reason. */
  signal?: AbortSignal;
}

/** An answer (status and the body's first bytes) or why there is none. */
export type PostOutcome =
  | { status: number; body: string; headers: http.IncomingHttpHeaders }
  | { status: null; error: string };

/**
 * One POST to a URL someone other than the operator may have chosen (a game mode's verification hook), or
 * to one the operator configured (captcha providers). Internal addresses are refused as literals and as
 * what a name resolves to, unless allowed; redirects are not followed (a 3xx is an answer like any other),
 * so an endpoint cannot bounce the service elsewhere; the whole exchange, body included, has `timeoutMs`.
 */
export function postOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostOutcome> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!options.allowInternal && isIP(host) !== 0 && isInternalAddress(host)) {
    return Promise.resolve({ status: null, error: `${host} is an internal address` });
  }
  const { signal } = options;
  const stopped = () => String(signal?.reason instanceof Error ? signal.reason.message : signal?.reason);
  if (signal?.aborted === true) return Promise.resolve({ status: null, error: stopped() });
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', cutShort);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: publicLookup(options.allowInternal),
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        const finish = () =>
          done({ status, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers });
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read <= options.maxBodyBytes) chunks.push(chunk);
          else response.destroy();
        });
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`));
    }, options.timeoutMs);
    timer.unref();
    const cutShort = () => request.destroy(new Error(stopped()));
    signal?.addEventListener('abort', cutShort, { once: true });
    request.on('error', (err: NodeJS.ErrnoException) => {
      done({ status: null, error: err.code === undefined ? err.message : `${err.code}: ${err.message}` });
    });
    request.end(body);
  });
}
