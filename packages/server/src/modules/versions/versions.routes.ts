import {
  CreateVersionResponse,
  GameIdParams,
  GetVersionQuery,
  GetVersionResponse,
  PageQuery,
  RegionsResponse,
  VersionBody,
  VersionList,
  VersionParams,
  VersionValidationResult,
} from '@gcm/contract';
import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { callerKey, VersionValidator } from './version-validator.js';
import {
  createVersion,
  getVersion,
  listRegions,
  listVersions,
  type ValidationRun,
  validateGameVersion,
} from './versions.service.js';

export function versionsRoutes(app: TypedApp, deps: Deps): void {
  const validator = new VersionValidator(deps.config.versionValidation, app.log);
  app.addHook('onClose', () => validator.close());
  const bodyBytesOf = (request: FastifyRequest): number | undefined => {
    const length = Number(request.headers['content-length']);
    return Number.isSafeInteger(length) ? length : undefined;
  };
  const runOf = (request: FastifyRequest): ValidationRun => ({ validator, bodyBytes: bodyBytesOf(request) });
  // A large body is read only at its caller's turn (the caller is known: the token was checked on request),
  // so one caller's flood is parsed one body at a time, the rest left unread in their connections.
  const oneLargeBodyPerCaller: preParsingAsyncHookHandler = async (request, reply, payload) => {
    if (!validator.isLarge(bodyBytesOf(request))) return payload;
    const release = await validator.admit(callerKey(request.caller));
    // A client that went away while it waited has closed its reply already.
    if (reply.raw.destroyed || reply.raw.writableFinished) release();
    else reply.raw.once('close', release);
    return payload;
  };
  // A configuration's own limit, far under the global one: what a body may hold is what validating it costs.
  const bodyLimit = deps.config.versionValidation.bodyLimitBytes;

  app.post(
    '/cloud/games/:game_id/versions/validate',
    {
      ...routeOptions(
        {
          operationId: 'games.versions.validateGameVersion',
          auth: 'game',
          summary: 'Validate a game version (display name and configuration) without creating it',
          tag: 'versions',
          bodyLimit,
        },
        { params: GameIdParams, body: VersionBody, response: { 200: VersionValidationResult } },
      ),
      preParsing: oneLargeBodyPerCaller,
    },
    async (request) => validateGameVersion(deps, runOf(request), request.params.game_id, request.body),
  );

  app.post(
    '/cloud/games/:game_id/versions',
    {
      ...routeOptions(
        {
          operationId: 'games.versions.createGameVersion',
          auth: 'game',
          summary:
            'Create a game version; refused with VALIDATION_ERROR when validateGameVersion finds errors',
          tag: 'versions',
          idempotent: true,
          bodyLimit,
        },
        {
          params: GameIdParams,
          body: VersionBody,
          response: { 200: CreateVersionResponse },
        },
      ),
      preParsing: oneLargeBodyPerCaller,
    },
    async (request) => ({
      version_id: await createVersion(deps, runOf(request), request.params.game_id, request.body),
    }),
  );

  app.get(
    '/cloud/games/:game_id/versions',
    routeOptions(
      {
        operationId: 'games.versions.listGameVersions',
        auth: 'game',
        summary: "The game's versions, newest first and paged (limit, cursor), without their configurations",
        tag: 'versions',
      },
      { params: GameIdParams, querystring: PageQuery, response: { 200: VersionList } },
    ),
    async (request) => listVersions(deps, request.params.game_id, request.query),
  );

  app.get(
    '/cloud/games/:game_id/versions/:version_id',
    routeOptions(
      {
        operationId: 'games.versions.getGameVersionById',
        auth: 'game',
        summary: 'A game version with its configuration, as given or resolved (?resolved=true)',
        tag: 'versions',
      },
      {
        params: VersionParams,
        querystring: GetVersionQuery,
        response: { 200: GetVersionResponse },
      },
    ),
    async (request) => ({
      version: await getVersion(
        deps,
        request.params.game_id,
        request.params.version_id,
        request.query.resolved === 'true',
      ),
    }),
  );

  app.get(
    '/cloud/regions',
    routeOptions(
      {
        operationId: 'cloud.regions.listRegions',
        auth: 'any',
        summary: 'Regions game modes may run in (configured by the operator with GCM_REGIONS)',
        tag: 'versions',
      },
      { response: { 200: RegionsResponse } },
    ),
    async () => listRegions(deps),
  );
}
