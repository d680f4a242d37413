import path from 'node:path';
import { createService } from './composition-root.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirInUseError } from './db/open-db.js';
import { listenerPort, listenForOperations } from './http/ops-listener.js';
import { DataDirPermissionError } from './lib/data-dir.js';
import { SETUP_FILE, setupPageUrl } from './modules/first-run/first-run.service.js';
import { OPERATOR_TOKEN_FILE } from './modules/tokens/operator-token.js';

export interface StartOptions {
  /** Runs after the service has closed and before the process exits (tracing flushes its spans). */
  beforeExit?: () => Promise<void>;
}

/** Loads the configuration, builds the service and listens; exits the process on signals and failures. */
export function start(options: StartOptions = {}): void {
  main(options).catch(failedToStart);
}

async function main({ beforeExit }: StartOptions): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const { app, deps, newOperatorToken, firstRunSetup } = await createService(config);
  if (newOperatorToken !== undefined) {
    // The one time the operator token is shown: the first start of a new data directory.
    app.log.warn(
      { operator_token: newOperatorToken, file: path.join(config.dataDir, OPERATOR_TOKEN_FILE) },
      'created the operator token; it is shown only this once and kept in the file named here',
    );
  }

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    app.close().then(
      async () => {
        try {
          await beforeExit?.();
        } catch (err) {
          app.log.error({ err }, 'error while flushing traces');
        }
        process.exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  if (config.metricsListen !== undefined) {
    const { host } = config.metricsListen;
    const ops = await listenForOperations(
      app,
      { readiness: app.readiness, metrics: deps.metrics, metricsToken: config.metricsToken },
      config.metricsListen,
    );
    app.log.info(
      { host, port: listenerPort(ops) },
      'operations listener: /metrics, /healthz and /readyz at this address',
    );
  }
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // The default public URL names PORT, which may be 0 (pick one): the address as a person would open it.
  const dashboardUrl = config.publicUrlDefaulted ? `http://localhost:${port}` : config.publicUrl;
  app.log.info({ dashboard_url: dashboardUrl }, `dashboard: ${dashboardUrl}`);
  if (firstRunSetup !== undefined) {
    const setupUrl = setupPageUrl(dashboardUrl, firstRunSetup.secret);
    app.log.warn(
      { setup_url: setupUrl, file: path.join(config.dataDir, SETUP_FILE) },
      `first run: open ${setupUrl} to create the first team and its owner's account; the link works once ` +
        '(its secret is also in the file named here until then)',
    );
  }
}

function failedToStart(err: unknown): never {
  // A data dir we cannot make private is a deployment mistake, like a bad variable: exit 2.
  if (err instanceof DataDirPermissionError) {
    process.stderr.write(`failed to start: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof DataDirInUseError) {
    process.stderr.write(`failed to start: ${err.message}\n`);
    process.exit(3);
  }
  process.stderr.write(
    `failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
}
