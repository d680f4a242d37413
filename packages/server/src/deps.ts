import type { WebhookEventType } from '@gcm/contract';
import type { Config } from './config.js';
import type { LobbyResourceSamplesTable } from './db/database.js';
import type { Db } from './db/open-db.js';
import type { Accounts } from './identity/accounts.js';
import type { PasswordHashing } from './identity/password-hashing.js';
import type { People } from './identity/people.js';
import type { SignInLimit } from './identity/sign-in-limit.js';
import type { TokenAuthority } from './identity/token-authority.js';
import type { AddressClassifier } from './lib/address-classes.js';
import type { BlobStorage } from './lib/blob/blob-storage.js';
import type { CacheCoherence } from './lib/cache-coherence.js';
import type { ChangeNotifier } from './lib/change-notifier.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './lib/metrics.js';
import type { RateCounters } from './lib/rate-counters.js';
import type { TrustedOrigins } from './lib/trusted-origins.js';
import type { RuntimeNode } from './runtime/driver.js';

/** A change worth telling the endpoints that listen for its type. */
export interface WebhookEvent {
  type: WebhookEventType | 'ping';
  /** Deliveries of one resource to one endpoint go out in the order their events were queued. */
  resourceKey: string;
  /** An event queued again under the same key (a retried report) is queued once; the event id otherwise. */
  dedupeKey?: string;
  data: Record<string, unknown>;
}

/**
 * What modules may ask of the webhook outbox (modules/webhooks/webhooks.outbox.ts implements it): declared
 * here, so that this file, which every module imports, names no module.
 */
export interface WebhookEvents {
  /** Inside the transaction of a write that changes who hears what: other instances drop their lists. */
  publish(trx: Db): Promise<void>;
  /** After such a write, committed or not: this instance's lists go. */
  changed(): void;
  /** Queues a game's event with `db` (the change's transaction): its endpoints' and its team's. */
  gameEvent(db: Db, gameId: string, event: WebhookEvent): Promise<void>;
  /** The same, with the subscriber list from the cache: for lobby reports, which have no transaction. */
  gameEventCached(gameId: string, event: () => WebhookEvent, type: WebhookEvent['type']): Promise<void>;
  /** Queues a team's own event (a member joined) for the team's endpoints. */
  teamEvent(db: Db, teamId: string, event: WebhookEvent): Promise<void>;
  /** One endpoint only, whatever it subscribes to: a ping, or a delivery sent again (same event, body). */
  direct(
    db: Db,
    webhookId: string,
    scope: { game_id: string | null; team_id: string | null },
    event: WebhookEvent,
    again?: { eventId: string; body: string },
  ): Promise<string>;
}

/**
 * The lobby runtime as services see it (modules/runtime): which one runs, and a nudge for its reconciler.
 * Declared here, like WebhookEvents, so that modules that change what should run (a namespace's version, a
 * lobby's players, a studio's stop) name no runtime module.
 */
export interface LobbyRuntime {
  readonly kind: 'none' | 'docker' | 'swarm';
  /** Asks for a reconciling pass soon (of `namespaceId`, or of all); coalesced; does nothing without a runtime. */
  wake(namespaceId?: string): void;
  /**
   * Places a lobby of the namespace's current version now, for players (find's auto-create, create), within
   * lobby_count_max and the host's capacity, and starts its container; `within` runs in the placement's
   * transaction (the player's slot). Refused with why when there is no room (or no runtime).
   */
  placeNow(request: LobbyPlacementRequest): Promise<LobbyPlacementResult>;
  /**
   * Records where players reach the lobby when the orchestrator chose its machine (swarm) and that is not on
   * record yet; nothing for runtimes whose regions are one host each.
   */
  locate?(namespaceId: string, lobbyId: string): Promise<void>;
  /**
   * The regions that cannot run lobbies now, with why in the studio's words (a swarm region with no ready
   * node); regions it runs, and regions whose state is not known yet, are absent. None without a runtime.
   */
  regionProblems(): Readonly<Record<string, string>>;
  /** The latest resource sample this instance took of a running lobby (none: another instance samples). */
  latestSample?(namespaceId: string, lobbyId: string): LobbyResourceSamplesTable | undefined;
  /** The machines lobbies run on, as the orchestrator reports them now (none without a runtime). */
  nodes?(): Promise<RuntimeNode[]>;
}

/**
 * What this instance holds in memory of a lobby's output (the capture runs on the reconciler's instance):
 * its committed counters and the lines read but not yet stored, so followers here see a line as soon as it
 * is read. Undefined when this instance does not capture the lobby; readers then see what is stored.
 */
export interface LiveOutput {
  view(
    namespaceId: string,
    lobbyId: string,
    stream: 'std_out' | 'std_err',
  ):
    | {
        row: { line_count: number; first_line: number; complete: number; dropped_bytes: number };
        memory: readonly { ts: number; bytes: Buffer }[];
      }
    | undefined;
}

export interface LobbyPlacementRequest {
  namespaceId: string;
  gameMode: string;
  region: string;
  /** allow_dynamic_max_players: the lobby's maximum (each count capped at the game mode's own). */
  maxPlayers?: number;
  publicity?: 'public' | 'private';
  tagsJson?: string | null;
  lobbyConfigJson?: string | null;
  within: (trx: Db, lobbyId: string) => Promise<void>;
}

export type LobbyPlacementResult =
  | { placed: true; lobbyId: string }
  | {
      placed: false;
      /**
       * not-run: the game mode runs no container in that region (no build, or no host for the region). Not
       * reachable by one request alone: every region runs on a host (GCM_RUNTIME_HOSTS, else DOCKER_HOST) and a
       * version whose game mode has no build is refused, so only a version switched (or a namespace deleted)
       * between find's read and its placement meets it; no test reaches it through HTTP. host-share: the
       * host's free slots are other tenants' reservations (placement-shares.ts).
       */
      why: 'namespace-full' | 'host-full' | 'host-share' | 'no-ports' | 'not-run' | 'image' | 'no-runtime';
    };

/** What services need, passed in explicitly so tests can swap the clock and the data directory. */
export interface Deps {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly tokens: TokenAuthority;
  /** Wakes watch_index waiters when a watchable resource changes (see http/watch.ts). */
  readonly notifier: ChangeNotifier;
  /** Uploaded files (avatars, build images): the embedded or the S3 driver. */
  readonly blobs: BlobStorage;
  /** Per-client-address limit counters: in the shared database on PostgreSQL, in memory on SQLite. */
  readonly rateCounters: RateCounters;
  /** Writes that change cached rows publish their invalidation through it, inside their transaction. */
  readonly caches: CacheCoherence;
  /** better-auth: people, sessions, teams; its endpoints answer under /auth. */
  readonly accounts: Accounts;
  /** Who a session cookie speaks for, and their roles in the teams that own games. */
  readonly people: People;
  /** better-auth's password hashing, at most GCM_PASSWORD_HASH_CONCURRENCY at once. */
  readonly passwordHashing: PasswordHashing;
  /** Failed sign-ins per account (GCM_SIGN_IN_FAILURES_PER_ACCOUNT). */
  readonly signIns: SignInLimit;
  /** This instance's Prometheus series (GET /metrics). */
  readonly metrics: Metrics;
  /** Queues webhook deliveries of the changes it is told of (modules/webhooks). */
  readonly webhooks: WebhookEvents;
  /** Origins whose pages may use a session: GCM_PUBLIC_URL's, GCM_TRUSTED_ORIGINS, loopback by default. */
  readonly origins: TrustedOrigins;
  /** Runs lobbies (GCM_RUNTIME=docker), or nothing (none). */
  readonly runtime: LobbyRuntime;
  readonly liveOutput: LiveOutput;
  /** Which client addresses are hosting, proxy, Tor or VPN ones (mm-config's caps of those); none by default. */
  readonly addressClasses: AddressClassifier;
}
