#!/usr/bin/env node
import { ApiError, NetworkError } from '@gcm/sdk';
import { Command, CommanderError } from 'commander';
import { VERSION } from './client.js';
import { registerAuth } from './commands/auth.js';
import { registerBuilds } from './commands/builds.js';
import { registerConfig } from './commands/config.js';
import { registerDeploy } from './commands/deploy.js';
import { registerInit } from './commands/init.js';
import { registerLobbies } from './commands/lobbies.js';
import {
  registerBilling,
  registerGames,
  registerNamespaces,
  registerRegions,
  registerTokens,
  registerVersions,
} from './commands/resources.js';
import { HintedError, UsageError } from './context.js';
import { printJson, printLine } from './output.js';
import { setRawOutput, terminalSafe } from './terminal-text.js';

/** Exit codes: 0 done, 1 the command failed, 2 it was used wrongly. */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** Hints for the refusals a person can act on. */
function hintFor(err: ApiError): string | undefined {
  if (err.status === 401) return 'log in again: `gcm login` (or check GCM_TOKEN)';
  if (err.status === 403) return 'this token may not do that; `gcm whoami` says what it is';
  if (err.status === 429) return 'too many requests; wait and try again';
  if (err.code === 'STORE_UNAVAILABLE') return 'the service’s database is away; try again shortly';
  return undefined;
}

function report(json: boolean, err: unknown): number {
  let code = EXIT_FAILED;
  let body: Record<string, unknown>;
  if (err instanceof ApiError) {
    body = {
      error: err.message,
      code: err.code,
      status: err.status,
      ...(err.rayId === undefined ? {} : { ray_id: err.rayId }),
      // The SDK's metadata is {} when the body had none; gcm prints the key only when there was some.
      ...(Object.keys(err.metadata).length === 0 ? {} : { metadata: err.metadata }),
      ...(hintFor(err) === undefined ? {} : { hint: hintFor(err) }),
    };
  } else if (err instanceof UsageError) {
    code = EXIT_USAGE;
    body = { error: err.message, code: 'USAGE', ...(err.hint === undefined ? {} : { hint: err.hint }) };
  } else if (err instanceof HintedError) {
    body = { error: err.message, hint: err.hint };
  } else if (err instanceof NetworkError) {
    body = { error: err.message, hint: 'check the URL (--url, GCM_URL) and that the service is up' };
  } else {
    body = { error: err instanceof Error ? err.message : String(err) };
  }
  if (json) {
    printJson(body);
  } else {
    const lines = [`error: ${body.error}`];
    if (body.code !== undefined && body.code !== 'USAGE') lines[0] += ` (${body.code})`;
    if (body.ray_id !== undefined) lines.push(`ray id: ${body.ray_id}`);
    const errors = (body.metadata as { errors?: { path: string[]; message: string }[] } | undefined)?.errors;
    for (const item of errors?.slice(0, 20) ?? []) lines.push(`  ${item.path.join('.')}: ${item.message}`);
    if (body.hint !== undefined) lines.push(`hint: ${body.hint}`);
    process.stderr.write(`${terminalSafe(lines.join('\n'))}\n`);
  }
  return code;
}

export function buildProgram(): Command {
  const program = new Command('gcm')
    .description('The game cloud management service from a terminal and from CI.')
    .option('--json', 'machine output: JSON on stdout, one document per line')
    .option('--url <url>', 'the service URL (default: GCM_URL, or the last `gcm login`)')
    .option('--game <game>', 'the game (id or name_id); default: GCM_GAME, or the token’s own game')
    .option(
      '--raw',
      'print lobby output, stop reasons and messages as sent: terminal control characters are shown escaped (\\x1b) otherwise',
    )
    .addHelpText('after', '\n`gcm --version` prints the version.')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', () => setRawOutput(program.opts<{ raw?: boolean }>().raw === true));
  registerAuth(program);
  registerGames(program);
  registerNamespaces(program);
  registerVersions(program);
  registerTokens(program);
  registerBilling(program);
  registerRegions(program);
  registerInit(program);
  registerConfig(program);
  registerLobbies(program);
  registerBuilds(program);
  registerDeploy(program);
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

async function main(argv: string[]): Promise<void> {
  // Not commander's .version(): a program-wide --version would swallow `namespaces create --version V`.
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    printLine(VERSION);
    return;
  }
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; everything else commander refuses is a usage error.
      process.exitCode =
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
          ? 0
          : EXIT_USAGE;
      return;
    }
    process.exitCode = report(json, err);
  }
}

await main(process.argv);
