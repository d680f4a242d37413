/*
 * The few calls of the registry's HTTP API (Distribution's /v2/) the image collector makes itself: the tags of
 * the build repository, the manifest digest each names, and a manifest's deletion. Pushes and pulls go through
 * the engines, which hold the registry's TLS settings; the service reaches the registry over HTTPS, or plain
 * HTTP on a loopback address as dockerd does without an insecure-registries entry.
 */

/** What a manifest HEAD accepts: the digest answered is the one a push recorded only for its own media type. */
const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');
const TIMEOUT_MS = 30_000;
/** Pages of the tag list read at most (1,000 tags each): a repository of more is read in later collections. */
const MAX_TAG_PAGES = 100;
/** Bytes of an answer's body read at most (a tag page, a token, an error). */
const MAX_BODY = 4 * 1024 * 1024;

export interface RegistryAccess {
  /** host[:port][/path], as an image reference starts. */
  address: string;
  username?: string | undefined;
  password?: string | undefined;
}

export class RegistryApiError extends Error {
  override readonly name = 'RegistryApiError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

function isLoopback(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

async function readText(response: Response): Promise<string> {
  const text = await response.text();
  return text.slice(0, MAX_BODY);
}

/** A client of one repository of the registry (`<address>/<name>`). */
export class RegistryRepository {
  private readonly base: string;
  private readonly name: string;
  private bearer: string | undefined;

  constructor(
    private readonly access: RegistryAccess,
    repository: string,
  ) {
    const slash = access.address.indexOf('/');
    const host = slash < 0 ? access.address : access.address.slice(0, slash);
    const prefix = slash < 0 ? '' : `${access.address.slice(slash + 1)}/`;
    this.base = `${isLoopback(host) ? 'http' : 'https'}://${host}`;
    this.name = `${prefix}${repository}`;
  }

  /** Every tag of the repository (none when the registry does not know it yet). */
  async tags(): Promise<string[]> {
    const tags: string[] = [];
    let next: string | undefined = `/v2/${this.name}/tags/list?n=1000`;
    for (let page = 0; next !== undefined && page < MAX_TAG_PAGES; page++) {
      const response = await this.request('GET', next, {}, [404]);
      if (response.status === 404) return tags;
      const body = JSON.parse(await readText(response)) as { tags?: string[] | null };
      tags.push(...(body.tags ?? []));
      // Link: </v2/…/tags/list?last=…&n=1000>; rel="next"
      next = /<([^>]+)>;\s*rel="?next"?/.exec(response.headers.get('link') ?? '')?.[1];
      if (next !== undefined && !next.startsWith('/')) next = new URL(next).pathname + new URL(next).search;
    }
    return tags;
  }

  /** The digest of the manifest `tag` names, or undefined when the tag is gone. */
  async digestOf(tag: string): Promise<string | undefined> {
    const response = await this.request(
      'HEAD',
      `/v2/${this.name}/manifests/${encodeURIComponent(tag)}`,
      { accept: MANIFEST_TYPES },
      [404],
    );
    if (response.status === 404) return undefined;
    const digest = response.headers.get('docker-content-digest');
    if (digest === null || !/^sha256:[0-9a-f]{64}$/.test(digest)) {
      throw new RegistryApiError(`the registry named no digest for ${this.name}:${tag}`);
    }
    return digest;
  }

  /**
   * Deletes the manifest (and with it every tag naming it): `deleted`, `gone` (already), or `refused` when the
   * registry does not delete (405: Distribution's default, storage.delete.enabled off).
   */
  async deleteManifest(digest: string): Promise<'deleted' | 'gone' | 'refused'> {
    const response = await this.request('DELETE', `/v2/${this.name}/manifests/${digest}`, {}, [404, 405]);
    return response.status === 404 ? 'gone' : response.status === 405 ? 'refused' : 'deleted';
  }

  /**
   * One call, with the push's credentials: HTTP basic auth, or a bearer token from the realm a 401 names
   * (Distribution's token auth), asked for this repository's pull, push and delete.
   */
  private async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    allow: readonly number[],
  ): Promise<Response> {
    let response = await this.send(method, path, headers);
    const challenge = response.headers.get('www-authenticate') ?? '';
    if (response.status === 401 && /^bearer /i.test(challenge)) {
      await response.body?.cancel();
      this.bearer = await this.token(challenge);
      response = await this.send(method, path, headers);
    }
    if (response.ok || allow.includes(response.status)) return response;
    const text = method === 'HEAD' ? '' : await readText(response).catch(() => '');
    throw new RegistryApiError(
      `${method} ${this.base}${path.replace(/\?.*$/, '')}: ${response.status} ${text.slice(0, 300)}`.trim(),
      response.status,
    );
  }

  private send(method: string, path: string, headers: Record<string, string>): Promise<Response> {
    const basic = this.basic();
    const auth: Record<string, string> =
      this.bearer !== undefined
        ? { authorization: `Bearer ${this.bearer}` }
        : basic === undefined
          ? {}
          : { authorization: basic };
    return fetch(`${this.base}${path}`, {
      method,
      headers: { ...headers, ...auth },
      redirect: 'follow',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch((err: Error) => {
      throw new RegistryApiError(`${method} ${this.base}${path.replace(/\?.*$/, '')}: ${err.message}`);
    });
  }

  private basic(): string | undefined {
    const { username, password } = this.access;
    if (username === undefined) return undefined;
    return `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }

  private async token(challenge: string): Promise<string> {
    const params = new Map<string, string>();
    for (const match of challenge.matchAll(/(\w+)="([^"]*)"/g))
      params.set(match[1] as string, match[2] as string);
    const realm = params.get('realm');
    if (realm === undefined)
      throw new RegistryApiError(`the registry's challenge names no realm: ${challenge}`);
    const url = new URL(realm);
    const service = params.get('service');
    if (service !== undefined) url.searchParams.set('service', service);
    url.searchParams.set('scope', `repository:${this.name}:pull,push,delete`);
    const basic = this.basic();
    const response = await fetch(url, {
      headers: basic === undefined ? {} : { authorization: basic },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = await readText(response);
    if (!response.ok) throw new RegistryApiError(`the registry's token service answered ${response.status}`);
    const { token, access_token } = JSON.parse(body) as { token?: string; access_token?: string };
    const value = token ?? access_token;
    if (value === undefined) throw new RegistryApiError("the registry's token service answered no token");
    return value;
  }
}
