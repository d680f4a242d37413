import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads a body without declaring its schema, and checks it itself (better-auth's /auth/*): it
     * keeps the JSON-only rule of routes with a body, instead of having a body of another type ignored.
     */
    readsUndeclaredBody?: true;
    /** The declared body may be left out (the original's optional<unknown>): a call without one reaches it. */
    bodyOptional?: true;
  }
}

/** A route declares no body: whatever was sent is not for it. */
function takesNoBody(request: FastifyRequest): boolean {
  return (
    request.routeOptions.schema?.body === undefined &&
    request.routeOptions.config.readsUndeclaredBody !== true
  );
}

/**
 * Every content type but JSON (which the app parses itself), and none: a route that declares no body (a
 * lobby's ready, an upload's complete, a DELETE) gets whatever the client's HTTP tool sends with a body-less
 * call (busybox wget and `curl -d ''` post an empty form) read within its body limit and dropped, instead of
 * a 415 over a body it never reads. A route with a body keeps the JSON-only rule: the same 415 as when no
 * parser matched, before any of the body is read.
 */
export function registerBodylessRoutesParser(app: FastifyInstance): void {
  app.addContentTypeParser('*', (request, payload, done) => {
    // No route matched: the 404 comes next, as it does when no parser matches.
    if (request.is404) return done(null, undefined);
    const absent =
      request.headers['content-type'] === undefined && !(Number(request.headers['content-length']) > 0);
    if (absent && request.routeOptions.config.bodyOptional === true) return done(null, undefined);
    if (!takesNoBody(request)) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
    return drain(payload, request.routeOptions.bodyLimit, request.headers['content-length'], done);
  });
}

/** Reads the body to its end and drops it; more than `limit` bytes (declared or sent) is the usual 413. */
function drain(
  payload: Readable,
  limit: number,
  contentLength: string | undefined,
  done: (err: Error | null, body: undefined) => void,
): void {
  if (contentLength !== undefined && Number(contentLength) > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
    return;
  }
  let received = 0;
  let settled = false;
  const settle = (err: Error | null) => {
    if (settled) return;
    settled = true;
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(err, undefined);
  };
  const onData = (chunk: Buffer | string) => {
    received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (received > limit) settle(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  };
  const onEnd = () => settle(null);
  // As Fastify's own body reader: a stream error without a status of its own is the client's (400).
  const onError = (err: Error & { statusCode?: number }) => {
    if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
    settle(err);
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}
