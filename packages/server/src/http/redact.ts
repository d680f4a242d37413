const SECRET_PARAM = /token|secret|password|signature|sig$/i;
/**
 * Paths that carry a credential: the device link page holds the link token, and better-auth's reset link
 * (`/auth/reset-password/<token>`, the link in a reset mail) a password reset token.
 */
const SECRET_PATH = /^(\/devices\/link\/|\/auth\/reset-password\/)[^/?#]+/;

/** Keeps query values and path parts that carry credentials (device link tokens, signed URLs) out of the access log. */
export function redactUrl(rawUrl: string): string {
  const url = rawUrl.replace(SECRET_PATH, '$1[redacted]');
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (SECRET_PARAM.test(key)) {
      params.set(key, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}
