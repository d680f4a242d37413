import type { ValidationErrorItem, VersionConfig } from '@gcm/contract';
import { ApiError, type Schema, unwrap } from '@gcm/sdk';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { output } from '../output.js';
import { type ConfigFile, describeProblem, loadConfigFile, type PlacedProblem } from './config-file.js';
import { fillImageIds, namesAnyImageId, PLACEHOLDER_IMAGE_ID } from './deploy-config.js';
import { withContext } from './shared.js';

export const DEFAULT_CONFIG_FILE = 'gcm.yaml';

/** What a validation found, with each problem's place in the file. */
export interface ConfigProblem extends PlacedProblem {
  /** offline: the contract's own validator; service: the service's check (builds, names, regions). */
  source: 'offline' | 'service';
}

/**
 * The validator's words for a person at a terminal: what to run, not which API to call (the contract's
 * messages are the service's and the dashboard's too, so they name the API).
 */
export function inGcmTerms(message: string): string {
  return message
    .replace(
      /upload a build first \(POST [^)]*\)(?:[^;]*?)? and use its build id/,
      'push a build first (`gcm builds push IMAGE --namespace NS`) and use its build id; or let `gcm deploy IMAGE` fill it in (`gcm config validate --for-deploy` checks the file so)',
    )
    .replace(/\(GET \/cloud\/regions\)/g, '(`gcm regions` lists them)')
    .replace(/\(PUT \/cloud\/games\/\{game_id\}\/host-networking\)/g, '(by the operator)');
}

/**
 * Validates offline with the contract's validator (the schema, then the rules), and then, when a token is
 * at hand, with the service (POST .../versions/validate), which also knows the builds, the other versions'
 * names, the offered regions and whether host networking is allowed. `standIn`: an image_id that stands for
 * a build not pushed yet (gcm deploy's), which the service is not asked to know.
 */
export async function validateConfig(
  ctx: Context | undefined,
  file: ConfigFile,
  displayName: string,
  standIn?: string,
): Promise<ConfigProblem[]> {
  const place = (problem: PlacedProblem, source: ConfigProblem['source']): ConfigProblem => {
    const at = problem.line === undefined ? file.locate(problem.path) : undefined;
    return {
      ...problem,
      message: inGcmTerms(problem.message),
      ...(at === undefined ? {} : { line: at.line, column: at.column }),
      source,
    };
  };
  if (file.syntax.length > 0) return file.syntax.map((p) => place(p, 'offline'));
  // Loaded here, not with the CLI: the contract's main entry builds every TypeBox schema as it loads, most
  // of a command's start-up, and only a config check needs the validator.
  const { configShapeErrors, regionsNamedIn, validateVersion } = await import('@gcm/contract');
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
    const answer = await unwrap(
      ctx.api.POST('/cloud/games/{game_id}/versions/validate', {
        params: { path: { game_id: gameId } },
        // The file's value, which the service checks: the contract's type of it words open objects otherwise.
        body: { display_name: displayName, config: file.value as Schema<'VersionConfig'> },
      }),
    );
    const standsIn = (p: ValidationErrorItem) =>
      standIn !== undefined && p.path.at(-1) === 'build-not-found' && p.message.includes(`"${standIn}"`);
    return answer.errors.filter((p) => !standsIn(p)).map((p) => place(p, 'service'));
  } catch (err) {
    // The service's schema check answers a bad body as an error, not a list: show it as one problem.
    if (err instanceof ApiError && err.status === 400) {
      return [place({ path: ['config'], message: `${err.message} (${err.code})` }, 'service')];
    }
    throw err;
  }
}

interface ValidateOptions {
  name: string;
  offline?: boolean;
  forDeploy?: boolean;
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
    .option(
      '--for-deploy',
      'check it as `gcm deploy IMAGE` will use it: game modes naming no image_id run the pushed build (the default when the file names no image_id)',
    )
    .action(
      withContext(async (ctx, given: string | undefined, options: ValidateOptions) => {
        const file = loadConfigFile(given ?? DEFAULT_CONFIG_FILE);
        // A file naming no build at all is kept for `gcm deploy`, which fills it in: check what deploy sends.
        const forDeploy =
          file.syntax.length === 0 && (options.forDeploy === true || !namesAnyImageId(file.value));
        const checked = forDeploy ? structuredClone(file.value) : file.value;
        const filled = forDeploy ? fillImageIds(checked, PLACEHOLDER_IMAGE_ID) : [];
        const online = options.offline !== true && ctx.token !== undefined;
        const problems = await validateConfig(
          online ? ctx : undefined,
          { ...file, value: checked },
          options.name,
          filled.length > 0 ? PLACEHOLDER_IMAGE_ID : undefined,
        );
        const checkedBy = online ? 'offline and by the service' : 'offline';
        const asDeploy =
          filled.length > 0
            ? `, as \`gcm deploy IMAGE\` will use it: game mode(s) ${filled.join(', ')} run the pushed build`
            : '';
        output(
          ctx.json,
          {
            file: file.path,
            valid: problems.length === 0,
            checked: checkedBy,
            for_deploy: filled.length > 0,
            ...(filled.length > 0 ? { deploy_fills: filled } : {}),
            errors: problems,
          },
          () =>
            problems.length === 0
              ? `${file.path}: valid (checked ${checkedBy}${asDeploy})`
              : [
                  ...problems.map((p) => describeProblem(file, p)),
                  `${problems.length} problem(s) in ${file.path}`,
                ].join('\n'),
        );
        if (problems.length > 0) process.exitCode = 1;
      }),
    );
}
