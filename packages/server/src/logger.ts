import { type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { redactUrl } from './http/redact.js';

export type { Logger };

/** Where log lines go instead of stdout (tests read what an operator's log would hold). */
export interface LogStream {
  write(line: string): void;
}

/**
 * The service's one logger, made from the configuration before anything else so that the store, the mailer,
 * the jobs and Fastify (as its `loggerInstance`, which adds its own `res` and `err` serializers) all write
 * through it: JSON lines, credentials never in them.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, stream?: LogStream): Logger {
  return pino(
    {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remote: req.ip,
        }),
      },
    },
    stream,
  );
}

/** A logger that writes nothing: the service's own lines when a test silences it. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
