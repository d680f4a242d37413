import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type CacheCoherence, HEARTBEAT_INTERVAL_MS, INVALIDATION_CHANNEL } from './cache-coherence.js';
import type { ChangeNotifier } from './change-notifier.js';

/** Every instance listens on this channel; a payload is `<instance id> <watch key>`. */
export const CHANGE_CHANNEL = 'gcm_changes';

/** While the feed is down, watchers answer after this long rather than wait for a change nobody hears. */
export const DEGRADED_WAIT_MS = 1_000;

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export interface RelayLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Carries watch wake-ups between instances over PostgreSQL LISTEN/NOTIFY. Each change notified here is
 * published with `pg_notify` after its commit (the notifier already woke this instance's waiters); every
 * other instance hears it on its one listening connection and wakes its own waiters.
 *
 * When the listening connection is lost (a database restart, a killed backend), changes made meanwhile go
 * unheard: every waiter is answered at once with what is current, later watchers answer within
 * DEGRADED_WAIT_MS, and the connection is re-made with backoff. Once listening again, every waiter re-reads,
 * since a change may have been missed in the gap.
 *
 * The same connection hears cache invalidations (INVALIDATION_CHANNEL, see cache-coherence.ts) and sends
 * this instance's heartbeat on that channel, whose return tells the caches that everything committed before
 * it was sent has been heard.
 */
export class PgChangeRelay {
  private readonly instanceId = randomUUID();
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private listening = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly pool: pg.Pool,
    private readonly notifier: ChangeNotifier,
    private readonly caches: CacheCoherence,
    private readonly log: RelayLog,
  ) {
    notifier.publishTo((key) => this.publish(key));
  }

  /** Resolves once listening; a failure here fails start-up (the database is unreachable). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** True while changes of other instances are being heard. */
  get connected(): boolean {
    return this.listening;
  }

  /** The listening connection's server process id (tests end it to simulate a database restart). */
  get listenerPid(): number | undefined {
    return this.listening ? (this.client as unknown as { processID?: number }).processID : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    if (client !== undefined) await client.end().catch(() => {});
  }

  private publish(key: string): void {
    if (this.closed) return;
    // Fire and forget: the change is committed whatever happens here. If the notification is lost, other
    // instances' watchers still answer at their timeout with the new data.
    this.pool
      .query('select pg_notify($1, $2)', [CHANGE_CHANNEL, `${this.instanceId} ${key}`])
      .catch((err) => {
        this.log.warn({ err, key }, 'could not publish a change to other instances');
      });
  }

  private async connect(): Promise<void> {
    // Named, so an operator (or a test) can tell the listening connection of each process apart.
    const client = new pg.Client({ ...this.clientConfig, application_name: `gcm-listener ${process.pid}` });
    client.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      if (msg.channel === INVALIDATION_CHANNEL) {
        this.heard(payload);
        return;
      }
      const space = payload.indexOf(' ');
      if (space < 0 || payload.slice(0, space) === this.instanceId) return;
      this.notifier.wakeLocal(payload.slice(space + 1));
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}; LISTEN ${INVALIDATION_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      throw err;
    }
    if (this.closed || this.client !== client) return;
    const wasDegraded = this.notifier.waitCapMs !== undefined;
    this.listening = true;
    this.retryMs = RECONNECT_MIN_MS;
    this.notifier.waitCapMs = undefined;
    // Whatever was invalidated before LISTEN took effect went unheard: start the caches afresh, and trust
    // them again once the first heartbeat returns on this connection.
    this.caches.reset();
    this.sendHeartbeat(client);
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => this.sendHeartbeat(client), HEARTBEAT_INTERVAL_MS);
    this.heartbeatTimer.unref();
    if (wasDegraded) {
      this.log.info({}, 'listening for changes of other instances again');
      this.notifier.wakeAll(false);
    }
  }

  /** The listening connection failed or ended: answer the waiters and try again, unless closing. */
  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    clearInterval(this.heartbeatTimer);
    this.caches.lost();
    client.end().catch(() => {});
    if (this.closed) return;
    this.log.warn({ err }, 'lost the connection that hears changes of other instances; reconnecting');
    this.notifier.waitCapMs = DEGRADED_WAIT_MS;
    this.notifier.wakeAll(true);
    this.scheduleReconnect();
  }

  /** `hb <instance id> <performance.now() at sending>`, or an invalidation for the caches. */
  private heard(payload: string): void {
    if (payload.startsWith('hb ')) {
      const [, instanceId, sentAt] = payload.split(' ');
      if (instanceId === this.instanceId) this.caches.heartbeat(Number(sentAt));
      return;
    }
    this.caches.received(payload);
  }

  private sendHeartbeat(client: pg.Client): void {
    if (this.client !== client || !this.listening) return;
    // On the listening connection itself: no pool slot, and it fails exactly when listening does.
    client
      .query('select pg_notify($1, $2)', [INVALIDATION_CHANNEL, `hb ${this.instanceId} ${performance.now()}`])
      .catch(() => {
        // A failed heartbeat is a lost connection, which lost() handles; the caches stop trusting anyway
        // when no heartbeat returns.
      });
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    this.retryTimer = setTimeout(() => {
      // A failed attempt reports through lost(), which schedules the next one.
      this.connect().catch(() => {});
    }, delay);
    this.retryTimer.unref();
  }
}
