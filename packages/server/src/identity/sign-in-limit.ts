import { createHash } from 'node:crypto';
import type { SignInFailureConfig } from '../config.js';
import type { Db } from '../db/open-db.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Mailer } from '../lib/mail.js';
import { type RateCounters, secondsUntil } from '../lib/rate-counters.js';
import { AUTH_BASE_PATH } from './accounts.js';

const DAY_MS = 86_400_000;

/** A pause that has just begun: the account's email, which pause of the day it is, and when it ends. */
export interface SignInPause {
  email: string;
  /** 1 for the first pause within the day, 2 for the next, … */
  number: number;
  failures: number;
  pauseMs: number;
  untilTs: number;
}

/**
 * Failed sign-ins per account, whatever addresses they come from: `max` failures within a window pause the
 * account's sign-ins (right password or wrong) for `pauseMs`, twice as long for each further pause within a
 * day, up to `pauseMaxMs`. The owner waits a minute, not a day; a guesser spread over many addresses gets
 * `max` guesses per pause. Emails nobody holds count alike, so the pause tells nothing about who has an
 * account. The counts are the per-address limits' (`RateCounters`): in this process's memory on SQLite, in
 * the shared table on PostgreSQL, so every instance counts together. Keys carry a hash of the email, not the
 * email.
 */
export class SignInLimit {
  constructor(
    private readonly counters: RateCounters,
    private readonly clock: Clock,
    private readonly config: SignInFailureConfig,
    /** A pause began (once per pause, on the instance that counted the failure that began it). */
    private readonly paused: (pause: SignInPause) => void,
  ) {}

  /** Throws 429 SIGN_IN_PAUSED while the account's sign-ins are paused. */
  async check(email: string): Promise<void> {
    if (this.config.max === 0) return;
    const pause = await this.counters.peek(`sign-in-pause:${accountKey(email)}`);
    if (pause !== undefined) throw errors.signInPaused(secondsUntil(pause.resetTs, this.clock.now()));
  }

  /** Counts a failed sign-in; the one that reaches the limit begins a pause. */
  async failed(email: string): Promise<void> {
    if (this.config.max === 0) return;
    const key = accountKey(email);
    const earlier = (await this.counters.peek(`sign-in-pauses:${key}`))?.hits ?? 0;
    // Counted afresh after each pause: a pause that ended leaves its failures behind.
    const window = await this.counters.hit(`sign-in-failures:${key}:${earlier}`, this.config.windowMs);
    if (window.hits < this.config.max) return;
    const pauseMs = Math.min(this.config.pauseMaxMs, this.config.pauseMs * 2 ** Math.min(earlier, 20));
    const pause = await this.counters.hit(`sign-in-pause:${key}`, pauseMs);
    // Failures counted while the pause began (by this instance or another) do not begin another.
    if (pause.hits !== 1) return;
    const pauses = await this.counters.hit(`sign-in-pauses:${key}`, DAY_MS);
    this.paused({ email, number: pauses.hits, failures: window.hits, pauseMs, untilTs: pause.resetTs });
  }
}

/** The counters' key of an account: better-auth finds accounts by the lower-cased email. */
function accountKey(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 32);
}

/**
 * What a pause does besides refusing: a warning in the log for the operator, and, on the first pause of the
 * day only (a guesser must not be able to flood someone's mailbox), a mail to the account's owner if the
 * email has an account. In the background: the failed sign-in's answer does not wait for the mail.
 */
export function pauseNotice(options: {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  log: (fields: Record<string, unknown>, message: string) => void;
}): (pause: SignInPause) => void {
  const { db, mailer, publicUrl, log } = options;
  const notify = async (pause: SignInPause): Promise<void> => {
    const minutes = Math.max(1, Math.round(pause.pauseMs / 60_000));
    const account = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('email', '=', pause.email.toLowerCase())
      .executeTakeFirst();
    log(
      {
        user_id: account?.id ?? null,
        failures: pause.failures,
        pause_number: pause.number,
        until: new Date(pause.untilTs).toISOString(),
      },
      account === undefined
        ? 'sign-ins of an email with no account paused after repeated failures'
        : 'sign-ins of an account paused after repeated failures: someone may be guessing its password',
    );
    if (account === undefined || pause.number !== 1) return;
    await mailer.send({
      to: account.email,
      subject: 'Failed sign-ins to your Game Cloud Manager account',
      text:
        `Someone failed to sign in to ${account.email} ${pause.failures} times in a row, so sign-ins to it ` +
        `are paused for about ${minutes} minute(s); further failures pause them for longer.\n\n` +
        'If it was you, wait and try again. If not, someone may be guessing your password: choose a strong ' +
        `one at ${publicUrl}/forgot-password (or POST ${publicUrl}${AUTH_BASE_PATH}/request-password-reset).`,
    });
  };
  return (pause) => {
    notify(pause).catch((err: unknown) =>
      log({ err }, 'the notice of a paused account could not be recorded or mailed'),
    );
  };
}
