import {
  configShapeErrors,
  regionsNamedIn,
  type ValidationErrorItem,
  type VersionConfig,
  validateVersion,
} from '@gcm/contract';
import type { Command } from 'commander';
import { ApiError } from '../client.js';
import type { Context } from '../context.js';
import { output } from '../output.js';
import { type ConfigFile, describeProblem, loadConfigFile } from './config-file.js';
import { withContext } from './shared.js';

export const DEFAULT_CONFIG_FILE = 'gcm.yaml';

/** What a validation found, with each problem's place in the file. */
export interface ConfigProblem extends ValidationErrorItem {
  line?: number;
  column?: number;
  /** offline: the contract's own validator; service: the service's check (builds, names, regions). */
  source: 'offline' | 'service';
}

/**
 * Validates offline with the contract's validator (the schema, then the rules), and then, when a token is
 * at hand, with the service (POST .../versions/validate), which also knows the builds, the other versions'
 * names, the offered regions and whether host networking is allowed.
 */
export async function validateConfig(
  ctx: Context | undefined,
  file: ConfigFile,
  displayName: string,
): Promise<ConfigProblem[]> {
  const place = (problem: ValidationErrorItem, source: ConfigProblem['source']): ConfigProblem => {
    const at = file.locate(problem.path);
    return { ...problem, ...(at === undefined ? {} : { line: at.line, column: at.column }), source };
  };
  const shape = configShapeErrors(file.value);
  if (shape.length > 0) return shape.map((p) => place(p, 'offline'));
  const config = file.value as VersionConfig;
  const offline = validateVersion(
    { display_name: displayName, config },
    {
      regions: regionsNamedIn(config),
      existingDisplayNames: [],
      hostNetworkingEnabled: true,
      buildIds: undefined,
    },
  );
  if (offline.length > 0 || ctx === undefined || ctx.token === undefined) {
    return offline.map((p) => place(p, 'offline'));
  }
  const gameId = await ctx.gameId();
  try {
    const answer = await ctx.client.post<{ errors: ValidationErrorItem[] }>(
      `/cloud/games/${gameId}/versions/validate`,
      { display_name: displayName, config },
    );
    return answer.errors.map((p) => place(p, 'service'));
  } catch (err) {
    // The service's schema check answers a bad body as an error, not a list: show it as one problem.
    if (err instanceof ApiError && err.status === 400) {
      return [place({ path: ['config'], message: `${err.message} (${err.code})` }, 'service')];
    }
    throw err;
  }
}

export function registerConfig(program: Command): void {
  const config = program.command('config').description('version config files');
  config
    .command('validate [file]')
    .description(
      `check a version config file (default ${DEFAULT_CONFIG_FILE}; YAML or JSON) offline, then with the service when logged in`,
    )
    .option(
      '--name <display_name>',
      'the version name it would be created with (checked for uniqueness)',
      'gcm-validate',
    )
    .option('--offline', 'do not ask the service even when logged in')
    .action(
      withContext(async (ctx, given: string | undefined, options: { name: string; offline?: boolean }) => {
        const file = loadConfigFile(given ?? DEFAULT_CONFIG_FILE);
        const problems = await validateConfig(options.offline === true ? undefined : ctx, file, options.name);
        const checkedBy =
          options.offline === true || ctx.token === undefined ? 'offline' : 'offline and by the service';
        output(
          ctx.json,
          { file: file.path, valid: problems.length === 0, checked: checkedBy, errors: problems },
          () =>
            problems.length === 0
              ? `${file.path}: valid (checked ${checkedBy})`
              : [
                  ...problems.map((p) => describeProblem(file, p)),
                  `${problems.length} problem(s) in ${file.path}`,
                ].join('\n'),
        );
        if (problems.length > 0) process.exitCode = 1;
      }),
    );
}
