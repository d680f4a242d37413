import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { S3Config } from '../config.js';
import { errors } from '../errors.js';
import type { TypedApp } from './typed-app.js';

/**
 * The web dashboard (packages/dashboard, a single-page app built by `npm run build`) served at `/`.
 *
 * The built files are read into memory once at start: the set is small (a page and a few hashed bundles),
 * and a lookup in a map of known names cannot be walked out of the folder by a crafted path. Hashed files
 * under /assets/ never change under their name, so browsers keep them for a year; index.html names the
 * current ones and is revalidated on every load. Every other GET that asks for HTML and is not an API path
 * gets index.html, so that each page of the app has an address of its own (the app's router reads it).
 */

/** Where `npm run build` puts the dashboard: packages/dashboard/dist, from src/http or dist/http alike. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

/** Paths that belong to the API: an unknown one stays the JSON 404 scripts expect, never the app's page. */
const API_PREFIXES = [
  '/cloud',
  '/games',
  '/auth',
  '/uploads',
  '/avatars',
  '/devices',
  '/docs',
  '/openapi.json',
];

export function isApiPath(pathname: string): boolean {
  return API_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

const ASSETS_PREFIX = '/assets/';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface DashboardFile {
  body: Buffer;
  /** The body gzipped once at start, for text types where that saves something (the bundle: about 3×). */
  gzip: Buffer | undefined;
  type: string;
  etag: string;
}

const COMPRESSIBLE = /^(text\/|application\/json|image\/svg)/;
/** Below this a gzip header costs about what it saves. */
const MIN_GZIP_BYTES = 1024;

/**
 * Where the browser sends upload PUTs besides the service itself: an S3 store's presigned URLs point at the
 * bucket (the endpoint's origin with path-style URLs; the bucket's own host name otherwise, which the SDK
 * may still fall back from to the endpoint for names it cannot put in a host name, so both are allowed).
 */
export function uploadOrigins(
  s3: Pick<S3Config, 'endpoint' | 'bucket' | 'forcePathStyle'> | undefined,
): string[] {
  if (s3 === undefined) return [];
  const endpoint = new URL(s3.endpoint);
  if (s3.forcePathStyle) return [endpoint.origin];
  const bucketHost = new URL(s3.endpoint);
  bucketHost.hostname = `${s3.bucket}.${endpoint.hostname}`;
  return [bucketHost.origin, endpoint.origin];
}

/**
 * What the app may do in the browser: its own scripts, styles and API calls (and upload PUTs to
 * `connectOrigins`), images from itself or made in the page (data:, blob: previews), nothing inline (but
 * the `styleHashes`, inline styles known to the byte, or a page's own `nonce-…`), no framing, no plugins.
 */
export function pageHeaders(
  connectOrigins: readonly string[] = [],
  styleHashes: readonly string[] = [],
): Readonly<Record<string, string>> {
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self'",
      ["style-src 'self'", ...styleHashes.map((hash) => `'${hash}'`)].join(' '),
      "img-src 'self' data: blob:",
      ["connect-src 'self'", ...connectOrigins].join(' '),
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Page addresses carry team and game ids: other sites get the origin at most.
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Where the page tells its scripts the style nonce of this response. */
const NONCE_META = 'gcm-style-nonce';

/**
 * index.html with a fresh style nonce in a `<meta>`: the version editor (CodeMirror) writes its styles into
 * a `<style>` element, which it marks with the nonce, so the CSP admits that element and still no other
 * inline style. A script can read the nonce, but every script is the app's own ('self' only), so it lets in
 * no style the app did not write.
 */
function indexWithNonce(html: string, nonce: string): string {
  return html.replace('<head>', `<head><meta name="${NONCE_META}" content="${nonce}">`);
}

/** Shown when the checkout never built the dashboard: the API works all the same. */
const NOT_BUILT =
  'The web dashboard is not built in this checkout (packages/dashboard/dist is missing).\n' +
  'Run `npm run build` (or `npm ci`) at the repository root, then restart the service.\n' +
  'The API works without it: see /docs.\n';

/** Every file under `dir` by the URL path it is served at; empty when the folder is absent. */
export function loadDashboard(dir: string): Map<string, DashboardFile> {
  const files = new Map<string, DashboardFile>();
  if (!existsSync(dir)) return files;
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && statSync(full).size > 0) {
        const body = readFileSync(full);
        const urlPath = `/${path.relative(dir, full).split(path.sep).join('/')}`;
        const type = TYPES[path.extname(entry.name)] ?? 'application/octet-stream';
        const gzip =
          COMPRESSIBLE.test(type) && body.length >= MIN_GZIP_BYTES ? gzipSync(body, { level: 9 }) : undefined;
        files.set(urlPath, {
          body,
          gzip: gzip !== undefined && gzip.length < body.length ? gzip : undefined,
          type,
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        });
      }
    }
  };
  walk(dir);
  return files;
}

/**
 * The stylesheets the built index.html names (`/assets/<hash>.css`), for the service's own server-rendered
 * page (the device link's) to wear the dashboard's look; none when the dashboard is not built.
 */
export function dashboardStylesheets(dir: string): string[] {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return [];
  const html = readFileSync(index, 'utf8');
  return [...html.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*>/g)]
    .map((tag) => /\bhref="(\/assets\/[^"]+\.css)"/.exec(tag[0])?.[1])
    .filter((href): href is string => href !== undefined);
}

/** Whether the client asked for a page (a browser's navigation), not data: `*\/*` alone is not enough. */
function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

function acceptsGzip(request: FastifyRequest): boolean {
  const accept = request.headers['accept-encoding'];
  if (typeof accept !== 'string') return false;
  return accept.split(',').some((item) => {
    const [coding, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return coding === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  file: DashboardFile,
  cache: string,
  headers: Readonly<Record<string, string>>,
) {
  const gzip = file.gzip !== undefined && acceptsGzip(request) ? file.gzip : undefined;
  // Each encoding is its own representation, with its own validator (RFC 9110 8.8.3).
  const etag = gzip === undefined ? file.etag : `${file.etag.slice(0, -1)}-gz"`;
  reply.headers(headers).header('cache-control', cache).header('etag', etag);
  if (file.gzip !== undefined) reply.header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  if (gzip !== undefined) reply.header('content-encoding', 'gzip');
  return reply.type(file.type).send(gzip ?? file.body);
}

/**
 * Registers `GET /*`: the dashboard's files and pages. Routes registered elsewhere win (find-my-way prefers
 * static and parametric routes to a wildcard), so this sees only paths nothing else serves.
 */
export function dashboardRoutes(
  app: TypedApp,
  options: { dir?: string | undefined; maxParamLength: number; s3?: S3Config | undefined },
): void {
  const { dir = DEFAULT_DASHBOARD_DIR, maxParamLength } = options;
  const connectOrigins = uploadOrigins(options.s3);
  const headers = pageHeaders(connectOrigins);
  const files = loadDashboard(dir);
  const index = files.get('/index.html');
  const indexHtml = index?.body.toString('utf8');
  app.get(
    '/*',
    {
      schema: { hide: true },
      config: { auth: 'public', limit: 'publicReads' },
    },
    async (request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      // The router answers a too-long parameter with a 400 only when no wildcard can take the path instead:
      // keep that answer (and its short message) for every path, this route's included.
      if (pathname.split('/').some((segment) => segment.length > maxParamLength)) {
        throw errors.badParams(`a path parameter is longer than ${maxParamLength} characters`, {
          field: null,
        });
      }
      const notFound = errors.routeNotFound(request.method, pathname);
      if (isApiPath(pathname)) throw notFound;
      const file = files.get(pathname);
      if (file !== undefined && pathname !== '/index.html') {
        return send(
          request,
          reply,
          file,
          pathname.startsWith(ASSETS_PREFIX) ? IMMUTABLE : 'no-cache',
          headers,
        );
      }
      // A missing bundle must not be answered with the page: the browser would run HTML as a script.
      // `/` is the app whatever the client accepts: `curl /` says what is there (or how to build it).
      if (pathname.startsWith(ASSETS_PREFIX) || (pathname !== '/' && !acceptsHtml(request))) throw notFound;
      if (index === undefined) {
        return reply
          .headers(headers)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send(NOT_BUILT);
      }
      // A new nonce each time, so no validator: a 304 would keep an old page under a new nonce.
      const nonce = randomBytes(16).toString('base64');
      return reply
        .headers(pageHeaders(connectOrigins, [`nonce-${nonce}`]))
        .header('cache-control', 'no-cache')
        .type(index.type)
        .send(indexWithNonce(indexHtml ?? '', nonce));
    },
  );
}
