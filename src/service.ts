import { type BuildAppOptions, buildApp } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openSqlite } from './db/open-db.js';
import type { Deps } from './deps.js';
import { trackConnectionsForShutdown } from './http/shutdown-connections.js';
import type { BlobStorage } from './lib/blob/blob-storage.js';
import { createBlobStorage } from './lib/blob/create-blob-storage.js';
import { ChangeNotifier } from './lib/change-notifier.js';
import { type Clock, systemClock } from './lib/clock.js';
import { ReadCache } from './lib/read-cache.js';
import { BillingScheduler } from './modules/billing/billing.scheduler.js';
import type { NamespaceView } from './modules/namespaces/namespaces.service.js';
import { ensureOperatorToken } from './modules/tokens/operator-token.js';
import { TokenAuthority } from './modules/tokens/token-authority.js';
import { loadUploadSigningSecret } from './modules/uploads/uploads.repository.js';

export interface StartOptions extends BuildAppOptions {
  clock?: Clock;
  /** Replaces the configured blob driver (tests: the S3 driver over a fake transport). */
  blobs?: BlobStorage;
}

/**
 * Everything main.ts does short of listening: open the store, migrate, make the first operator token,
 * build the app. Tests call this too, so they run the same start-up path as production.
 */
export async function createService(config: Config, options: StartOptions = {}) {
  const clock = options.clock ?? systemClock;
  const db = openSqlite(config.dataDir);
  try {
    await migrateToLatest(db);
    const newOperatorToken = await ensureOperatorToken(db, config.dataDir, clock, config.operatorToken);
    // The embedded store is locked to this process, so every write passes through it and in-process
    // caches invalidated on write are exact. A store shared by several instances must pass false here.
    const cacheReads = true;
    const tokens = new TokenAuthority(db, clock, { cacheRows: cacheReads });
    await tokens.init(config.operatorToken);
    const namespaceViews = new ReadCache<string, NamespaceView>({ enabled: cacheReads, maxEntries: 10_000 });
    const blobs =
      options.blobs ?? (await createBlobStorage(config, clock, () => loadUploadSigningSecret(db)));
    const notifier = new ChangeNotifier();
    const billingScheduler = new BillingScheduler({ db, clock, notifier });
    const deps: Deps = { config, db, clock, tokens, namespaceViews, blobs, notifier, billingScheduler };
    const app = await buildApp(deps, options);
    const connections = trackConnectionsForShutdown(app.server);
    // Before the server waits for requests in flight: watchers answer now with what is current, rather
    // than holding shutdown up for the whole watch timeout.
    app.addHook('preClose', async () => {
      notifier.close();
      connections.drain();
    });
    billingScheduler.start(config.billingTickMs, (err) => app.log.error({ err }, 'billing roll-over failed'));
    app.addHook('onClose', async () => {
      await billingScheduler.stop();
      await db.destroy();
    });
    return { app, deps, newOperatorToken };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}
