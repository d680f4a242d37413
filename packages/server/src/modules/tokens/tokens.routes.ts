import {
  CreateDevelopmentTokenBody,
  GameIdParams,
  InspectResponse,
  NamespaceParams,
  NoContent,
  PageQuery,
  TokenIdParams,
  TokenList,
  TokenResponse,
  ValidateDevelopmentTokenBody,
  ValidationResult,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { callerOf } from '../../http/auth.js';
import type { StoredAnswer } from '../../http/idempotency.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import {
  createCloudToken,
  createDevelopmentToken,
  createPublicToken,
  createReporterToken,
  inspect,
  listTokens,
  revokeToken,
  storedTokenText,
  validateDevelopmentToken,
} from './tokens.service.js';

const TAG = 'tokens';

/**
 * An Idempotency-Key replay of a token mint: the token's text is never stored, only its id; the replay
 * signs the token's row again, and Ed25519 signatures are deterministic, so it is the same text.
 */
function tokenAnswer(deps: Deps): StoredAnswer<TokenResponse, Omit<TokenResponse, 'token'>> {
  return {
    keep: ({ token: _secret, ...kept }) => kept,
    restore: async (kept) => ({ ...kept, token: await storedTokenText(deps, kept.token_id) }),
  };
}

export function tokensRoutes(app: TypedApp, deps: Deps & WithNamespaces): void {
  app.post(
    '/cloud/games/:game_id/tokens/cloud',
    routeOptions(
      {
        operationId: 'games.tokens.createCloudToken',
        auth: 'operator',
        personRole: 'admin',
        personTokens: true,
        summary: 'Mint a game cloud token (EdDSA JWT scoped to this game, revocable, expiring)',
        tag: TAG,
        idempotent: tokenAnswer(deps),
      },
      {
        params: GameIdParams,
        response: { 200: TokenResponse },
      },
    ),
    async (request) => createCloudToken(deps, request.params.game_id, callerOf(request)),
  );

  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/tokens/reporter',
    routeOptions(
      {
        operationId: 'games.namespaces.tokens.createReporterToken',
        auth: 'operator',
        personRole: 'admin',
        personTokens: true,
        summary: "Mint a lobby reporter token: may write this namespace's lobby log and nothing else",
        tag: TAG,
        idempotent: tokenAnswer(deps),
      },
      { params: NamespaceParams, response: { 200: TokenResponse } },
    ),
    async (request) =>
      createReporterToken(deps, request.params.game_id, request.params.namespace_id, callerOf(request)),
  );

  // A game client's tokens: a member (or the game's cloud token) mints them, as any write to the game.
  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/tokens/public',
    routeOptions(
      {
        operationId: 'games.namespaces.tokens.createGameNamespaceTokenPublic',
        auth: 'game',
        summary:
          "Mint a namespace's public token, which game clients ship with: may matchmake in this namespace and nothing else",
        tag: TAG,
        idempotent: tokenAnswer(deps),
      },
      { params: NamespaceParams, response: { 200: TokenResponse } },
    ),
    async (request) => createPublicToken(deps, request.params.game_id, request.params.namespace_id),
  );

  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/tokens/development',
    routeOptions(
      {
        operationId: 'games.namespaces.tokens.createGameNamespaceTokenDevelopment',
        auth: 'game',
        summary:
          "Mint a development token: a public token for a developer's machine, keeping its host name and ports",
        tag: TAG,
        idempotent: tokenAnswer(deps),
      },
      { params: NamespaceParams, body: CreateDevelopmentTokenBody, response: { 200: TokenResponse } },
    ),
    async (request) =>
      createDevelopmentToken(deps, request.params.game_id, request.params.namespace_id, request.body),
  );

  app.post(
    '/cloud/games/:game_id/namespaces/:namespace_id/tokens/development/validate',
    routeOptions(
      {
        operationId: 'games.namespaces.tokens.validateGameNamespaceTokenDevelopment',
        auth: 'game',
        summary: "Check a development token's host name and ports without minting one: every rule broken",
        tag: TAG,
      },
      { params: NamespaceParams, body: ValidateDevelopmentTokenBody, response: { 200: ValidationResult } },
    ),
    async (request) =>
      validateDevelopmentToken(deps, request.params.game_id, request.params.namespace_id, request.body),
  );

  app.get(
    '/cloud/games/:game_id/tokens',
    routeOptions(
      {
        operationId: 'games.tokens.listTokens',
        auth: 'game',
        personRole: 'admin',
        summary:
          "The game's cloud and reporter tokens, newest first and paged, revoked ones included: ids and times, never a token",
        tag: TAG,
      },
      { params: GameIdParams, querystring: PageQuery, response: { 200: TokenList } },
    ),
    async (request) => listTokens(deps, request.params.game_id, request.query),
  );

  app.delete(
    '/cloud/tokens/:token_id',
    routeOptions(
      {
        operationId: 'tokens.revokeToken',
        auth: 'any',
        summary: 'Revoke a token: the operator any, a game cloud token those of its own game',
        tag: TAG,
      },
      { params: TokenIdParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await revokeToken(deps, callerOf(request), request.params.token_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/cloud/auth/inspect',
    routeOptions(
      { operationId: 'auth.inspect', auth: 'self', summary: 'Who the bearer token belongs to', tag: TAG },
      { response: { 200: InspectResponse } },
    ),
    async (request) => inspect(deps, callerOf(request)),
  );
}
