import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/**
 * A real SMTP server on loopback (the smtp-server package) that keeps every message it is handed, parsed by
 * mailparser. It asks for a login: the service must use the credentials of GCM_SMTP_URL.
 */
export class Mailbox {
  readonly received: ReceivedMail[] = [];
  private waiters: Array<() => void> = [];
  private readonly server: SMTPServer;
  private port = 0;

  constructor(
    readonly user = 'gcm',
    readonly password = 'smtp-password',
  ) {
    this.server = new SMTPServer({
      // Plain SMTP on loopback: no certificate to make, and the login still has to be right.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.user && auth.password === this.password) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error('invalid login'));
        }
      },
      onData: (stream, session, callback) => {
        simpleParser(stream).then(
          (parsed) => {
            this.received.push({
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
            });
            for (const wake of this.waiters.splice(0)) wake();
            callback();
          },
          (err: Error) => callback(err),
        );
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** GCM_SMTP_URL for this server. */
  get url(): string {
    return `smtp://${this.user}:${this.password}@127.0.0.1:${this.port}`;
  }

  /** The first message to `to` whose subject matches (received already or within `timeoutMs`). */
  async mailTo(to: string, subject = /./, timeoutMs = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((mail) => mail.to.includes(to) && subject.test(mail.subject));
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
