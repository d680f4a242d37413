import { type Schema, unwrap } from '@gcm/sdk';
import type { Command } from 'commander';
import open from 'open';
import { apiClient } from '../client.js';
import { Context, type GlobalOptions, HintedError, UsageError } from '../context.js';
import { configDir, normalizeUrl, readCredentials, writeCredentials } from '../credentials.js';
import { note, output, printJson, printLine } from '../output.js';

interface LoginOptions {
  open: boolean;
}

/**
 * Device-link login: prepare a link, show its URL and code, wait on the link with watch_index (the service
 * holds each request until the link changes: no polling loop), store the token 0600 per service URL.
 */
async function login(globals: GlobalOptions, options: LoginOptions): Promise<void> {
  const stored = readCredentials(configDir());
  const raw = globals.url ?? process.env.GCM_URL ?? stored.current;
  if (raw === undefined)
    throw new UsageError('which service? pass --url https://your-service (or set GCM_URL)');
  let url: string;
  try {
    url = normalizeUrl(raw);
  } catch (err) {
    throw new UsageError(`--url: ${(err as Error).message}`);
  }
  // No token: the device-link calls come before there is one.
  const anonymous = apiClient(url, undefined);
  const link = await unwrap(anonymous.POST('/cloud/devices/links'));
  if (globals.json === true) {
    printJson({
      device_link_url: link.device_link_url,
      device_link_token: link.device_link_token,
      device_link_user_code: link.device_link_user_code,
    });
  } else {
    printLine(`Open this page to log in, and check that it shows the code ${link.device_link_user_code}:`);
    printLine(`  ${link.device_link_url}`);
  }
  if (options.open) {
    try {
      const child = await open(link.device_link_url);
      // Nothing to wait for: a browser that cannot start is no reason to fail, the URL is printed.
      child.on('error', () => {});
      child.unref();
    } catch {
      note('Could not open a browser: open the URL above yourself.');
    }
  }
  if (globals.json !== true) note('Waiting for the link to be completed in the browser…');
  let watchIndex: string | undefined;
  let token: string | undefined;
  while (token === undefined) {
    const result = await unwrap(
      anonymous.GET('/cloud/devices/links', {
        params: { query: { device_link_token: link.device_link_token, watch_index: watchIndex } },
      }),
    );
    token = result.cloud_token;
    watchIndex = result.watch.index;
  }
  const inspect = await unwrap(apiClient(url, token).GET('/cloud/auth/inspect'));
  const cloud = inspect.agent.game_cloud;
  const gameId = cloud?.game_id;
  const next = readCredentials(configDir());
  next.services[url] = {
    token,
    ...(gameId === undefined ? {} : { game_id: gameId }),
    saved_at: new Date().toISOString(),
  };
  next.current = url;
  writeCredentials(next);
  output(globals.json === true, { logged_in: true, url, game_id: gameId ?? null }, () =>
    cloud === undefined ? `Logged in to ${url}.` : `Logged in to ${url}: ${describeCloudToken(cloud)}.`,
  );
}

async function logout(globals: GlobalOptions): Promise<void> {
  const ctx = new Context(globals);
  const stored = readCredentials(configDir());
  const login = stored.services[ctx.url];
  if (login === undefined) {
    output(ctx.json, { logged_out: false, url: ctx.url }, () => `Not logged in to ${ctx.url}.`);
    return;
  }
  // The token ends with the login: revoke it too, so a copy of the file is worth nothing.
  let revoked = false;
  try {
    const api = apiClient(ctx.url, login.token);
    const inspect = await unwrap(api.GET('/cloud/auth/inspect'));
    const tokenId = inspect.agent.game_cloud?.token_id;
    if (tokenId !== undefined) {
      await unwrap(api.DELETE('/cloud/tokens/{token_id}', { params: { path: { token_id: tokenId } } }));
      revoked = true;
    }
  } catch {
    // Already revoked or expired, or the service is away: forgetting it here is what matters.
  }
  delete stored.services[ctx.url];
  if (stored.current === ctx.url) delete stored.current;
  writeCredentials(stored);
  output(
    ctx.json,
    { logged_out: true, url: ctx.url, token_revoked: revoked },
    () => `Logged out of ${ctx.url}${revoked ? ' (its token is revoked)' : ''}.`,
  );
}

type CloudAgent = NonNullable<Schema<'InspectResponse'>['agent']['game_cloud']>;

/** `game "Star Raiders" (star-raiders) of team "Nebula Games", as Nina <nina@…> (admin)`: names, not ids. */
export function describeCloudToken(agent: CloudAgent): string {
  const game =
    agent.game === undefined
      ? `game ${agent.game_id}`
      : `game "${agent.game.display_name}" (${agent.game.name_id})`;
  const team = agent.team === undefined ? '' : ` of team "${agent.team.name}"`;
  const person = agent.minted_for;
  const who =
    person === undefined
      ? ''
      : `, as ${person.name === '' ? person.email : `${person.name} <${person.email}>`}${person.role === undefined ? ' (no longer in the team)' : ` (${person.role})`}`;
  return `${game}${team}${who}`;
}

async function whoami(globals: GlobalOptions): Promise<void> {
  const ctx = new Context(globals);
  ctx.requireToken();
  const inspect = await unwrap(ctx.api.GET('/cloud/auth/inspect'));
  output(ctx.json, { url: ctx.url, ...inspect }, ({ agent }) => {
    if (agent.operator !== undefined) return `${ctx.url}: the operator`;
    if (agent.game_cloud !== undefined) {
      const cloud = agent.game_cloud;
      return [
        `${ctx.url}: ${describeCloudToken(cloud)}`,
        `cloud token ${cloud.token_id} of game ${cloud.game_id}, expires ${cloud.expire_ts}`,
      ].join('\n');
    }
    if (agent.namespace_reporter !== undefined) {
      return `${ctx.url}: lobby reporter token of namespace ${agent.namespace_reporter.namespace_id}`;
    }
    if (agent.person !== undefined) return `${ctx.url}: ${agent.person.email}`;
    throw new HintedError('the service answered an agent this tool does not know', 'update gcm');
  });
}

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description('log in through a device link: opens the page, waits until a person completes it')
    .option('--url <url>', 'the service URL (default: GCM_URL, or the last login)')
    .option('--no-open', 'print the URL only; do not open a browser')
    .action(async (options: LoginOptions & { url?: string }, command: Command) => {
      await login(
        { ...command.optsWithGlobals<GlobalOptions>(), ...(options.url ? { url: options.url } : {}) },
        options,
      );
    });
  program
    .command('logout')
    .description('forget (and revoke) the stored token of the service')
    .action(async (_options: unknown, command: Command) => logout(command.optsWithGlobals<GlobalOptions>()));
  program
    .command('whoami')
    .description('who the token speaks for (GET /cloud/auth/inspect)')
    .action(async (_options: unknown, command: Command) => whoami(command.optsWithGlobals<GlobalOptions>()));
}
