import { type AppDeps, type BuildAppOptions, buildApp } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openDatabase } from './db/open-db.js';
import type { Deps } from './deps.js';
import { deleteExpiredIdempotencyKeys, IDEMPOTENCY_CLEANUP_INTERVAL_MS } from './http/idempotency.js';
import { trackConnectionsForShutdown } from './http/shutdown-connections.js';
import { createAccounts, deleteExpiredSessions, loadAccountSecret } from './identity/accounts.js';
import { PasswordHashing } from './identity/password-hashing.js';
import { People } from './identity/people.js';
import { pauseNotice, SignInLimit } from './identity/sign-in-limit.js';
import { TokenAuthority } from './identity/token-authority.js';
import { BackgroundJobs } from './lib/background-jobs.js';
import type { BlobStorage } from './lib/blob/blob-storage.js';
import { createBlobStorage } from './lib/blob/create-blob-storage.js';
import { CacheCoherence } from './lib/cache-coherence.js';
import { ChangeNotifier } from './lib/change-notifier.js';
import { type Clock, systemClock } from './lib/clock.js';
import { secureDataDir } from './lib/data-dir.js';
import { describeSmtpError, LogMailer, type Mail, type Mailer, SmtpMailer } from './lib/mail.js';
import { Metrics } from './lib/metrics.js';
import { PgChangeRelay } from './lib/pg-change-relay.js';
import { MemoryCounters, TableCounters } from './lib/rate-counters.js';
import { holdTestPauses, type TestPauses } from './lib/test-seams.js';
import { TrustedOrigins } from './lib/trusted-origins.js';
import { deleteExpiredAuditEvents } from './modules/audit/audit.service.js';
import { Backups } from './modules/backups/backups.service.js';
import { BillingScheduler } from './modules/billing/billing.scheduler.js';
import {
  DEVICE_LINK_CLEANUP_INTERVAL_MS,
  deleteExpiredDeviceLinks,
} from './modules/device-links/device-links.service.js';
import { openFirstRunSetup } from './modules/first-run/first-run.service.js';
import { teamOwnsGames } from './modules/games/games.service.js';
import { deleteExpiredLobbies } from './modules/lobby-logs/lobby-logs.service.js';
import { Namespaces } from './modules/namespaces/namespaces.service.js';
import { deleteUploadGarbage, purgeDeleted } from './modules/purge/purge.service.js';
import { ensureOperatorToken } from './modules/tokens/operator-token.js';
import { revokeStrandedPersonTokens } from './modules/tokens/tokens.service.js';
import { loadUploadSigningSecret } from './modules/uploads/uploads.repository.js';
import { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.js';
import { WebhookOutbox } from './modules/webhooks/webhooks.outbox.js';
import { deleteExpiredDeliveries, deleteWebhooksOf, teamScope } from './modules/webhooks/webhooks.service.js';

/** How often ended rate-limit windows are deleted (a hit also restarts an ended window in place). */
const RATE_LIMIT_CLEANUP_INTERVAL_MS = 60_000;
/** Retention is in days: an hourly pass keeps the log within an hour of it. */
const AUDIT_RETENTION_INTERVAL_MS = 3_600_000;
/** Likewise for the lobby log (GCM_LOBBY_RETENTION_DAYS). */
const LOBBY_RETENTION_INTERVAL_MS = 3_600_000;
/** An expired session is refused whether its row is there or not: an hourly sweep only reclaims space. */
const SESSION_CLEANUP_INTERVAL_MS = 3_600_000;
/** Deliveries are kept for days (GCM_WEBHOOK_RETENTION_DAYS): hourly is within that. */
const WEBHOOK_RETENTION_INTERVAL_MS = 3_600_000;
/** Uploads are collected GCM_UPLOAD_ABANDON_HOURS (at least one) late: hourly is within that. */
const UPLOAD_CLEANUP_INTERVAL_MS = 3_600_000;
/**
 * Tokens minted for people are revoked when a membership change answers; this sweep catches any such change
 * whose revocation failed, or that reached the store another way, within a minute.
 */
const STRANDED_TOKEN_SWEEP_INTERVAL_MS = 60_000;

export interface StartOptions extends BuildAppOptions {
  clock?: Clock;
  /** Replaces the configured blob driver (tests: the S3 driver over a fake transport). */
  blobs?: BlobStorage;
  /** Holds requests at chosen points (tests that force a race); none in production. */
  pauses?: TestPauses;
}

/**
 * Everything main.ts does short of listening: open the store, migrate, make the first operator token,
 * build the app. Tests call this too, so they run the same start-up path as production.
 */
export async function createService(config: Config, options: StartOptions = {}) {
  const clock = options.clock ?? systemClock;
  // Before the store is opened: it and the operator token are created private, in a private directory.
  const permissionWarnings = secureDataDir(config.dataDir);
  // Errors of idle pooled connections (a database restart) are logged once the app's logger exists.
  let logPoolError = (err: Error): void => {
    process.stderr.write(`database pool error: ${err.message}\n`);
  };
  // A token's last use is recorded beside the request, so its failure has no request to answer with.
  let logTokenUseError = (err: unknown): void => {
    process.stderr.write(`recording a token's use failed: ${String(err)}\n`);
  };
  let logAccounts = (level: 'debug' | 'info' | 'warn' | 'error', message: string): void => {
    process.stderr.write(`accounts ${level}: ${message}\n`);
  };
  let logMail = (fields: Record<string, unknown>, message: string): void => {
    process.stderr.write(`${message}: ${JSON.stringify(fields)}\n`);
  };
  let logPause = (fields: Record<string, unknown>, message: string): void => {
    process.stderr.write(`${message}: ${JSON.stringify(fields)}\n`);
  };
  let logMailError = (err: unknown, mail: Mail): void => {
    process.stderr.write(`mail to ${mail.to} failed: ${describeSmtpError(err)}\n`);
  };
  // Its own registry per service: tests run many services in one process.
  const metrics = new Metrics();
  const {
    db,
    postgres,
    sqlite,
    connections: storeConnections,
  } = openDatabase(
    config,
    (err) => logPoolError(err),
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
      onUseRecordError: (err) => logTokenUseError(err),
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
        ? new LogMailer((fields, message) => logMail(fields, message))
        : new SmtpMailer({
            url: config.smtpUrl,
            from: config.mailFrom,
            onError: (err, mail) => logMailError(err, mail),
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
        log: (fields, message) => logPause(fields, message),
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
      log: (level, message) => logAccounts(level, message),
    });
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
    };
    if (options.pauses !== undefined) holdTestPauses(deps, options.pauses);
    // The namespaces module owns its view cache: every write of a namespace goes through it.
    const backups = new Backups({ sqlite, dataDir: config.dataDir, backupDir: config.backupDir, clock });
    const appDeps: AppDeps = { ...deps, namespaces: new Namespaces(deps), backups };
    const app = await buildApp(appDeps, options);
    for (const warning of permissionWarnings) app.log.warn({ data_dir: config.dataDir }, warning);
    logPoolError = (err) => app.log.warn({ err }, 'an idle database connection failed');
    logTokenUseError = (err) => app.log.warn({ err }, "recording a token's last use failed");
    logMail = (fields, message) => app.log.warn(fields, message);
    // Not the error object itself: an SMTP server's answer can quote the message, and its text holds links.
    logMailError = (err, mail) =>
      app.log.error(
        { mail_to: mail.to, mail_subject: mail.subject, smtp_error: describeSmtpError(err) },
        'mail could not be handed to the SMTP server',
      );
    app.addHook('onClose', () => mailer.close());
    logAccounts = (level, message) => app.log[level]({ component: 'better-auth' }, message);
    logPause = (fields, message) => app.log.warn(fields, message);
    if (postgres !== undefined) {
      relay = new PgChangeRelay(postgres.clientConfig, postgres.pool, notifier, caches, app.log);
      await relay.start();
    }
    const connections = trackConnectionsForShutdown(app.server);
    // Before the server waits for requests in flight: watchers answer now with what is current, rather
    // than holding shutdown up for the whole watch timeout.
    app.addHook('preClose', async () => {
      notifier.close();
      connections.drain();
    });
    const jobs = new BackgroundJobs(
      db,
      shared,
      (job, err) => app.log.error({ err, job }, 'background job failed'),
      Date.now,
      metrics,
    );
    jobs.start({
      name: 'billing-roll-over',
      intervalMs: config.billingTickMs,
      run: () => billingScheduler.runDue(),
    });
    jobs.start({
      name: 'stranded-token-sweep',
      intervalMs: STRANDED_TOKEN_SWEEP_INTERVAL_MS,
      run: () => revokeStrandedPersonTokens(deps, 'all'),
    });
    jobs.start({
      name: 'audit-retention',
      intervalMs: AUDIT_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredAuditEvents(deps),
    });
    jobs.start({
      name: 'lobby-retention',
      intervalMs: LOBBY_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredLobbies(deps),
    });
    jobs.start({
      name: 'session-clean-up',
      intervalMs: SESSION_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredSessions(db, clock.now()),
    });
    jobs.start({
      name: 'upload-clean-up',
      intervalMs: UPLOAD_CLEANUP_INTERVAL_MS,
      run: () => deleteUploadGarbage(deps),
    });
    jobs.start({
      name: 'device-link-clean-up',
      intervalMs: DEVICE_LINK_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredDeviceLinks(deps),
    });
    jobs.start({
      name: 'purge-deleted',
      intervalMs: config.purgeIntervalMs,
      run: () => purgeDeleted(appDeps),
    });
    jobs.start({
      name: 'rate-limit-clean-up',
      intervalMs: RATE_LIMIT_CLEANUP_INTERVAL_MS,
      run: () => rateCounters.prune(),
    });
    jobs.start({
      name: 'idempotency-key-clean-up',
      intervalMs: IDEMPOTENCY_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredIdempotencyKeys(db, clock),
    });
    // Its requests outlive the job's passes: stopped after the jobs, before the store closes.
    const dispatcher = new WebhookDispatcher(deps);
    jobs.start({
      name: 'webhook-delivery',
      intervalMs: config.webhooks.pollMs,
      run: () => dispatcher.pass(),
    });
    jobs.start({
      name: 'webhook-retention',
      intervalMs: WEBHOOK_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredDeliveries(deps),
    });
    const stopRelay = relay;
    app.addHook('onClose', async () => {
      await jobs.stop();
      for (const err of await dispatcher.stop()) {
        app.log.error({ err, job: 'webhook-delivery' }, 'background job failed');
      }
      await billingScheduler.stop();
      await stopRelay?.close();
      await tokens.settle();
      await db.destroy();
    });
    // The scheduler is returned for tests, which call runDue() after moving the clock.
    return { app, deps: appDeps, relay, newOperatorToken, firstRunSetup, billingScheduler };
  } catch (err) {
    await relay?.close();
    await db.destroy();
    throw err;
  }
}
