import { formatBytes } from '@gcm/contract/format';
import type { Command } from 'commander';
import { UsageError } from '../context.js';
import { listBuilds, pushBuild, SHA256_TAG } from '../operations/builds.js';
import { output, table } from '../output.js';
import { withContext } from './shared.js';

/** `k=v` into a tag (the value may hold `=`), or a usage error naming the option. */
export function parseTag(raw: string, option = '--tag'): [string, string] {
  const at = raw.indexOf('=');
  if (at <= 0) throw new UsageError(`${option} ${JSON.stringify(raw)}: expected key=value`);
  return [raw.slice(0, at), raw.slice(at + 1)];
}

export function tagsOf(list: readonly string[]): Record<string, string> {
  return Object.fromEntries(list.map((raw) => parseTag(raw)));
}

const collect = (value: string, previous: string[]) => [...previous, value];

function parseConcurrency(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64) throw new UsageError('--concurrency: 1 to 64');
  return value;
}

interface PushCommandOptions {
  namespace: string;
  name?: string;
  tag: string[];
  exclusiveTag: string[];
  concurrency: string;
}

export function registerBuilds(program: Command): void {
  const builds = program.command('builds').description('the build images of a namespace');
  builds
    .command('push <image>')
    .description(
      'upload a build image (parts in parallel, retried); an interrupted push resumes when run again',
    )
    .requiredOption('--namespace <namespace>', 'the namespace (id or name_id) the build is for')
    .option('--name <name>', 'the build’s name (default: the file’s name)')
    .option('--tag <key=value>', 'a tag of the build (repeatable)', collect, [])
    .option(
      '--exclusive-tag <key>',
      'a tag (given with --tag) to remove from every other build of the namespace (repeatable)',
      collect,
      [],
    )
    .option('--concurrency <n>', 'parts uploaded at once', '4')
    .action(
      withContext(async (ctx, image: string, options: PushCommandOptions) => {
        const concurrency = parseConcurrency(options.concurrency);
        const tags = tagsOf(options.tag);
        const gameId = await ctx.gameId();
        const environmentId = await ctx.namespaceId(gameId, options.namespace);
        const result = await pushBuild(ctx, {
          gameId,
          environmentId,
          file: image,
          name: options.name,
          tags,
          exclusiveTags: options.exclusiveTag,
          concurrency,
        });
        output(
          ctx.json,
          result,
          (r) =>
            `Pushed build ${r.name}: ${r.build_id} (${formatBytes(r.content_length)}, ${r.parts} part(s)` +
            `${r.resumed ? `, resumed: ${r.parts_uploaded} uploaded, ${r.parts_skipped} already there` : ''})`,
        );
      }),
    );
  builds
    .command('list')
    .description('completed builds of a namespace, newest first')
    .requiredOption('--namespace <namespace>', 'the namespace (id or name_id)')
    .option('--tag <key=value>', 'only builds having this tag (repeatable: every one)', collect, [])
    .action(
      withContext(async (ctx, options: { namespace: string; tag: string[] }) => {
        const tags = tagsOf(options.tag);
        const gameId = await ctx.gameId();
        const environmentId = await ctx.namespaceId(gameId, options.namespace);
        const all = await listBuilds(ctx, gameId, environmentId, tags);
        output(ctx.json, { builds: all }, ({ builds: rows }) =>
          table(
            ['ID', 'NAME', 'SIZE', 'CREATED', 'TAGS'],
            rows.map((b) => [
              b.id,
              b.name,
              formatBytes(b.content_length),
              b.created_at,
              Object.entries(b.tags)
                .filter(([key]) => key !== SHA256_TAG)
                .map(([key, value]) => `${key}=${value}`)
                .join(','),
            ]),
          ),
        );
      }),
    );
}
