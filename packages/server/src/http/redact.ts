const SECRET_PARAM = /token|secret|password|signature|sig$/i;
/**
 * Paths that carry a credential in the segment after these: the device link page holds the link token,
 * better-auth's reset link (`/auth/reset-password/<token>`, the link in a reset mail) a password reset
 * token, and the first-run setup page (`/setup/<secret>`) its one-time secret. Lower case: segments are compared case-blind.
 */
const SECRET_PATHS: readonly (readonly string[])[] = [
  ['devices', 'link'],
  ['auth', 'reset-password'],
  ['setup'],
];
/** `scheme://[userinfo@]host[:port]`: a request line in absolute form (RFC 9112 3.2.2) starts so. */
const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*@)?([^/?#]*)/i;
/** Escapes of ASCII characters: enough to recognise a path's ASCII segments however they are written. */
const ASCII_ESCAPE = /%([0-7][0-9a-f])/gi;

/**
 * The path's segments as a router or a URL parser would read them: `\` as `/`, ASCII escapes decoded,
 * empty and `.` segments dropped, `..` applied. Only for recognising a secret path: the router may read
 * some of these forms literally (and answer 404), but redacting one too many is harmless.
 */
function segmentsOf(path: string): string[] {
  const segments: string[] = [];
  const decoded = path.replaceAll('\\', '/').replace(ASCII_ESCAPE, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return char === '\\' ? '/' : char;
  });
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments;
}

/** The path with the credential segment of a secret path redacted; any other path as it came. */
function redactPath(path: string): string {
  const segments = segmentsOf(path);
  for (const secret of SECRET_PATHS) {
    if (segments.length <= secret.length) continue;
    if (!secret.every((name, i) => segments[i]?.toLowerCase() === name)) continue;
    const after = segments.slice(secret.length + 1);
    return `/${[...segments.slice(0, secret.length), '[redacted]', ...after].join('/')}`;
  }
  return path;
}

function redactQuery(query: string): string {
  const params = new URLSearchParams(query);
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (SECRET_PARAM.test(key)) {
      params.set(key, '[redacted]');
      changed = true;
    }
  }
  return changed ? params.toString() : query;
}

/**
 * Keeps query values and path parts that carry credentials (device link tokens, signed URLs) out of the
 * access log, whatever form the request target takes: origin form (`/devices/link/<token>`), absolute form
 * (`http://host/devices/link/<token>`, which Node passes on as the request's url), or a path the router
 * decodes (`/devices/%6Cink/<token>`). Userinfo in an absolute form is a credential too.
 */
export function redactUrl(rawUrl: string): string {
  let origin = '';
  let rest = rawUrl;
  const absolute = ABSOLUTE_FORM.exec(rawUrl);
  if (absolute !== null) {
    origin = `${absolute[1]}${absolute[2] === undefined ? '' : '[redacted]@'}${absolute[3]}`;
    rest = rawUrl.slice(absolute[0].length);
  }
  const pathEnd = rest.search(/[?#]/);
  const path = pathEnd === -1 ? rest : rest.slice(0, pathEnd);
  const tail = pathEnd === -1 ? '' : rest.slice(pathEnd);
  const q = tail.indexOf('?');
  const redactedTail = q === -1 ? tail : `${tail.slice(0, q + 1)}${redactQuery(tail.slice(q + 1))}`;
  return `${origin}${redactPath(path)}${redactedTail}`;
}
