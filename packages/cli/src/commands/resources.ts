import { PLANS } from '@gcm/contract/limits';
import { type Schema, unwrap } from '@gcm/sdk';
import { Argument, type Command } from 'commander';
import { UsageError } from '../context.js';
import { output, table } from '../output.js';
import { loadConfigFile } from './config-file.js';
import { withContext } from './shared.js';

const dash = (value: string | null | undefined) => value ?? '-';

/** Every item of a list, a page of 1000 at a time: `page` reads the page after `cursor`. */
async function listAll<T>(
  page: (query: { limit: string; cursor?: string }) => Promise<{ items: T[]; cursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page({ limit: '1000', ...(cursor === undefined ? {} : { cursor }) });
    items.push(...next.items);
    cursor = next.cursor;
  } while (cursor !== undefined);
  return items;
}

export function registerGames(program: Command): void {
  const games = program.command('games').description('games this token may see');
  games
    .command('list')
    .description('list the games')
    .action(
      withContext(async (ctx) => {
        ctx.requireToken();
        const list = await unwrap(ctx.api.GET('/cloud/games'));
        output(ctx.json, list, ({ games }) =>
          table(
            ['GAME ID', 'NAME ID', 'DISPLAY NAME', 'CREATED'],
            games.map((g) => [g.game_id, g.name_id, g.display_name, g.create_ts]),
          ),
        );
      }),
    );
  games
    .command('create <name_id>')
    .description('create a game (name_id: 1-16 of a-z, 0-9 and -)')
    .option('--display-name <name>', 'shown in lists (default: the name_id)')
    .option('--team <team_id>', 'the team that is to own it (a signed-in person must name one)')
    .action(
      withContext(async (ctx, nameId: string, options: { displayName?: string; team?: string }) => {
        ctx.requireToken();
        const made = await unwrap(
          ctx.api.POST('/cloud/games', {
            body: {
              name_id: nameId,
              display_name: options.displayName ?? nameId,
              ...(options.team === undefined ? {} : { team_id: options.team }),
            },
          }),
        );
        output(ctx.json, made, ({ game_id }) => `Created game ${nameId}: ${game_id}`);
      }),
    );
  games
    .command('show [game]')
    .description('a game with its namespaces and versions (default: the token’s game)')
    .action(
      withContext(async (ctx, given: string | undefined) => {
        const gameId = given === undefined ? await ctx.gameId() : await ctx.resolveGame(given);
        const { game } = await unwrap(
          ctx.api.GET('/cloud/games/{game_id}', { params: { path: { game_id: gameId } } }),
        );
        output(ctx.json, { game }, () =>
          [
            `${game.display_name} (${game.name_id})  ${game.game_id}`,
            `created ${game.create_ts}${game.team_id === undefined ? '' : `, team ${game.team_id}`}`,
            '',
            table(
              ['NAMESPACE', 'NAMESPACE ID', 'VERSION ID'],
              game.namespaces.map((ns) => [ns.name_id, ns.namespace_id, ns.version_id]),
            ),
            '',
            table(
              ['VERSION', 'VERSION ID', 'CREATED'],
              game.versions.map((v) => [v.display_name, v.version_id, v.create_ts]),
            ),
          ].join('\n'),
        );
      }),
    );
}

export function registerNamespaces(program: Command): void {
  const namespaces = program.command('namespaces').description('the game’s namespaces (environments)');
  namespaces
    .command('list')
    .description('list the namespaces, oldest first')
    .action(
      withContext(async (ctx) => {
        const gameId = await ctx.gameId();
        const all = await listAll(async (query) => {
          const page = await unwrap(
            ctx.api.GET('/cloud/games/{game_id}/namespaces', {
              params: { path: { game_id: gameId }, query },
            }),
          );
          return { items: page.namespaces, cursor: page.cursor };
        });
        output(ctx.json, { namespaces: all }, ({ namespaces: rows }) =>
          table(
            ['NAME ID', 'NAMESPACE ID', 'DISPLAY NAME', 'VERSION ID'],
            rows.map((ns) => [ns.name_id, ns.namespace_id, ns.display_name, ns.version_id]),
          ),
        );
      }),
    );
  namespaces
    .command('create <name_id>')
    .description('create a namespace running a version')
    .requiredOption('--version <version_id>', 'the version it runs')
    .option('--display-name <name>', 'shown in lists (default: the name_id)')
    .action(
      withContext(async (ctx, nameId: string, options: { version: string; displayName?: string }) => {
        const gameId = await ctx.gameId();
        const made = await unwrap(
          ctx.api.POST('/cloud/games/{game_id}/namespaces', {
            params: { path: { game_id: gameId } },
            body: {
              name_id: nameId,
              display_name: options.displayName ?? nameId,
              version_id: options.version,
            },
          }),
        );
        output(ctx.json, made, ({ namespace_id }) => `Created namespace ${nameId}: ${namespace_id}`);
      }),
    );
  namespaces
    .command('show <namespace>')
    .description('a namespace (id or name_id) with its configuration')
    .action(
      withContext(async (ctx, given: string) => {
        const gameId = await ctx.gameId();
        const namespaceId = await ctx.namespaceId(gameId, given);
        const answer = await unwrap(
          ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}', {
            params: { path: { game_id: gameId, namespace_id: namespaceId } },
          }),
        );
        output(ctx.json, answer, ({ namespace: ns }) =>
          [
            `${ns.display_name} (${ns.name_id})  ${ns.namespace_id}`,
            `version ${ns.version_id}, created ${ns.create_ts}`,
            `cdn auth ${ns.config.cdn.auth_type}, ${ns.config.cdn.auth_user_list.length} user(s)`,
            `matchmaker: lobby_count_max ${ns.config.matchmaker.lobby_count_max}, max_players_per_client ${ns.config.matchmaker.max_players_per_client}`,
          ].join('\n'),
        );
      }),
    );
  namespaces
    .command('set-version <namespace> <version_id>')
    .description('point a namespace at a version')
    .action(
      withContext(async (ctx, given: string, versionId: string) => {
        const gameId = await ctx.gameId();
        const namespaceId = await ctx.namespaceId(gameId, given);
        await unwrap(
          ctx.api.PUT('/cloud/games/{game_id}/namespaces/{namespace_id}/version', {
            params: { path: { game_id: gameId, namespace_id: namespaceId } },
            body: { version_id: versionId },
          }),
        );
        output(
          ctx.json,
          { namespace_id: namespaceId, version_id: versionId },
          () => `Namespace ${given} now runs version ${versionId}.`,
        );
      }),
    );
}

export function registerVersions(program: Command): void {
  const versions = program.command('versions').description('the game’s versions');
  versions
    .command('list')
    .description('list the versions, newest first')
    .action(
      withContext(async (ctx) => {
        const gameId = await ctx.gameId();
        const all = await listAll(async (query) => {
          const page = await unwrap(
            ctx.api.GET('/cloud/games/{game_id}/versions', { params: { path: { game_id: gameId }, query } }),
          );
          return { items: page.versions, cursor: page.cursor };
        });
        output(ctx.json, { versions: all }, ({ versions: rows }) =>
          table(
            ['DISPLAY NAME', 'VERSION ID', 'CREATED'],
            rows.map((v) => [v.display_name, v.version_id, v.create_ts]),
          ),
        );
      }),
    );
  versions
    .command('show <version_id>')
    .description('a version with its configuration')
    .option('--resolved', 'every game mode with its defaults applied')
    .action(
      withContext(async (ctx, versionId: string, options: { resolved?: boolean }) => {
        const gameId = await ctx.gameId();
        const answer = await unwrap(
          ctx.api.GET('/cloud/games/{game_id}/versions/{version_id}', {
            params: {
              path: { game_id: gameId, version_id: versionId },
              query: { resolved: options.resolved === true ? 'true' : undefined },
            },
          }),
        );
        output(ctx.json, answer, ({ version }) =>
          [
            `${version.display_name}  ${version.version_id}  ${version.create_ts}`,
            JSON.stringify(version.config, null, 2),
          ].join('\n'),
        );
      }),
    );
  versions
    .command('create')
    .description('create a version from a config file (YAML or JSON, snake_case keys as on the wire)')
    .requiredOption('--config <file>', 'the version config file')
    .requiredOption('--name <display_name>', 'the version’s display name, unique in the game')
    .action(
      withContext(async (ctx, options: { config: string; name: string }) => {
        const gameId = await ctx.gameId();
        const config = loadConfigFile(options.config).value;
        const made = await unwrap(
          ctx.api.POST('/cloud/games/{game_id}/versions', {
            params: { path: { game_id: gameId } },
            // The file as written: the service checks it and answers what is wrong with it.
            body: { display_name: options.name, config: config as Schema<'VersionConfig'> },
          }),
        );
        output(ctx.json, made, ({ version_id }) => `Created version ${options.name}: ${version_id}`);
      }),
    );
}

const TOKEN_KINDS = ['cloud', 'reporter', 'public', 'development'] as const;
type TokenKind = (typeof TOKEN_KINDS)[number];
const PORT_PROTOCOLS = ['http', 'https', 'tcp', 'tcp_tls', 'udp'] as const;
type DevelopmentPorts = NonNullable<Schema<'CreateDevelopmentTokenBody'>['ports']>;

/** `label=port/protocol` or `label=min-max/protocol` options as a development token's ports; the service checks the rest. */
function developmentPorts(specs: readonly string[]): DevelopmentPorts {
  const ports: DevelopmentPorts = {};
  for (const spec of specs) {
    const match = /^([^=]+)=(\d+)(?:-(\d+))?\/([a-z_]+)$/.exec(spec);
    const protocol = match?.[4] as (typeof PORT_PROTOCOLS)[number] | undefined;
    if (match === null || protocol === undefined || !PORT_PROTOCOLS.includes(protocol)) {
      throw new UsageError(
        `--port ${spec}: write label=port/protocol or label=min-max/protocol, protocol one of ${PORT_PROTOCOLS.join(', ')}`,
      );
    }
    const [, label = '', first, last] = match;
    ports[label] =
      last === undefined
        ? { port: Number(first), protocol }
        : { port_range: { min: Number(first), max: Number(last) }, protocol };
  }
  return ports;
}

export function registerTokens(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('the game’s cloud tokens and its namespaces’ reporter, public and development tokens');
  tokens
    .command('create')
    .argument('[kind]', 'cloud (the default), reporter, public or development')
    .description(
      'mint a cloud token, or a namespace’s lobby reporter, public (game clients) or development token; shown once',
    )
    .option('--reporter', 'a lobby reporter token for --namespace (as `create reporter`)')
    .option(
      '--namespace <namespace>',
      'the namespace (id or name_id) of a reporter, public or development token',
    )
    .option('--hostname <host>', 'a development token’s machine: a host name or IP address')
    .option(
      '--port <label=port/protocol>',
      'a development token’s port, e.g. game=7777/udp or web=8000-8010/http (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .action(
      withContext(
        async (
          ctx,
          kindArg: string | undefined,
          options: { reporter?: boolean; namespace?: string; hostname?: string; port: string[] },
        ) => {
          const kind = kindArg ?? (options.reporter === true ? 'reporter' : 'cloud');
          if (!TOKEN_KINDS.includes(kind as TokenKind)) {
            throw new UsageError(`a token is ${TOKEN_KINDS.join(', ')}; not "${kind}"`);
          }
          if (kind !== 'development' && (options.hostname !== undefined || options.port.length > 0)) {
            throw new UsageError('--hostname and --port are for a development token');
          }
          const gameId = await ctx.gameId();
          let minted: Schema<'TokenResponse'>;
          if (kind === 'cloud') {
            minted = await unwrap(
              ctx.api.POST('/cloud/games/{game_id}/tokens/cloud', { params: { path: { game_id: gameId } } }),
            );
          } else {
            if (options.namespace === undefined) throw new UsageError(`a ${kind} token needs --namespace`);
            const path = { game_id: gameId, namespace_id: await ctx.namespaceId(gameId, options.namespace) };
            if (kind === 'reporter') {
              minted = await unwrap(
                ctx.api.POST('/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/reporter', {
                  params: { path },
                }),
              );
            } else if (kind === 'public') {
              minted = await unwrap(
                ctx.api.POST('/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/public', {
                  params: { path },
                }),
              );
            } else {
              if (options.hostname === undefined)
                throw new UsageError('a development token needs --hostname');
              minted = await unwrap(
                ctx.api.POST('/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/development', {
                  params: { path },
                  body: { hostname: options.hostname, ports: developmentPorts(options.port) },
                }),
              );
            }
          }
          output(
            ctx.json,
            minted,
            (t) => `${t.token}\n(token ${t.token_id}, expires ${t.expire_ts}: shown once, keep it safe)`,
          );
        },
      ),
    );
  tokens
    .command('list')
    .description('the game’s tokens, newest first (ids and times, never a token)')
    .action(
      withContext(async (ctx) => {
        const gameId = await ctx.gameId();
        const all = await listAll(async (query) => {
          const page = await unwrap(
            ctx.api.GET('/cloud/games/{game_id}/tokens', { params: { path: { game_id: gameId }, query } }),
          );
          return { items: page.tokens, cursor: page.cursor };
        });
        output(ctx.json, { tokens: all }, ({ tokens: rows }) =>
          table(
            ['TOKEN ID', 'KIND', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
            rows.map((t) => [
              t.token_id,
              t.kind,
              t.create_ts,
              dash(t.expire_ts),
              dash(t.last_used_ts),
              dash(t.revoke_ts),
            ]),
          ),
        );
      }),
    );
  tokens
    .command('revoke <token_id>')
    .description('revoke a token: it stops working at once')
    .action(
      withContext(async (ctx, tokenId: string) => {
        ctx.requireToken();
        await unwrap(ctx.api.DELETE('/cloud/tokens/{token_id}', { params: { path: { token_id: tokenId } } }));
        output(ctx.json, { token_id: tokenId, revoked: true }, () => `Revoked ${tokenId}.`);
      }),
    );
}

export function registerBilling(program: Command): void {
  const billing = program.command('billing').description('the game’s plan');
  billing
    .command('show')
    .description('the plan in force, the chosen one, and the current period')
    .action(
      withContext(async (ctx) => {
        const gameId = await ctx.gameId();
        const answer = await unwrap(
          ctx.api.GET('/cloud/games/{game_id}/billing', { params: { path: { game_id: gameId } } }),
        );
        output(ctx.json, answer, (b) =>
          [
            `plan in force: ${b.active_plan}`,
            `chosen plan:   ${b.plan}${b.plan === b.active_plan ? '' : ' (from the next period)'}`,
            b.subscription === undefined
              ? 'no paid period'
              : `period:        ${b.subscription.period_start_ts} to ${b.subscription.period_end_ts}`,
          ].join('\n'),
        );
      }),
    );
  billing
    .command('set-plan')
    .description('choose the plan')
    .addArgument(new Argument('<plan>', PLANS.join(', ')).choices(PLANS))
    .action(
      withContext(async (ctx, plan: string) => {
        const gameId = await ctx.gameId();
        const path = { game_id: gameId };
        await unwrap(
          ctx.api.PUT('/cloud/games/{game_id}/billing/plan', { params: { path }, body: { plan } }),
        );
        const answer = await unwrap(ctx.api.GET('/cloud/games/{game_id}/billing', { params: { path } }));
        output(ctx.json, answer, (b) => `Plan ${b.plan} chosen; in force now: ${b.active_plan}.`);
      }),
    );
}

export function registerRegions(program: Command): void {
  program
    .command('regions')
    .description('the regions game modes may name')
    .action(
      withContext(async (ctx) => {
        ctx.requireToken();
        const answer = await unwrap(ctx.api.GET('/cloud/regions'));
        output(ctx.json, answer, ({ regions }) =>
          table(
            ['REGION ID', 'NAME ID'],
            regions.map((r) => [r.region_id, r.name_id]),
          ),
        );
      }),
    );
}
