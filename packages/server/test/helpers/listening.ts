import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { startTestService } from './service.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}

/**
 * A service that really listens, with GCM_PUBLIC_URL naming the port it listens on, so the presigned URLs
 * it hands out are the ones a client would use. `port` reuses a port (a restart). `beforeListen` runs
 * while hooks may still be added to `svc.app` (Fastify takes none once it listens).
 */
export async function startListening(
  options: {
    dataDir?: string;
    port?: number;
    env?: Record<string, string>;
    /** Log at this level into `svc.logs` (startTestService). */
    logLevel?: 'debug' | 'info';
    beforeListen?: (svc: Awaited<ReturnType<typeof startTestService>>) => void | Promise<void>;
  } = {},
) {
  const port = options.port ?? (await freePort());
  const publicUrl = `http://127.0.0.1:${port}`;
  const svc = await startTestService({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    env: { ...options.env, GCM_PUBLIC_URL: publicUrl },
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
  });
  await options.beforeListen?.(svc);
  await svc.app.listen({ port, host: '127.0.0.1' });
  return { svc, port, publicUrl };
}

/**
 * A completed build of `size` random bytes in the game's namespace, uploaded through its presigned URL:
 * what a version's image_id must name. `svc` must be listening (startListening).
 */
export async function uploadBuild(
  svc: Awaited<ReturnType<typeof startTestService>>,
  target: { gameId: string; namespaceId: string },
  name: string,
  options: { size?: number; tags?: Record<string, string>; token?: string } = {},
): Promise<string> {
  const { size = 64, tags, token } = options;
  const as = token === undefined ? {} : { token };
  const base = `/games/${target.gameId}/environments/${target.namespaceId}/builds`;
  const res = await svc.call('POST', `${base}/prepare`, {
    ...as,
    body: {
      name,
      image_file: { path: `${name}.tar`, content_length: size },
      ...(tags === undefined ? {} : { tags }),
    },
  });
  if (res.statusCode !== 200) throw new Error(`prepare build: ${res.statusCode} ${res.body}`);
  const { build_id, presigned_requests } = res.json<{
    build_id: string;
    presigned_requests: { url: string }[];
  }>();
  if (presigned_requests.length !== 1) throw new Error(`a single PUT, not ${presigned_requests.length}`);
  const put = await fetch(presigned_requests[0]?.url ?? '', { method: 'PUT', body: randomBytes(size) });
  await put.arrayBuffer();
  if (put.status !== 200) throw new Error(`upload build: ${put.status}`);
  const done = await svc.call('POST', `${base}/${build_id}/complete`, as);
  if (done.statusCode !== 204) throw new Error(`complete build: ${done.statusCode} ${done.body}`);
  return build_id;
}

type Svc = Awaited<ReturnType<typeof startTestService>>;

function replaceAll(text: string, pairs: readonly (readonly [string, string])[]): string {
  return pairs.reduce((acc, [from, to]) => acc.split(from).join(to), text);
}

/**
 * Lets version tests name builds by placeholder (`img-base`): on the first request under
 * /cloud/games/{id}/versions each placeholder becomes a completed build of that game, request bodies carry
 * the build ids, and answers carry the placeholders again, so expectations stay readable. A game that does
 * not exist is left alone (its requests answer 404 as usual).
 */
export function withNamedBuilds(svc: Svc, placeholders: readonly string[]): Svc {
  const realCall = svc.call.bind(svc);
  const perGame = new Map<string, Promise<(readonly [string, string])[] | undefined>>();
  const buildsOf = (gameId: string) => {
    let pending = perGame.get(gameId);
    if (pending === undefined) {
      pending = (async () => {
        const game = await realCall('GET', `/cloud/games/${gameId}`);
        if (game.statusCode !== 200) {
          perGame.delete(gameId);
          return undefined;
        }
        const namespaceId = game.json<{ game: { namespaces: { namespace_id: string }[] } }>().game
          .namespaces[0]?.namespace_id;
        if (namespaceId === undefined) {
          // No namespace yet (a fixture makes its first version before it): try again next time.
          perGame.delete(gameId);
          return undefined;
        }
        const pairs: (readonly [string, string])[] = [];
        for (const name of placeholders) {
          pairs.push([`"${name}"`, `"${await uploadBuild(svc, { gameId, namespaceId }, name)}"`]);
        }
        return pairs;
      })();
      perGame.set(gameId, pending);
    }
    return pending;
  };
  svc.call = async (method, url, options = {}) => {
    const gameId = /^\/cloud\/games\/([^/?]+)\/versions/.exec(url)?.[1];
    const toReal = gameId === undefined ? undefined : await buildsOf(gameId);
    if (toReal === undefined) return realCall(method, url, options);
    const body =
      options.body === undefined || typeof options.body === 'string'
        ? options.body
        : (JSON.parse(replaceAll(JSON.stringify(options.body), toReal)) as unknown);
    const res = await realCall(method, url, { ...options, ...(body === undefined ? {} : { body }) });
    const payload = replaceAll(
      res.payload,
      toReal.map(([name, id]) => [id, name] as const),
    );
    if (payload === res.payload) return res;
    return Object.assign(Object.create(Object.getPrototypeOf(res) as object) as typeof res, res, {
      payload,
      body: payload,
      json: <T>() => JSON.parse(payload) as T,
    });
  };
  return svc;
}
