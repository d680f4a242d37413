import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { GameIdParams } from '../games/games.schemas.js';
import { CreateVersionBody, VersionFull, VersionParams } from './versions.schemas.js';
import { createVersion, getVersion } from './versions.service.js';

export function versionsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/games/:game_id/versions',
    routeOptions(
      {
        operationId: 'games.versions.createGameVersion',
        auth: 'game',
        summary: 'Create a game version',
        tag: 'versions',
      },
      {
        params: GameIdParams,
        body: CreateVersionBody,
        response: { 200: Type.Object({ version_id: Type.String() }) },
      },
    ),
    async (request) => ({ version_id: await createVersion(deps, request.params.game_id, request.body) }),
  );

  app.get(
    '/cloud/games/:game_id/versions/:version_id',
    routeOptions(
      {
        operationId: 'games.versions.getGameVersionById',
        auth: 'game',
        summary: 'A game version with its configuration',
        tag: 'versions',
      },
      { params: VersionParams, response: { 200: Type.Object({ version: VersionFull }) } },
    ),
    async (request) => ({
      version: await getVersion(deps, request.params.game_id, request.params.version_id),
    }),
  );
}
