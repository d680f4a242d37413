import { type AppDeps, type BuildAppOptions, buildApp } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/open-db.js';
import type { Deps } from './deps.js';
import { trackConnectionsForShutdown } from './http/shutdown-connections.js';
import { createAccounts, loadAccountSecret } from './identity/accounts.js';
import { PasswordHashing } from './identity/password-hashing.js';
import { People } from './identity/people.js';
import { pauseNotice, SignInLimit } from './identity/sign-in-limit.js';
import { TokenAuthority } from './identity/token-authority.js';
import { backgroundJobs } from './jobs.js';
import { type AddressClassifier, NO_ADDRESS_CLASSES } from './lib/address-classes.js';
import { BackgroundJobs } from './lib/background-jobs.js';
import type { BlobStorage } from './lib/blob/blob-storage.js';
import { createBlobStorage } from './lib/blob/create-blob-storage.js';
import { CacheCoherence } from './lib/cache-coherence.js';
import { ChangeNotifier } from './lib/change-notifier.js';
import { type Clock, systemClock } from './lib/clock.js';
import { secureDataDir } from './lib/data-dir.js';
import { describeSmtpError, LogMailer, type Mailer, SmtpMailer } from './lib/mail.js';
import { Metrics } from './lib/metrics.js';
import { PgChangeRelay } from './lib/pg-change-relay.js';
import { MemoryCounters, TableCounters } from './lib/rate-counters.js';
import { holdTestPauses, type TestPauses } from './lib/test-seams.js';
import { TrustedOrigins } from './lib/trusted-origins.js';
import { createLogger, type LogStream, silentLogger } from './logger.js';
import { Backups } from './modules/backups/backups.service.js';
import { BillingScheduler } from './modules/billing/billing.scheduler.js';
import { openFirstRunSetup } from './modules/first-run/first-run.service.js';
import { teamOwnsGames } from './modules/games/games.service.js';
import { OutputCapture } from './modules/lobby-output/output-capture.js';
import { Namespaces } from './modules/namespaces/namespaces.service.js';
import { Reconciler } from './modules/runtime/reconciler.js';
import { ownerOf } from './modules/runtime/runtime.service.js';
import { ensureOperatorToken } from './modules/tokens/operator-token.js';
import { loadUploadSigningSecret } from './modules/uploads/uploads.repository.js';
import { WebhookOutbox } from './modules/webhooks/webhooks.outbox.js';
import { deleteWebhooksOf, teamScope } from './modules/webhooks/webhooks.service.js';
import type { RuntimeDriver } from './runtime/driver.js';
import { runtimeDriverOf } from './runtime-drivers.js';

/** The job lease's name: wake-ups take the same lease as the periodic pass. */
const RECONCILER_JOB = 'runtime-reconciler';

/**
 * GCM_RUNTIME=docker or swarm: the reconciler over the driver; none: nothing runs lobbies (they are reported).
 * Wake-ups between periodic passes take the reconciler's job lease like the passes do, so on PostgreSQL one
 * instance acts at a time.
 */
function createReconciler(
  config: Config,
  driver: RuntimeDriver | undefined,
  deps: Deps,
  jobs: BackgroundJobs,
  shared: boolean,
  log: ReturnType<typeof silentLogger>,
): { reconciler: Reconciler; output: OutputCapture } | undefined {
  if (config.runtime.kind === 'none') return undefined;
  const ttlMs = Math.max(config.runtime.reconcileIntervalMs * 3, 5_000);
  const orchestrator = driver ?? runtimeDriverOf(config);
  const logTo: Log = (level, fields, message) => log[level](fields, message);
  const output = new OutputCapture(
    {
      db: deps.db,
      blobs: deps.blobs,
      notifier: deps.notifier,
      clock: deps.clock,
      maxBytes: config.runtime.lobbyLogMaxBytes,
      rateBytes: config.runtime.lobbyOutputRateBytes,
      burstBytes: config.runtime.lobbyOutputBurstBytes,
      log: logTo,
    },
    orchestrator,
  );
  const reconciler = new Reconciler(deps, orchestrator, {
    owner: ownerOf(config),
    lease: () => (shared ? jobs.takeLease(RECONCILER_JOB, ttlMs) : Promise.resolve(true)),
    log: logTo,
    output,
  });
  return { reconciler, output };
}

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

export interface StartOptions extends BuildAppOptions {
  clock?: Clock;
  /** Replaces the configured blob driver (tests: the S3 driver over a fake transport). */
  blobs?: BlobStorage;
  /** Holds requests at chosen points (tests that force a race); none in production. */
  pauses?: TestPauses;
  /**
   * Where the hosting/proxy/Tor/VPN classes of client addresses come from, instead of
   * GCM_ADDRESS_CLASSES_FILE: an embedder's own source (a lookup service's cached answers, say).
   */
  addressClasses?: AddressClassifier;
  /**
   * Where the service's logger writes its JSON lines instead of stdout, with its level, redaction and
   * serializers unchanged: tests read what an operator's log would hold. Ignored when `logger` is given.
   */
  logStream?: LogStream;
  /** The orchestrator lobbies run on with GCM_RUNTIME=docker, in place of the one made from the config. */
  runtimeDriver?: RuntimeDriver;
}

/**
 * Everything main.ts does short of listening: open the store, migrate, make the first operator token,
 * build the app. Tests call this too, so they run the same start-up path as production.
 */
export async function createService(config: Config, options: StartOptions = {}) {
  const clock = options.clock ?? systemClock;
  // Before the store is opened: it and the operator token are created private, in a private directory.
  const permissionWarnings = secureDataDir(config.dataDir);
  const log =
    options.logger === false ? silentLogger() : (options.logger ?? createLogger(config, options.logStream));
  for (const warning of permissionWarnings) log.warn({ data_dir: config.dataDir }, warning);
  // Its own registry per service: tests run many services in one process.
  const metrics = new Metrics();
  const {
    db,
    postgres,
    sqlite,
    connections: storeConnections,
  } = openDatabase(
    config,
    // Errors of idle pooled connections (a database restart): no request to answer with.
    (err) => log.warn({ err }, 'an idle database connection failed'),
    (operation, seconds) => metrics.observeQuery(operation, seconds),
  );
  const shared = postgres !== undefined;
  let relay: PgChangeRelay | undefined;
  try {
    await migrateToLatest(db);
    const newOperatorToken = await ensureOperatorToken(db, config.dataDir, clock, config.operatorToken);
    const firstRunSetup = await openFirstRunSetup(db, config.dataDir, clock);
    // The embedded store is locked to this process, so every write passes through it and in-process
    // caches invalidated on write are exact. On a store shared by several instances, other instances'
    // writes arrive over LISTEN/NOTIFY through the relay, within a bound (cache-coherence.ts).
    const caches = new CacheCoherence(shared);
    const tokens = new TokenAuthority(db, clock, {
      caches,
      // A token's last use is recorded beside the request, so its failure has no request to answer with.
      onUseRecordError: (err) => log.warn({ err }, "recording a token's last use failed"),
    });
    await tokens.init(config.operatorToken);
    const blobs =
      options.blobs ?? (await createBlobStorage(config, clock, () => loadUploadSigningSecret(db)));
    const notifier = new ChangeNotifier();
    metrics.watch({ connections: storeConnections, watchers: () => notifier.waiting });
    const webhooks = new WebhookOutbox(db, clock, caches);
    const billingScheduler = new BillingScheduler({ db, clock, notifier, webhooks });
    // One process owns the embedded store, so its memory is the whole truth; instances sharing PostgreSQL
    // must count together, or each would allow the limit again.
    const rateCounters = shared ? new TableCounters(db, clock) : new MemoryCounters(clock);
    const mailer: Mailer =
      config.smtpUrl === undefined
        ? new LogMailer((fields, message) => log.warn(fields, message))
        : new SmtpMailer({
            url: config.smtpUrl,
            from: config.mailFrom,
            // Not the error object itself: an SMTP server's answer can quote the message, and its text holds links.
            onError: (err, mail) =>
              log.error(
                { mail_to: mail.to, mail_subject: mail.subject, smtp_error: describeSmtpError(err) },
                'mail could not be handed to the SMTP server',
              ),
          });
    const passwordHashing = new PasswordHashing(
      config.accounts.passwordHashes.concurrency,
      config.accounts.passwordHashes.queueMax,
    );
    metrics.watchPasswordHashes(() => passwordHashing.stats);
    const signIns = new SignInLimit(
      rateCounters,
      clock,
      config.accounts.signInFailures,
      pauseNotice({
        db,
        mailer,
        publicUrl: config.publicUrl,
        log: (fields, message) => log.warn(fields, message),
      }),
    );
    const origins = new TrustedOrigins({
      publicUrl: config.publicUrl,
      publicUrlDefaulted: config.publicUrlDefaulted,
      trustedOrigins: config.accounts.trustedOrigins,
      port: config.port,
    });
    const accounts = createAccounts({
      config,
      origins,
      db,
      mailer,
      passwordHashing,
      secret: await loadAccountSecret(db),
      teamOwnsGames: (teamId) => teamOwnsGames(db, teamId),
      memberJoined: (m) =>
        webhooks.teamEvent(db, m.teamId, {
          type: 'member.joined',
          resourceKey: `member:${m.teamId}:${m.userId}`,
          dedupeKey: `member.joined:${m.memberId}`,
          data: { team_id: m.teamId, user_id: m.userId, email: m.email, role: m.role },
        }),
      teamDeleted: async (teamId) => {
        await deleteWebhooksOf(deps, teamScope(teamId));
      },
      log: (level, message) => log[level]({ component: 'better-auth' }, message),
    });
    const jobFailed = (job: string, err: unknown) => log.error({ err, job }, 'background job failed');
    const jobs = new BackgroundJobs(db, shared, jobFailed, Date.now, metrics);
    // Made once the deps it needs are; until then (and with GCM_RUNTIME=none) a wake does nothing.
    let reconciler: Reconciler | undefined;
    let output: OutputCapture | undefined;
    const deps: Deps = {
      config,
      db,
      clock,
      tokens,
      blobs,
      notifier,
      rateCounters,
      caches,
      accounts,
      people: new People(db, accounts),
      passwordHashing,
      signIns,
      metrics,
      webhooks,
      origins,
      runtime: {
        kind: config.runtime.kind,
        wake: (namespaceId) => reconciler?.wake(namespaceId),
        placeNow: (request) =>
          reconciler === undefined
            ? Promise.resolve({ placed: false, why: 'no-runtime' })
            : reconciler.placeNow(request),
        regionProblems: () => reconciler?.regionProblems() ?? {},
        latestSample: (namespaceId, lobbyId) => reconciler?.sampler.latest(namespaceId, lobbyId),
        locate: async (namespaceId, lobbyId) => reconciler?.locate(namespaceId, lobbyId),
        nodes: () => reconciler?.nodes() ?? Promise.resolve([]),
      },
      liveOutput: { view: (namespaceId, lobbyId, stream) => output?.view(namespaceId, lobbyId, stream) },
      addressClasses: options.addressClasses ?? config.addressClasses?.classifier ?? NO_ADDRESS_CLASSES,
    };
    if (options.pauses !== undefined) holdTestPauses(deps, options.pauses);
    // The namespaces module owns its view cache: every write of a namespace goes through it.
    const backups = new Backups({ sqlite, dataDir: config.dataDir, backupDir: config.backupDir, clock });
    const appDeps: AppDeps = { ...deps, namespaces: new Namespaces(deps), backups };
    const app = await buildApp(appDeps, { ...options, logger: options.logger === false ? false : log });
    app.addHook('onClose', () => mailer.close());
    if (postgres !== undefined) {
      relay = new PgChangeRelay(postgres.clientConfig, postgres.pool, notifier, caches, log);
      await relay.start();
    }
    const connections = trackConnectionsForShutdown(app.server);
    // Before the server waits for requests in flight: watchers answer now with what is current, rather
    // than holding shutdown up for the whole watch timeout.
    app.addHook('preClose', async () => {
      notifier.close();
      connections.drain();
    });
    const runtime = createReconciler(config, options.runtimeDriver, deps, jobs, shared, log);
    reconciler = runtime?.reconciler;
    output = runtime?.output;
    const sampler = reconciler?.sampler;
    if (sampler !== undefined) metrics.watchLobbies(() => sampler.namespaceUse());
    const table = backgroundJobs(appDeps, { billingScheduler, jobFailed, reconciler });
    reconciler?.start();
    for (const job of table) jobs.start(job);
    const stopRelay = relay;
    app.addHook('onClose', async () => {
      await jobs.stop();
      // What outlives a job's passes (requests in flight, a pass run outside the timer), last started first.
      for (const job of [...table].reverse()) await job.stop?.();
      await stopRelay?.close();
      await tokens.settle();
      await db.destroy();
    });
    // The scheduler is returned for tests, which call runDue() after moving the clock; the reconciler for
    // tests that run a pass and look at what it did.
    return { app, deps: appDeps, relay, newOperatorToken, firstRunSetup, billingScheduler, reconciler };
  } catch (err) {
    await relay?.close();
    await db.destroy();
    throw err;
  }
}
