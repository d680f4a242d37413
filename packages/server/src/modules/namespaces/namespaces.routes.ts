import {
  CdnAuthTypeBody,
  CdnAuthUserBody,
  CdnAuthUserParams,
  CreateNamespaceBody,
  CreateNamespaceResponse,
  DomainPublicAuthBody,
  GameIdParams,
  GetNamespaceResponse,
  MatchmakerConfigBody,
  NamespaceList,
  NamespaceParams,
  NoContent,
  PageQuery,
  SetNamespaceVersionBody,
} from '@gcm/contract';
import type { Static, TSchema } from 'typebox';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { listNamespaces, type WithNamespaces } from './namespaces.service.js';

const TAG = 'namespaces';

export function namespacesRoutes(app: TypedApp, deps: Deps & WithNamespaces): void {
  const { namespaces } = deps;
  app.post(
    '/cloud/games/:game_id/namespaces',
    routeOptions(
      {
        operationId: 'games.namespaces.createGameNamespace',
        auth: 'game',
        summary: 'Create a namespace (environment) running one of the game versions',
        tag: TAG,
        idempotent: true,
      },
      {
        params: GameIdParams,
        body: CreateNamespaceBody,
        response: { 200: CreateNamespaceResponse },
      },
    ),
    async (request) => ({
      namespace_id: await namespaces.create(request.params.game_id, request.body),
    }),
  );

  app.get(
    '/cloud/games/:game_id/namespaces',
    routeOptions(
      {
        operationId: 'games.namespaces.listGameNamespaces',
        auth: 'game',
        summary: "The game's namespaces, oldest first and paged (limit, cursor)",
        tag: TAG,
      },
      { params: GameIdParams, querystring: PageQuery, response: { 200: NamespaceList } },
    ),
    async (request) => listNamespaces(deps, request.params.game_id, request.query),
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
      { params: NamespaceParams, response: { 200: GetNamespaceResponse } },
    ),
    (request) => {
      const { game_id: gameId, namespace_id: namespaceId } = request.params;
      // The hottest read of the API: from memory it is answered without a promise and its ticks.
      const cached = namespaces.cached(gameId, namespaceId);
      if (cached !== undefined) return { namespace: cached };
      return namespaces.get(gameId, namespaceId).then((namespace) => ({ namespace }));
    },
  );

  app.delete(
    '/cloud/games/:game_id/namespaces/:namespace_id',
    routeOptions(
      {
        operationId: 'games.namespaces.deleteGameNamespace',
        auth: 'game',
        summary:
          'Delete a namespace: gone at once with its CDN users and reporter tokens; its lobbies and builds are purged in the background',
        tag: TAG,
      },
      { params: NamespaceParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await namespaces.delete(request.params.game_id, request.params.namespace_id);
      return reply.code(204).send(null);
    },
  );

  /** The namespace edits: same parameters, a JSON body, one service call, 204. */
  function namespaceEdit<B extends TSchema>(
    method: 'POST' | 'PUT',
    suffix: string,
    meta: { operationId: string; summary: string },
    body: B,
    apply: (gameId: string, namespaceId: string, body: Static<B>) => Promise<void>,
  ): void {
    app.route({
      method,
      url: `/cloud/games/:game_id/namespaces/:namespace_id/${suffix}`,
      ...routeOptions(
        { ...meta, auth: 'game', tag: TAG },
        { params: NamespaceParams, body, response: { 204: NoContent } },
      ),
      handler: async (request, reply) => {
        await apply(request.params.game_id, request.params.namespace_id, request.body as Static<B>);
        return reply.code(204).send(null);
      },
    });
  }

  namespaceEdit(
    'PUT',
    'version',
    {
      operationId: 'games.namespaces.updateGameNamespaceVersion',
      summary: 'Point the namespace at another version of the game',
    },
    SetNamespaceVersionBody,
    (g, ns, body) => namespaces.setVersion(g, ns, body.version_id),
  );

  namespaceEdit(
    'POST',
    'mm-config',
    {
      operationId: 'games.namespaces.updateGameNamespaceMatchmakerConfig',
      summary: 'Set the lobby cap (1-32767) and the per-client player caps (max_players sets all five)',
    },
    MatchmakerConfigBody,
    (g, ns, body) => namespaces.updateMatchmakerConfig(g, ns, body),
  );

  namespaceEdit(
    'POST',
    'auth-user',
    {
      operationId: 'games.namespaces.updateNamespaceCdnAuthUser',
      summary: 'Add a CDN user, or replace the password of an existing one (at most 32 users)',
    },
    CdnAuthUserBody,
    (g, ns, body) => namespaces.upsertCdnAuthUser(g, ns, body),
  );

  namespaceEdit(
    'PUT',
    'cdn-auth',
    {
      operationId: 'games.namespaces.setNamespaceCdnAuthType',
      summary: 'Set how the namespace CDN authenticates: none or basic',
    },
    CdnAuthTypeBody,
    (g, ns, body) => namespaces.setCdnAuthType(g, ns, body.auth_type),
  );

  namespaceEdit(
    'PUT',
    'domain-public-auth',
    {
      operationId: 'games.namespaces.toggleNamespaceDomainPublicAuth',
      summary: 'Allow or refuse connections to the namespace by domain name',
    },
    DomainPublicAuthBody,
    (g, ns, body) => namespaces.setDomainPublicAuth(g, ns, body.enabled),
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
      await namespaces.removeCdnAuthUser(game_id, namespace_id, user);
      return reply.code(204).send(null);
    },
  );
}
