import type { AppDeps } from './app.js';
import { deleteExpiredIdempotencyKeys, IDEMPOTENCY_CLEANUP_INTERVAL_MS } from './http/idempotency.js';
import { deleteExpiredSessions } from './identity/accounts.js';
import type { BackgroundJob } from './lib/background-jobs.js';
import { deleteExpiredAuditEvents } from './modules/audit/audit.service.js';
import type { BillingScheduler } from './modules/billing/billing.scheduler.js';
import {
  DEVICE_LINK_CLEANUP_INTERVAL_MS,
  deleteExpiredDeviceLinks,
} from './modules/device-links/device-links.service.js';
import { deleteExpiredExports } from './modules/lobby-exports/lobby-exports.service.js';
import { deleteExpiredLobbies } from './modules/lobby-logs/lobby-logs.service.js';
import { deleteExpiredOutput } from './modules/lobby-output/lobby-output.service.js';
import { expirePlayerTokens } from './modules/matchmaker/matchmaker-players.service.js';
import { deleteUploadGarbage, purgeDeleted } from './modules/purge/purge.service.js';
import type { Reconciler } from './modules/runtime/reconciler.js';
import { deleteExpiredLobbyResources } from './modules/runtime/runtime.service.js';
import { revokeStrandedPersonTokens } from './modules/tokens/tokens.service.js';
import { WebhookDispatcher } from './modules/webhooks/webhooks.dispatcher.js';
import { deleteExpiredDeliveries } from './modules/webhooks/webhooks.service.js';

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

export interface ServiceJob extends BackgroundJob {
  /**
   * Waits for what the job keeps running between its passes, once every timer has stopped and before the
   * store closes. The composition root calls these last job first.
   */
  stop?(): Promise<void>;
}

/**
 * Every periodic job of the service, in the order they start: the composition root hands each to
 * BackgroundJobs (an interval of 0 leaves a job off) and, at close, stops their timers and then calls
 * their `stop`. A new job is a row here.
 */
export function backgroundJobs(
  deps: AppDeps,
  {
    billingScheduler,
    jobFailed,
    reconciler,
  }: {
    billingScheduler: BillingScheduler;
    /** Runs lobbies (GCM_RUNTIME=docker); undefined leaves its job off. */
    reconciler?: Reconciler | undefined;
    /** How a failure outside a pass is reported, as BackgroundJobs reports a failed pass. */
    jobFailed: (job: string, err: unknown) => void;
  },
): ServiceJob[] {
  const { config, db, clock } = deps;
  const dispatcher = new WebhookDispatcher(deps);
  return [
    {
      name: 'billing-roll-over',
      intervalMs: config.billingTickMs,
      run: () => billingScheduler.runDue(),
      // Tests call runDue() outside the timer too.
      stop: () => billingScheduler.stop(),
    },
    {
      name: 'stranded-token-sweep',
      intervalMs: STRANDED_TOKEN_SWEEP_INTERVAL_MS,
      run: () => revokeStrandedPersonTokens(deps, 'all'),
    },
    {
      name: 'audit-retention',
      intervalMs: AUDIT_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredAuditEvents(deps),
    },
    {
      name: 'lobby-retention',
      intervalMs: LOBBY_RETENTION_INTERVAL_MS,
      // The lobbies, then their resource samples (none is newer than its lobby's last report).
      run: async () => (await deleteExpiredLobbies(deps)) + (await deleteExpiredLobbyResources(deps)),
    },
    {
      name: 'lobby-output-retention',
      intervalMs: LOBBY_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredOutput(deps),
    },
    {
      name: 'session-clean-up',
      intervalMs: SESSION_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredSessions(db, clock.now()),
    },
    {
      name: 'upload-clean-up',
      intervalMs: UPLOAD_CLEANUP_INTERVAL_MS,
      // Exported files (lobby history, output) are kept a day: hourly is within that.
      run: async () => (await deleteUploadGarbage(deps)) + (await deleteExpiredExports(deps)),
    },
    {
      name: 'device-link-clean-up',
      intervalMs: DEVICE_LINK_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredDeviceLinks(deps),
    },
    {
      name: 'purge-deleted',
      intervalMs: config.purgeIntervalMs,
      run: () => purgeDeleted(deps),
    },
    {
      name: 'rate-limit-clean-up',
      intervalMs: RATE_LIMIT_CLEANUP_INTERVAL_MS,
      run: () => deps.rateCounters.prune(),
    },
    {
      name: 'idempotency-key-clean-up',
      intervalMs: IDEMPOTENCY_CLEANUP_INTERVAL_MS,
      run: () => deleteExpiredIdempotencyKeys(db, clock),
    },
    {
      name: 'webhook-delivery',
      intervalMs: config.webhooks.pollMs,
      run: () => dispatcher.pass(),
      // Its requests outlive the passes: each is cut short, and failures no pass reported are reported here.
      stop: async () => {
        for (const err of await dispatcher.stop()) jobFailed('webhook-delivery', err);
      },
    },
    {
      name: 'runtime-reconciler',
      intervalMs: reconciler === undefined ? 0 : config.runtime.reconcileIntervalMs,
      run: async () => reconciler?.pass(),
      // Stops following the engine's events; the lobbies keep running, and a restart adopts them.
      stop: async () => reconciler?.stop(),
    },
    {
      name: 'runtime-image-gc',
      intervalMs: reconciler === undefined ? 0 : config.runtime.imageGcIntervalMs,
      run: async () => reconciler?.collectImages(),
    },
    {
      name: 'player-token-expiry',
      // Within a few seconds of a deadline; a connect after it is refused at once whatever the job's timing.
      intervalMs: Math.min(5_000, Math.max(500, Math.floor(config.runtime.playerConnectTimeoutMs / 4))),
      run: async () => {
        await expirePlayerTokens(deps);
      },
    },
    {
      name: 'webhook-retention',
      intervalMs: WEBHOOK_RETENTION_INTERVAL_MS,
      run: () => deleteExpiredDeliveries(deps),
    },
  ];
}
