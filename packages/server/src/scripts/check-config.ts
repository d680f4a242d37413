import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { describeConfig, MASK } from '../config-report.js';
import { OPERATOR_TOKEN_FILE } from '../modules/tokens/operator-token.js';
import { tracingRequested } from '../tracing.js';

const USAGE = 'usage: gcm-server check-config [--json]';

/**
 * Loads the configuration from the environment exactly as the service's start does and prints every
 * setting, its effective value (secrets masked) and where it came from; exits 2 with the service's own
 * message on a bad one. It only reads: nothing listens, no database is opened, the data dir is untouched
 * (only whether the operator token file exists is looked at).
 */
/** The configuration of the environment, or undefined once the service's message for a bad one is printed. */
export function loadConfigOrSay(): Config | undefined {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return undefined;
    }
    throw err;
  }
}

export function checkConfig(args: readonly string[]): number {
  const json = args.includes('--json');
  const unknown = args.filter((a) => a !== '--json');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument "${unknown[0]}"\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfigOrSay();
  if (config === undefined) return 2;
  const settings = describeConfig(config, process.env);
  const tokenFile = path.join(config.dataDir, OPERATOR_TOKEN_FILE);
  const operatorToken =
    config.operatorToken !== undefined
      ? 'GCM_OPERATOR_TOKEN'
      : existsSync(tokenFile)
        ? `the file ${tokenFile}`
        : `made at first start, in ${tokenFile}`;
  // Only whether: the OTEL_* variables belong to the SDK, and OTEL_EXPORTER_OTLP_HEADERS often holds a key.
  const traces = tracingRequested(process.env) ? 'on (OpenTelemetry, set by the OTEL_* variables)' : 'off';
  if (json) {
    process.stdout.write(`${JSON.stringify({ settings, operator_token: operatorToken, traces }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...settings.map((s) => s.name.length));
  for (const { name, value, source } of settings) {
    process.stdout.write(`${name.padEnd(width)}  ${value}  (${source})\n`);
  }
  process.stdout.write(
    `\noperator token: ${operatorToken}\ntraces: ${traces}\nconfiguration is valid (secrets shown as ${MASK})\n`,
  );
  return 0;
}
