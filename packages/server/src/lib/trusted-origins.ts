/** Loopback host names a browser may show for a service on this machine. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** Refused origins remembered so each is logged once: beyond this many, the rest are logged no more. */
export const REFUSED_ORIGINS_LOGGED_MAX = 100;

export interface TrustedOriginsSettings {
  readonly publicUrl: string;
  /** GCM_PUBLIC_URL was not set: publicUrl is only the default, `http://localhost:$PORT`. */
  readonly publicUrlDefaulted: boolean;
  /** GCM_TRUSTED_ORIGINS. */
  readonly trustedOrigins: readonly string[];
  /** The configured PORT; 0 until the server listens (listeningOn) when it picks one. */
  readonly port: number;
}

/**
 * The origins whose pages may use a session (sign in, write with its cookie): GCM_PUBLIC_URL's and
 * GCM_TRUSTED_ORIGINS. With GCM_PUBLIC_URL unset, the default names `localhost`, yet a person opening the
 * dashboard on this machine may as well type 127.0.0.1 or [::1]: the loopback forms of the listening port
 * are trusted too. Nothing else is, so a deployment behind a real host name still names it.
 */
export class TrustedOrigins {
  private readonly fixed: readonly string[];
  private loopback: readonly string[] = [];
  private readonly logged = new Set<string>();

  constructor(private readonly settings: TrustedOriginsSettings) {
    this.fixed = [...new Set([new URL(settings.publicUrl).origin, ...settings.trustedOrigins])];
    if (settings.port !== 0) this.listeningOn(settings.port);
  }

  /** The port the service listens on, once known (PORT=0 picks one at listen). */
  listeningOn(port: number): void {
    if (!this.settings.publicUrlDefaulted) return;
    this.loopback = LOOPBACK_HOSTS.map((host) => new URL(`http://${host}:${port}`).origin);
  }

  has(origin: string): boolean {
    return this.fixed.includes(origin) || this.loopback.includes(origin);
  }

  /** Every trusted origin, for better-auth's own check (asked per request, so the listening port counts). */
  list(): string[] {
    return [...this.fixed, ...this.loopback];
  }

  /** Why a page of `origin` may not use a session, and what decides it: the message of the refusal. */
  refusal(origin: string, what: string): string {
    const shown = origin.slice(0, 200);
    const decided = this.settings.publicUrlDefaulted
      ? `GCM_PUBLIC_URL (unset: ${this.fixed[0]} and the loopback addresses of the listening port) and ` +
        'GCM_TRUSTED_ORIGINS decide which origins are trusted'
      : `GCM_PUBLIC_URL (${this.fixed[0]}) and GCM_TRUSTED_ORIGINS decide which origins are trusted`;
    return `${what} from the page at ${shown} is refused: that origin is not trusted; ${decided}`;
  }

  /**
   * True the first time `origin` is refused, so the operator's log says it once per origin rather than per
   * request; after REFUSED_ORIGINS_LOGGED_MAX origins, never again (whoever sends made-up origins cannot
   * grow this set or flood the log).
   */
  firstRefusal(origin: string): boolean {
    if (this.logged.has(origin) || this.logged.size >= REFUSED_ORIGINS_LOGGED_MAX) return false;
    this.logged.add(origin);
    return true;
  }
}
