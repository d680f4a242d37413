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

