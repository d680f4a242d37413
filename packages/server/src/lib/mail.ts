import { createTransport, type Transporter } from 'nodemailer';

/** One message to one person: plain text only (links are the point; no tracking, no HTML to escape). */
export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  /** Resolves once the message is handed over (or, with no SMTP server, written to the log). */
  send(mail: Mail): Promise<void>;
  /** Waits for messages under way, then lets go of connections. */
  close(): Promise<void>;
}

/**
 * Without an SMTP server the embedded default still works: each message goes to the log, where the operator
 * reads the invitation or reset link and passes it on.
 */
export class LogMailer implements Mailer {
  constructor(private readonly log: (fields: Record<string, unknown>, message: string) => void) {}

  async send(mail: Mail): Promise<void> {
    this.log(
      { mail_to: mail.to, mail_subject: mail.subject, mail_text: mail.text },
      'mail (no GCM_SMTP_URL set)',
    );
  }

  async close(): Promise<void> {}
}

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…` (GCM_SMTP_URL). */
  readonly url: string;
  readonly from: string;
  /** A message that could not be handed over: logged without its text (it carries a reset token). */
  readonly onError: (err: unknown, mail: Mail) => void;
}

/**
 * Mail through an SMTP server (nodemailer). `send` hands the message over in the background and resolves at
 * once: a slow or absent mail server must not hold a sign-up or an invitation up, nor tell by its timing
 * whether an email has an account. `close` waits for messages under way.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: SmtpMailerOptions) {
    this.transport = createTransport({
      url: options.url,
      // nodemailer's defaults wait minutes; a mail server that has not answered in seconds is down.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async send(mail: Mail): Promise<void> {
    const sending = this.transport
      .sendMail({ from: this.options.from, to: mail.to, subject: mail.subject, text: mail.text })
      .then(
        () => undefined,
        (err: unknown) => this.options.onError(err, mail),
      );
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  async close(): Promise<void> {
    await Promise.all(this.pending);
    this.transport.close();
  }
}

/** An SMTP failure in a few words: nodemailer's code and the server's reply code, never the message. */
export function describeSmtpError(err: unknown): string {
  if (!(err instanceof Error)) return 'unknown error';
  const { code, responseCode, command } = err as Error & {
    code?: unknown;
    responseCode?: unknown;
    command?: unknown;
  };
  return [code, command, responseCode].filter((part) => part !== undefined).join(' ') || err.name;
}
