import type { FastifyInstance } from 'fastify';

/**
 * A year, and the service's own host only: a subdomain of the operator's may still be served over http,
 * which `includeSubDomains` would break for every browser that once reached the service.
 */
export const HSTS = 'max-age=31536000';

/**
 * Headers every answer carries: `nosniff`, so a browser never reads a JSON or text answer as a script or a
 * page; and, when the service is reached over https (GCM_PUBLIC_URL), HSTS, so a browser that once did never
 * tries plain http again. Pages (the dashboard, /docs, the device link page) add their own CSP and framing
 * rules.
 */
export function securityHeaders(publicUrl: string): Readonly<Record<string, string>> {
  return {
    'x-content-type-options': 'nosniff',
    ...(new URL(publicUrl).protocol === 'https:' ? { 'strict-transport-security': HSTS } : {}),
  };
}

/**
 * Sets `headers` on every answer whatever sent it: a route, an error, a 404, a static file. (The router's
 * own refusals are answered before any hook: frameworkErrorHandler sets them there.)
 */
export function registerSecurityHeaders(
  app: FastifyInstance,
  headers: Readonly<Record<string, string>>,
): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(headers);
    done(null, payload);
  });
}
