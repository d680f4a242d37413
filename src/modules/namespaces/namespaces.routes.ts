import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { NoContent } from '../../http/common-schemas.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { GameIdParams } from '../games/games.schemas.js';
import {
  CdnAuthTypeBody,
  CdnAuthUserBody,
  CdnAuthUserParams,
  CreateNamespaceBody,
  DomainPublicAuthBody,
  MatchmakerConfigBody,
  NamespaceFull,
  NamespaceParams,
  SetNamespaceVersionBody,
} from './namespaces.schemas.js';
import * as service from './namespaces.service.js';

const TAG = 'namespaces';

export function namespacesRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/games/:game_id/namespaces',
    routeOptions(
      {
        operationId: 'games.namespaces.createGameNamespace',
        auth: 'game',
        summary: 'Create a namespace (environment) running one of the game versions',
        tag: TAG,
      },
      {
        params: GameIdParams,
        body: CreateNamespaceBody,
        response: { 200: Type.Object({ namespace_id: Type.String() }) },
      },
    ),
    async (request) => ({
      namespace_id: await service.createNamespace(deps, request.params.game_id, request.body),
    }),
  );

  app.get(
    '/cloud/games/:game_id/namespaces/:namespace_id',
    routeOptions(
      {
        operationId: 'games.namespaces.getGameNamespaceById',
        auth: 'game',
        summary: 'A namespace with its full configuration',
        tag: TAG,
      },
      { params: NamespaceParams, response: { 200: Type.Object({ namespace: NamespaceFull }) } },
    ),
    async (request) => ({
      namespace: await service.getNamespace(deps, request.params.game_id, request.params.namespace_id),
    }),
  );

  app.put(
    '/cloud/games/:game_id/namespaces/:namespace_id/version',
    routeOptions(
      {
        operationId: 'games.namespaces.updateGameNamespaceVersion',
        auth: 'game',
        summary: 'Point the namespace at another version of the game',
        tag: TAG,
      },
      { params: NamespaceParams, body: SetNamespaceVersionBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id } = request.params;
      await service.setNamespaceVersion(deps, game_id, namespace_id, request.body.version_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/mm-config',
    routeOptions(
      {
        operationId: 'games.namespaces.updateGameNamespaceMatchmakerConfig',
        auth: 'game',
        summary: 'Set the lobby cap (1-32767) and the per-client player caps (max_players sets all five)',
        tag: TAG,
      },
      { params: NamespaceParams, body: MatchmakerConfigBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id } = request.params;
      await service.updateMatchmakerConfig(deps, game_id, namespace_id, request.body);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/auth-user',
    routeOptions(
      {
        operationId: 'games.namespaces.updateNamespaceCdnAuthUser',
        auth: 'game',
        summary: 'Add a CDN user, or replace the password of an existing one (at most 32 users)',
        tag: TAG,
      },
      { params: NamespaceParams, body: CdnAuthUserBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id } = request.params;
      await service.upsertCdnAuthUser(deps, game_id, namespace_id, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/cloud/games/:game_id/namespaces/:namespace_id/auth-user/:user',
    routeOptions(
      {
        operationId: 'games.namespaces.removeNamespaceCdnAuthUser',
        auth: 'game',
        summary: 'Remove a CDN user',
        tag: TAG,
      },
      { params: CdnAuthUserParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id, user } = request.params;
      await service.removeCdnAuthUser(deps, game_id, namespace_id, user);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/cloud/games/:game_id/namespaces/:namespace_id/cdn-auth',
    routeOptions(
      {
        operationId: 'games.namespaces.setNamespaceCdnAuthType',
        auth: 'game',
        summary: 'Set how the namespace CDN authenticates: none or basic',
        tag: TAG,
      },
      { params: NamespaceParams, body: CdnAuthTypeBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id } = request.params;
      await service.setCdnAuthType(deps, game_id, namespace_id, request.body.auth_type);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/cloud/games/:game_id/namespaces/:namespace_id/domain-public-auth',
    routeOptions(
      {
        operationId: 'games.namespaces.toggleNamespaceDomainPublicAuth',
        auth: 'game',
        summary: 'Allow or refuse connections to the namespace by domain name',
        tag: TAG,
      },
      { params: NamespaceParams, body: DomainPublicAuthBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id } = request.params;
      await service.setDomainPublicAuth(deps, game_id, namespace_id, request.body.enabled);
      return reply.code(204).send(null);
    },
  );
}
