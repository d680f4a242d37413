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

export function registerTokens(program: Command): void {
  const tokens = program.command('tokens').description('the game’s cloud and reporter tokens');
  tokens
    .command('create')
    .description('mint a cloud token (or, with --reporter, a lobby reporter token); shown once')
    .option('--reporter', 'a lobby reporter token for --namespace')
    .option('--namespace <namespace>', 'the namespace (id or name_id) of a reporter token')
    .action(
      withContext(async (ctx, options: { reporter?: boolean; namespace?: string }) => {
        const gameId = await ctx.gameId();
        let minted: Schema<'TokenResponse'>;
        if (options.reporter === true) {
          if (options.namespace === undefined) throw new UsageError('--reporter needs --namespace');
          const namespaceId = await ctx.namespaceId(gameId, options.namespace);
          minted = await unwrap(
            ctx.api.POST('/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/reporter', {
              params: { path: { game_id: gameId, namespace_id: namespaceId } },
            }),
          );
        } else {
          minted = await unwrap(
            ctx.api.POST('/cloud/games/{game_id}/tokens/cloud', { params: { path: { game_id: gameId } } }),
          );
        }
        output(
          ctx.json,
          minted,
          (t) => `${t.token}\n(token ${t.token_id}, expires ${t.expire_ts}: shown once, keep it safe)`,
        );
      }),
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
