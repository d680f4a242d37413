import {
  BuildList,
  BuildParams,
  EnvironmentParams,
  GetBuildResponse,
  ListBuildsQuery,
  NoContent,
  PartsQuery,
  PartsResponse,
  PatchTagsBody,
  PrepareBuildBody,
  PrepareBuildResponse,
  TagsQuery,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import type { StoredAnswer } from '../../http/idempotency.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import {
  completeBuild,
  getBuild,
  listBuilds,
  patchBuildTags,
  prepareBuild,
  presignBuildParts,
} from './builds.service.js';

const TAG = 'builds';
const BASE = '/games/:game_id/environments/:environment_id/builds';

/**
 * An Idempotency-Key replay of prepare: presigned URLs are capabilities, and one stored for the key's 24 h
 * would have expired, so only the build id is stored and the replay presigns the first page again, as
 * getUploadParts does.
 */
function prepareAnswer(
  deps: Deps,
): StoredAnswer<PrepareBuildResponse, { build_id: string }, EnvironmentParams> {
  return {
    keep: ({ build_id }) => ({ build_id }),
    restore: async ({ build_id }, { game_id, environment_id }) => ({
      build_id,
      ...(await presignBuildParts(deps, game_id, environment_id, build_id, 1)),
    }),
  };
}

export function buildsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    `${BASE}/prepare`,
    routeOptions(
      {
        operationId: 'builds.prepare',
        auth: 'game',
        summary: 'Prepare a build upload: one presigned PUT (up to 8 GiB) or one per part (multipart)',
        tag: TAG,
        idempotent: prepareAnswer(deps),
      },
      { params: EnvironmentParams, body: PrepareBuildBody, response: { 200: PrepareBuildResponse } },
    ),
    async (request) => {
      const { game_id, environment_id } = request.params;
      return prepareBuild(deps, game_id, environment_id, request.body);
    },
  );

  app.get(
    `${BASE}/:build_id/parts`,
    routeOptions(
      {
        operationId: 'builds.getUploadParts',
        auth: 'game',
        summary:
          'Presigned PUTs of up to 100 parts of an unfinished build upload from from_part on (fresh URLs each time)',
        tag: TAG,
      },
      { params: BuildParams, querystring: PartsQuery, response: { 200: PartsResponse } },
    ),
    async (request) => {
      const { game_id, environment_id, build_id } = request.params;
      const fromPart = Number(request.query.from_part ?? '1');
      return presignBuildParts(deps, game_id, environment_id, build_id, fromPart);
    },
  );

  app.post(
    `${BASE}/:build_id/complete`,
    routeOptions(
      {
        operationId: 'builds.complete',
        auth: 'game',
        summary: 'Check that every part arrived with its length; the build is listed from then on',
        tag: TAG,
      },
      { params: BuildParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, environment_id, build_id } = request.params;
      await completeBuild(deps, game_id, environment_id, build_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${BASE}/:build_id`,
    routeOptions(
      {
        operationId: 'builds.get',
        auth: 'game',
        summary: 'A completed build (404 when tags_json is given and the build lacks one of its pairs)',
        tag: TAG,
      },
      { params: BuildParams, querystring: TagsQuery, response: { 200: GetBuildResponse } },
    ),
    async (request) => {
      const { game_id, environment_id, build_id } = request.params;
      return { build: await getBuild(deps, game_id, environment_id, build_id, request.query.tags_json) };
    },
  );

  app.get(
    BASE,
    routeOptions(
      {
        operationId: 'builds.list',
        auth: 'game',
        summary:
          'Completed builds of the environment, newest first, filtered by tags_json; paged (limit, default 1000; cursor)',
        tag: TAG,
      },
      { params: EnvironmentParams, querystring: ListBuildsQuery, response: { 200: BuildList } },
    ),
    async (request) => {
      const { game_id, environment_id } = request.params;
      return listBuilds(deps, game_id, environment_id, request.query);
    },
  );

  app.patch(
    `${BASE}/:build_id/tags`,
    routeOptions(
      {
        operationId: 'builds.patchTags',
        auth: 'game',
        summary: 'Merge tags; each exclusive key is removed from every other build of the environment',
        tag: TAG,
      },
      { params: BuildParams, body: PatchTagsBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, environment_id, build_id } = request.params;
      await patchBuildTags(deps, game_id, environment_id, build_id, request.body);
      return reply.code(204).send(null);
    },
  );
}
