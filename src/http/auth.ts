import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Caller, TokenAuthority } from '../modules/tokens/token-authority.js';

/**
 * Who may call a route, declared in its `config.auth`:
 * - `public`: nobody needs a token;
 * - `any`: any valid token (the service then limits what it sees);
 * - `game`: the operator, or a cloud token of the game named by the `game_id` path parameter;
 * - `operator`: the operator only.
 * A route that declares nothing is treated as `operator`, so a forgotten declaration fails closed.
 */
export type AuthRule = 'public' | 'any' | 'game' | 'operator';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export const AUTH_DESCRIPTIONS: Record<AuthRule, string> = {
  public: 'Who may call: anyone; no token.',
  any: 'Who may call: any valid token (operator or game cloud token).',
  game: 'Who may call: the operator, or a game cloud token of this game.',
  operator: 'Who may call: the operator only.',
};

/** Runs in onRequest: the token is checked before the body is even parsed, let alone any data read. */
export function registerAuth(app: FastifyInstance, authority: TokenAuthority): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const rule = request.routeOptions.config.auth ?? 'operator';
    if (rule === 'public') return;
    const caller = await authority.authenticate(request.headers.authorization);
    request.caller = caller;
    if (rule === 'operator' && caller.kind !== 'operator') {
      throw errors.forbidden('this operation needs the operator token');
    }
    if (rule === 'game' && caller.kind !== 'operator') {
      const gameId = (request.params as Record<string, string | undefined>).game_id;
      if (gameId === undefined || caller.gameId !== gameId) {
        throw errors.forbidden('this token belongs to another game');
      }
    }
  });
}

/** The caller of a route whose rule is not `public`; the hook guarantees it is set. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw errors.unauthorized();
  return request.caller;
}
