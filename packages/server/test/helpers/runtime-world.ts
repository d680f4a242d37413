import net from 'node:net';
import { after, before } from 'node:test';
import type { LobbiesTable } from '../../src/db/database.js';
import { ownerOf } from '../../src/modules/runtime/runtime.service.js';
import { DockerDriver } from '../../src/runtime/docker/docker-driver.js';
import { type DockerEngine, readBody } from '../../src/runtime/docker/engine.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { putPresigned } from './api-world.js';
import { type PrivateDockerd, startDockerd } from './dockerd.js';
import { startListening } from './listening.js';
import { issuePlayerToken } from './runtime-lobbies.js';
import type { TestService } from './service.js';
import { buildTestImage, type TestImage } from './test-image.js';
import { until } from './until.js';

export interface RuntimeEngine {
  dockerd: PrivateDockerd;
  /** The busybox test server as a `docker save` archive. */
  image: TestImage;
  /** A driver of the engine of its own, to look at (and meddle with) what runs. */
  driver: DockerDriver;
  /** The containers of `svc` on the engine, running or exited-not-removed. */
  containersOf(svc: TestService): ReturnType<DockerDriver['list']>;
}

/** A private engine and the test image for the describe block it is called in (before/after hooks). */
export function useRuntimeEngine(): RuntimeEngine {
  const engine = {} as RuntimeEngine;
  before(async () => {
    engine.dockerd = await startDockerd();
    engine.image = await buildTestImage(engine.dockerd.engine);
    engine.driver = new DockerDriver({
      hosts: [{ dockerHost: engine.dockerd.dockerHost, regions: ['eu', 'us'], capacity: 10_000 }],
    });
    engine.containersOf = (svc) => engine.driver.list({ [LOBBY_LABELS.owner]: ownerOf(svc.deps.config) });
  });
  after(async () => {
    await engine.driver?.close();
    await engine.dockerd?.stop();
  });
  return engine;
}

/**
 * A service that runs lobbies on a private engine (test/helpers/dockerd.ts): listening on a real port (the
 * lobbies call it back on GCM_API_URL), regions `eu` and `us` both on that one engine, its own host port
 * range (so test files can run side by side), short timeouts and a 1 s periodic pass.
 */
export async function startRuntimeService(options: {
  dockerHost: string;
  portRange: string;
  env?: Record<string, string>;
  dataDir?: string;
  port?: number;
  logLevel?: 'debug' | 'info';
}) {
  return startListening({
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.port === undefined ? {} : { port: options.port }),
    env: {
      GCM_RUNTIME: 'docker',
      GCM_REGIONS: 'eu,us',
      GCM_RUNTIME_HOSTS: `eu=${options.dockerHost},us=${options.dockerHost}`,
      GCM_RUNTIME_PORT_RANGE: options.portRange,
      GCM_RUNTIME_RECONCILE_INTERVAL: '1',
      GCM_LOBBY_STOP_GRACE: '1',
      GCM_WEBHOOK_ALLOW_HTTP: 'true',
      GCM_WEBHOOK_ALLOW_INTERNAL: 'true',
      GCM_WEBHOOK_POLL_MS: '100',
      ...options.env,
    },
  });
}

function ok<T extends { statusCode: number; body: string }>(res: T, what: string): T {
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  return res;
}

/** A game allowed host networking, with a namespace; answers the ids. */
export async function runtimeGame(svc: TestService, nameId: string) {
  const game = ok(
    await svc.call('POST', '/cloud/games', { body: { name_id: nameId, display_name: nameId } }),
    'create game',
  ).json<{ game_id: string }>();
  ok(
    await svc.call('PUT', `/cloud/games/${game.game_id}/host-networking`, { body: { enabled: true } }),
    'host networking',
  );
  const empty = ok(
    await svc.call('POST', `/cloud/games/${game.game_id}/versions`, {
      body: { display_name: 'empty', config: {} },
    }),
    'create version',
  ).json<{ version_id: string }>();
  const ns = ok(
    await svc.call('POST', `/cloud/games/${game.game_id}/namespaces`, {
      body: { name_id: 'prod', display_name: 'Production', version_id: empty.version_id },
    }),
    'create namespace',
  ).json<{ namespace_id: string }>();
  return { gameId: game.game_id, namespaceId: ns.namespace_id };
}

/** Uploads `archive` as a completed build of the namespace (the way `gcm deploy` does); answers its id. */
export async function uploadBuild(svc: TestService, gameId: string, namespaceId: string, archive: Buffer) {
  const base = `/games/${gameId}/environments/${namespaceId}/builds`;
  const prepared = ok(
    await svc.call('POST', `${base}/prepare`, {
      body: { name: 'server', image_file: { path: 'server.tar', content_length: archive.length } },
    }),
    'prepare build',
  ).json<{ build_id: string; presigned_requests: { url: string }[] }>();
  ok(await putPresigned(svc, prepared.presigned_requests[0]?.url ?? '', archive), 'put build');
  ok(await svc.call('POST', `${base}/${prepared.build_id}/complete`), 'complete build');
  return prepared.build_id;
}

export interface GameModeSpec {
  buildId: string;
  min: number;
  max: number;
  regions?: string[];
  env?: Record<string, string>;
  /** The regions' tier (default basic-1d1). */
  tier?: string;
  /** More of the game mode's config (max_players, actions, taggable, ...). */
  config?: Record<string, unknown>;
}

/** A version whose game modes run the build with host networking and a `game` port; deployed to the namespace. */
export async function deploy(
  svc: TestService,
  ids: { gameId: string; namespaceId: string },
  gameModes: Record<string, GameModeSpec>,
  name = 'v1',
): Promise<string> {
  const config = {
    matchmaker: {
      game_modes: Object.fromEntries(
        Object.entries(gameModes).map(([mode, gm]) => [
          mode,
          {
            idle_lobbies: { min: gm.min, max: gm.max },
            regions: Object.fromEntries(
              (gm.regions ?? ['eu']).map((r) => [r, gm.tier === undefined ? {} : { tier: gm.tier }]),
            ),
            container: {
              image_id: gm.buildId,
              network_mode: 'host',
              ports: { game: { port: 7777, protocol: 'tcp' } },
              env: gm.env ?? {},
            },
            ...gm.config,
          },
        ]),
      ),
    },
  };
  const version = ok(
    await svc.call('POST', `/cloud/games/${ids.gameId}/versions`, { body: { display_name: name, config } }),
    'create version',
  ).json<{ version_id: string }>();
  ok(
    await svc.call('PUT', `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/version`, {
      body: { version_id: version.version_id },
    }),
    'deploy version',
  );
  return version.version_id;
}

export type LobbyRow = LobbiesTable;

export function lobbiesOf(svc: TestService, namespaceId: string): Promise<LobbyRow[]> {
  return svc.deps.db
    .selectFrom('lobbies')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .orderBy('create_ts')
    .orderBy('lobby_id')
    .execute() as Promise<LobbyRow[]>;
}

export const isLive = (r: LobbyRow) =>
  r.run_state === 'starting' || r.run_state === 'ready' || r.run_state === 'stopping';

/** The GCM_LOBBY_TOKEN the engine gave the lobby's container, read back from the engine as the server would. */
export async function lobbyTokenOf(engine: DockerEngine, handle: string): Promise<string> {
  const token = await containerEnvOf(engine, handle, 'GCM_LOBBY_TOKEN');
  if (token === undefined) throw new Error(`container ${handle} has no GCM_LOBBY_TOKEN`);
  return token;
}

/** The value of `name` in the environment the engine gave the lobby's container (undefined: not set). */
export async function containerEnvOf(
  engine: DockerEngine,
  handle: string,
  name: string,
): Promise<string | undefined> {
  const body = await readBody(
    await engine.open({ method: 'GET', path: `/containers/${handle}/json` }),
    1 << 20,
  );
  const env = (JSON.parse(body) as { Config: { Env: string[] } }).Config.Env;
  return env.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** The lobby reports player `name` connected (or gone), with its own token, as its server would. */
export async function reportPlayer(
  svc: TestService,
  token: string,
  name: string,
  connected = true,
): Promise<void> {
  const playerToken = await issuePlayerToken(svc, token, name);
  ok(
    await svc.call('POST', `/matchmaker/players/${connected ? 'connected' : 'disconnected'}`, {
      token,
      body: { player_token: playerToken },
    }),
    'report a player',
  );
}

/**
 * `sayToLobby` on 127.0.0.1, trying again until the server listens: it prints that it listens just after it
 * starts its listener, so the first connection may beat it.
 */
export async function tellLobby(port: number, line: string): Promise<string> {
  let answer: string | undefined;
  await until(`port ${port} answers`, 10_000, async () => {
    answer = await sayToLobby('127.0.0.1', port, line).catch(() => undefined);
    return answer !== undefined;
  });
  return answer as string;
}

/** Sends one line to a lobby's game port (the busybox test server) and answers the line it sends back. */
export function sayToLobby(host: string, port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let got = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (chunk: string) => {
      got += chunk;
      if (got.includes('\n')) {
        socket.destroy();
        resolve(got.trim());
      }
    });
    socket.on('error', reject);
  });
}
