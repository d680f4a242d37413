import { type GcmClient, unwrap } from '@gcm/sdk';
import { apiClient } from './client.js';
import { configDir, normalizeUrl, readCredentials } from './credentials.js';

/** Wrong use of the command (exit code 2), as opposed to a failure of what it asked (exit code 1). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A failure with a hint: what to run or check next. */
export class HintedError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export interface GlobalOptions {
  json?: boolean;
  url?: string;
  game?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What a command runs with: the service URL (--url, else GCM_URL, else the last login's), the token (GCM_TOKEN,
 * else the stored login for that URL), and how to print.
 */
export class Context {
  readonly json: boolean;
  readonly url: string;
  readonly token: string | undefined;
  readonly tokenSource: 'env' | 'login' | 'none';
  readonly api: GcmClient;
  private storedGame: string | undefined;
  private readonly gameOption: string | undefined;

  constructor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env) {
    this.json = options.json === true;
    const stored = readCredentials(configDir(env));
    const raw = options.url ?? env.GCM_URL ?? stored.current;
    // No URL at all is fine for what works offline (config validate); anything else asks requireToken.
    try {
      this.url = raw === undefined ? '' : normalizeUrl(raw);
    } catch (err) {
      throw new UsageError(`--url: ${(err as Error).message}`);
    }
    const login = stored.services[this.url];
    if (env.GCM_TOKEN && this.url !== '') {
      this.token = env.GCM_TOKEN;
      this.tokenSource = 'env';
    } else if (login !== undefined) {
      this.token = login.token;
      this.tokenSource = 'login';
      this.storedGame = login.game_id;
    } else {
      this.token = undefined;
      this.tokenSource = 'none';
    }
    this.gameOption = options.game ?? env.GCM_GAME;
    this.api = apiClient(this.url, this.token);
  }

  requireToken(): void {
    if (this.url === '') {
      throw new HintedError('no service URL', 'run `gcm login --url https://your-service` or set GCM_URL');
    }
    if (this.token === undefined) {
      throw new HintedError(`not logged in to ${this.url}`, 'run `gcm login` (or set GCM_TOKEN in CI)');
    }
  }

  /**
   * The game a command is about: --game (an id or a name_id), else GCM_GAME, else the game of the token (a
   * cloud token sees exactly one).
   */
  async gameId(): Promise<string> {
    this.requireToken();
    if (this.gameOption !== undefined) return this.resolveGame(this.gameOption);
    if (this.storedGame !== undefined) return this.storedGame;
    const inspect = await unwrap(this.api.GET('/cloud/auth/inspect'));
    const own = inspect.agent.game_cloud?.game_id ?? inspect.agent.namespace_reporter?.game_id;
    if (own === undefined) {
      throw new UsageError(
        'this token is not scoped to one game: say which with --game (an id or a name_id)',
      );
    }
    this.storedGame = own;
    return own;
  }

  /** A game given by id or name_id. */
  async resolveGame(given: string): Promise<string> {
    this.requireToken();
    if (UUID.test(given)) return given;
    const { games } = await unwrap(this.api.GET('/cloud/games'));
    const found = games.find((game) => game.name_id === given);
    if (found === undefined) {
      throw new HintedError(`no game named ${given}`, '`gcm games list` shows the games this token may see');
    }
    return found.game_id;
  }

  /** A namespace by id or name_id, in the command's game. */
  async namespaceId(gameId: string, given: string): Promise<string> {
    if (UUID.test(given)) return given;
    let cursor: string | undefined;
    do {
      const page = await unwrap(
        this.api.GET('/cloud/games/{game_id}/namespaces', {
          params: { path: { game_id: gameId }, query: { limit: '1000', cursor } },
        }),
      );
      const found = page.namespaces.find((ns) => ns.name_id === given);
      if (found !== undefined) return found.namespace_id;
      cursor = page.cursor;
    } while (cursor !== undefined);
    throw new HintedError(`no namespace named ${given}`, '`gcm namespaces list` shows the game’s namespaces');
  }
}

export { UUID };
