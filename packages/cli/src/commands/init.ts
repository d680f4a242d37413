import { existsSync, writeFileSync } from 'node:fs';
import { unwrap } from '@gcm/sdk';
import type { Command } from 'commander';
import { type Context, UsageError } from '../context.js';
import { note, output } from '../output.js';
import { DEFAULT_CONFIG_FILE } from './config.js';
import { withContext } from './shared.js';

interface InitOptions {
  gameMode: string;
  port: string;
  protocol: string;
  maxPlayers: string;
  force?: boolean;
}

const GAME_MODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PROTOCOLS = ['udp', 'tcp', 'tcp_tls', 'http', 'https'];

/** A whole number in [min, max] from an option, or the usage error that says which. */
function intOption(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name}: a whole number from ${min} to ${max}`);
  }
  return value;
}

/** The regions the service offers, when logged in; undefined offline (the file then names none). */
async function offeredRegions(ctx: Context): Promise<string[] | undefined> {
  if (ctx.url === '' || ctx.token === undefined) return undefined;
  const { regions } = await unwrap(ctx.api.GET('/cloud/regions'));
  return regions.map((r) => r.name_id);
}

/** The YAML text: every setting a first deploy needs, each with a comment saying what it does. */
export function initialConfig(settings: {
  gameMode: string;
  port: number;
  protocol: string;
  maxPlayers: number;
  regions: string[] | undefined;
}): string {
  const { gameMode, port, protocol, maxPlayers, regions } = settings;
  const regionLines =
    regions === undefined
      ? [
          '      # Where lobbies run. Left out, as here: every region the service offers (`gcm regions` lists',
          '      # them once logged in). To run in some only, name them:',
          '      # regions:',
          '      #   lnd-atl: {}',
        ]
      : regions.length === 0
        ? [
            '      # Where lobbies run: the service offers no region yet; `gcm regions` lists them when it does.',
          ]
        : [
            '      # Where lobbies run: the regions this service offers (`gcm regions`). Delete the ones you do',
            '      # not want; a region may set its own idle_lobbies.',
            '      regions:',
            ...regions.map((r) => `        ${r}: {}`),
          ];
  return [
    `# ${DEFAULT_CONFIG_FILE}: the version config of this game, written by \`gcm init\`.`,
    '#   gcm config validate                           check it (offline, then with the service)',
    '#   gcm deploy server.tar --namespace NAMESPACE   push the build, make a version of this file, run it',
    "# Keys are the service's own (snake_case); YAML or JSON.",
    'matchmaker:',
    '  game_modes:',
    `    # One game mode. Players ask for it by name ("${gameMode}"); add others beside it.`,
    `    ${gameMode}:`,
    '      # The most players in one lobby.',
    `      max_players: ${maxPlayers}`,
    '      # Lobbies kept started and empty in each region, so that players never wait for one to start:',
    '      # at least min, and no more than max while nobody plays.',
    '      idle_lobbies:',
    '        min: 1',
    '        max: 2',
    ...regionLines,
    '      # The game server: one container a lobby.',
    '      container:',
    '        # No image_id here: `gcm deploy IMAGE` pushes IMAGE and runs it. (To run a build already',
    '        # pushed, set `image_id:` to its id from `gcm builds list --namespace NAMESPACE`.)',
    "        # The server's command-line arguments, and environment variables besides those the service sets:",
    `        # args: ["--mode", "${gameMode}"]`,
    '        # env:',
    '        #   LOG_LEVEL: info',
    '        # bridge: the lobby gets a network of its own, with its ports published on the host. (`host`,',
    "        # which the operator must enable for the game, puts it in the host's own network: it then reaches",
    "        # the host's loopback, every other lobby's ports and the service's listeners there, and they it.)",
    '        network_mode: bridge',
    '        ports:',
    '          # A port the server listens on: its number in the container and its protocol. The server',
    '          # reads the number from PORT_GAME too.',
    '          game:',
    `            port: ${port}`,
    `            protocol: ${protocol}`,
    '',
  ].join('\n');
}

export function registerInit(program: Command): void {
  program
    .command('init [file]')
    .description(
      `write a commented version config for one game mode (default ${DEFAULT_CONFIG_FILE}), ready for \`gcm deploy\`; with the service's regions when logged in`,
    )
    .option('--game-mode <name>', 'the game mode’s name', 'default')
    .option('--port <port>', 'the port the game server listens on', '7777')
    .option('--protocol <protocol>', `the port’s protocol: ${PROTOCOLS.join(', ')}`, 'udp')
    .option('--max-players <n>', 'the most players in one lobby', '16')
    .option('--force', 'overwrite the file if it exists')
    .action(
      withContext(async (ctx, given: string | undefined, options: InitOptions) => {
        const file = given ?? DEFAULT_CONFIG_FILE;
        if (!GAME_MODE.test(options.gameMode)) {
          throw new UsageError('--game-mode: 1-64 of a-z, 0-9, _ and -, starting with a letter or digit');
        }
        if (!PROTOCOLS.includes(options.protocol)) {
          throw new UsageError(`--protocol: one of ${PROTOCOLS.join(', ')}; got ${options.protocol}`);
        }
        const port = intOption('--port', options.port, 1, 65535);
        const maxPlayers = intOption('--max-players', options.maxPlayers, 1, 256);
        if (options.force !== true && existsSync(file)) {
          throw new UsageError(
            `${file} exists already`,
            'pass --force to overwrite it, or name another file',
          );
        }
        const regions = await offeredRegions(ctx);
        const text = initialConfig({
          gameMode: options.gameMode,
          port,
          protocol: options.protocol,
          maxPlayers,
          regions,
        });
        writeFileSync(file, text, { flag: options.force === true ? 'w' : 'wx' });
        output(
          ctx.json,
          { file, game_mode: options.gameMode, regions: regions ?? null },
          () =>
            `Wrote ${file} (game mode ${options.gameMode}, ${
              regions === undefined
                ? 'every region the service offers'
                : `regions ${regions.join(', ') || 'none'}`
            }).`,
        );
        if (!ctx.json) note(`Next: gcm config validate ${file}; then gcm deploy IMAGE --namespace NAMESPACE`);
      }),
    );
}
