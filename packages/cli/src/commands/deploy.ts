import { createHash } from 'node:crypto';
import type { VersionConfig } from '@gcm/contract';
import { formatBytes } from '@gcm/contract/format';
import { ApiError, type Schema, unwrap, withRetries } from '@gcm/sdk';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../context.js';
import {
  listBuilds,
  type PushResult,
  pushBuild,
  SHA256_TAG,
  sha256File,
  statImage,
} from '../operations/builds.js';
import { note, output, printJson } from '../output.js';
import { type ConfigProblem, DEFAULT_CONFIG_FILE, validateConfig } from './config.js';
import { type ConfigFile, describeProblem, loadConfigFile } from './config-file.js';
import { fillImageIds, isObject, PLACEHOLDER_IMAGE_ID } from './deploy-config.js';
import { waitForRollout } from './deploy-wait.js';
import { withContext } from './shared.js';

/** The tag on the build a namespace's deployed version runs; on one build of the namespace at a time. */
export const CURRENT_TAG = 'current';

/** JSON with every object's keys sorted: the same config always hashes alike, whatever its key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The version's display name: a hash of the image's bytes and of the config as it will be created (build
 * id included), so that a re-run with the same inputs finds its version instead of making another.
 */
export function deployVersionName(imageSha256: string, config: unknown): string {
  const digest = createHash('sha256')
    .update(`${imageSha256}\n${canonicalJson(config)}`)
    .digest('hex');
  return `deploy-${digest.slice(0, 12)}`;
}

async function findVersion(ctx: Context, gameId: string, displayName: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      ctx.api.GET('/cloud/games/{game_id}/versions', {
        params: { path: { game_id: gameId }, query: { limit: '1000', cursor } },
      }),
    );
    const found = page.versions.find((v) => v.display_name === displayName);
    if (found !== undefined) return found.version_id;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return undefined;
}

/** The config's problems, each with its place in the file, and exit code 1. */
function reportProblems(ctx: Context, file: ConfigFile, problems: ConfigProblem[]): void {
  if (ctx.json) {
    printJson({
      error: `${file.path} has ${problems.length} problem(s)`,
      code: 'CONFIG_INVALID',
      file: file.path,
      errors: problems,
    });
  } else {
    for (const problem of problems) note(describeProblem(file, problem));
    note(`error: ${problems.length} problem(s) in ${file.path}; nothing was deployed`);
  }
  process.exitCode = 1;
}

interface DeployOptions {
  namespace: string;
  config: string;
  concurrency: string;
  wait?: boolean;
  waitTimeout: string;
  waitIntervalMs: string;
}

export interface DeployResult {
  build_id: string | null;
  build_reused: boolean;
  version_id: string;
  version_name: string;
  version_created: boolean;
  namespace_id: string;
  namespace_changed: boolean;
  /** Whether the build was tagged current now (false: it already was the namespace's one current build). */
  tag_changed: boolean;
}

export function registerDeploy(program: Command): void {
  program
    .command('deploy [image]')
    .description(
      'push IMAGE (unless already pushed), create a version from the config running it (unless it exists), ' +
        'point the namespace at it and tag the build current; safe to run again',
    )
    .requiredOption('--namespace <namespace>', 'the namespace (id or name_id) to deploy to')
    .option('--config <file>', 'the version config (YAML or JSON, snake_case keys)', DEFAULT_CONFIG_FILE)
    .option('--concurrency <n>', 'parts uploaded at once', '4')
    .option('--wait', "then wait until the version's idle lobbies are ready (exit 1 if they cannot be)")
    .option('--wait-timeout <seconds>', 'with --wait: how long to wait at most', '600')
    .option('--wait-interval-ms <ms>', 'with --wait: how often to look', '1000')
    .action(
      withContext(async (ctx, image: string | undefined, options: DeployOptions) => {
        // The contract's main entry builds every TypeBox schema as it loads: only deploy and config pay that.
        const { imageIdsOf } = await import('@gcm/contract');
        const concurrency = Number(options.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
          throw new UsageError('--concurrency: 1 to 64');
        }
        const waitTimeout = Number(options.waitTimeout);
        const waitInterval = Number(options.waitIntervalMs);
        if (!Number.isInteger(waitTimeout) || waitTimeout < 1 || waitTimeout > 86_400) {
          throw new UsageError('--wait-timeout: 1 to 86400 seconds');
        }
        if (!Number.isInteger(waitInterval) || waitInterval < 100 || waitInterval > 60_000) {
          throw new UsageError('--wait-interval-ms: 100 to 60000');
        }
        // A missing or unreadable image is said at once, before any other check or request.
        if (image !== undefined) statImage(image);
        const file = loadConfigFile(options.config);
        if (file.syntax.length > 0) {
          reportProblems(ctx, file, await validateConfig(undefined, file, 'gcm-deploy'));
          return;
        }
        const probe = structuredClone(file.value);
        const needing = fillImageIds(probe, PLACEHOLDER_IMAGE_ID);
        if (image === undefined) {
          if (needing.length > 0) {
            throw new UsageError(
              `give the image to deploy: game mode(s) ${needing.join(', ')} of ${file.path} name no image_id`,
            );
          }
          if (!isObject(file.value) || imageIdsOf(file.value as VersionConfig).length === 0) {
            throw new UsageError(`give the image to deploy: ${file.path} names no image_id`);
          }
        }
        // Offline first: a config that cannot work fails in a second, not after uploading gigabytes.
        const offline = await validateConfig(
          undefined,
          { ...file, value: probe },
          'gcm-deploy',
          PLACEHOLDER_IMAGE_ID,
        );
        if (offline.length > 0) {
          reportProblems(ctx, file, offline);
          return;
        }

        const gameId = await ctx.gameId();
        const namespaceId = await ctx.namespaceId(gameId, options.namespace);
        let buildId: string | null = null;
        let buildReused = true;
        let imageSha256 = '';
        let pushed: PushResult | undefined;
        const config = structuredClone(file.value);
        if (image !== undefined) {
          imageSha256 = await sha256File(image);
          const [existing] = await listBuilds(ctx, gameId, namespaceId, { [SHA256_TAG]: imageSha256 }, 1);
          if (existing !== undefined) {
            buildId = existing.id;
          } else {
            pushed = await pushBuild(ctx, {
              gameId,
              environmentId: namespaceId,
              file: image,
              tags: {},
              exclusiveTags: [],
              concurrency,
              sha256: imageSha256,
            });
            buildId = pushed.build_id;
            buildReused = false;
          }
          if (fillImageIds(config, buildId).length === 0) {
            note(`warning: every game mode of ${file.path} names its own image_id; ${image} runs in none`);
          }
        } else {
          // The config names its builds: the one it names, if only one, is the namespace's current build.
          const named = imageIdsOf(file.value as VersionConfig);
          buildId = named.length === 1 ? (named[0] ?? null) : null;
        }

        const versionName = deployVersionName(imageSha256, config);
        let versionId = await findVersion(ctx, gameId, versionName);
        let versionCreated = false;
        if (versionId === undefined) {
          const problems = await validateConfig(ctx, { ...file, value: config }, versionName);
          if (problems.length > 0) {
            reportProblems(ctx, file, problems);
            return;
          }
          // Checked above, offline and by the service: the config is one now.
          const body: Schema<'VersionBody'> = {
            display_name: versionName,
            config: config as Schema<'VersionConfig'>,
          };
          try {
            versionId = (
              await unwrap(
                ctx.api.POST('/cloud/games/{game_id}/versions', {
                  params: { path: { game_id: gameId } },
                  body,
                }),
              )
            ).version_id;
            versionCreated = true;
          } catch (err) {
            // Another run of the same deploy may have made it since we looked: its version is ours too.
            const raced =
              err instanceof ApiError && err.status === 400
                ? await findVersion(ctx, gameId, versionName)
                : undefined;
            if (raced === undefined) throw err;
            versionId = raced;
          }
        }

        const nsPath = { game_id: gameId, namespace_id: namespaceId };
        const { namespace } = await unwrap(
          ctx.api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}', { params: { path: nsPath } }),
        );
        const namespaceChanged = namespace.version_id !== versionId;
        if (namespaceChanged) {
          const body = { version_id: versionId };
          await withRetries(() =>
            unwrap(
              ctx.api.PUT('/cloud/games/{game_id}/namespaces/{namespace_id}/version', {
                params: { path: nsPath },
                body,
              }),
            ),
          );
        }
        // A re-run writes nothing: the tag is set only when this build is not already the one current build.
        let tagChanged = false;
        if (buildId !== null) {
          const current = await listBuilds(ctx, gameId, namespaceId, { [CURRENT_TAG]: 'true' }, 2);
          if (current.length !== 1 || current[0]?.id !== buildId) {
            const patch = { tags: { [CURRENT_TAG]: 'true' }, exclusive_tags: [CURRENT_TAG] };
            const build = { game_id: gameId, environment_id: namespaceId, build_id: buildId };
            await withRetries(() =>
              unwrap(
                ctx.api.PATCH('/games/{game_id}/environments/{environment_id}/builds/{build_id}/tags', {
                  params: { path: build },
                  body: patch,
                }),
              ),
            );
            tagChanged = true;
          }
        }

        const result: DeployResult = {
          build_id: buildId,
          build_reused: buildReused,
          version_id: versionId,
          version_name: versionName,
          version_created: versionCreated,
          namespace_id: namespaceId,
          namespace_changed: namespaceChanged,
          tag_changed: tagChanged,
        };
        output(ctx.json, result, (r) =>
          [
            r.build_id === null
              ? 'Build: none pushed (the config names its builds)'
              : pushed !== undefined
                ? `Build ${r.build_id}: pushed (${formatBytes(pushed.content_length)}, ${pushed.parts} part(s))`
                : `Build ${r.build_id}: ${image === undefined ? 'named by the config' : 'already pushed'}`,
            `Version ${r.version_name} (${r.version_id}): ${r.version_created ? 'created' : 'already exists'}`,
            `Namespace ${options.namespace}: ${r.namespace_changed ? 'now runs' : 'already runs'} ${r.version_name}`,
            ...(r.build_id === null
              ? []
              : [`Build ${r.build_id}: ${r.tag_changed ? 'now tagged' : 'already tagged'} ${CURRENT_TAG}`]),
          ].join('\n'),
        );
        if (options.wait === true) {
          const ready = await waitForRollout(ctx, nsPath, versionId, {
            timeoutMs: waitTimeout * 1000,
            intervalMs: waitInterval,
          });
          if (!ready) process.exitCode = 1;
        }
      }),
    );
}
