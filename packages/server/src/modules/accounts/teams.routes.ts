import { CreateTeamBody, CreateTeamResponse, GameIdParams, NoContent, SetGameTeamBody } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import type { StoredAnswer } from '../../http/idempotency.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { createTeam, setGameTeam } from './teams.service.js';

/** A replay answers the team and its owner, never the password-setup token (which is not stored). */
const teamAnswer: StoredAnswer<CreateTeamResponse, CreateTeamResponse> = {
  keep: ({ password_setup: _secret, ...kept }) => kept,
  restore: async (kept) => kept,
};

/**
 * The operator's two calls for teams; everything else about teams (members, invitations, roles) is
 * better-auth's organization endpoints under /auth/organization, called by the team's people.
 */
export function teamsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/teams',
    routeOptions(
      {
        operationId: 'teams.createTeam',
        auth: 'operator',
        summary: 'Create a team with its first owner (the account is made when the email has none)',
        tag: 'teams',
        idempotent: teamAnswer as StoredAnswer,
      },
      { body: CreateTeamBody, response: { 200: CreateTeamResponse } },
    ),
    async (request) => createTeam(deps, request.body),
  );

  app.put(
    '/cloud/games/:game_id/team',
    routeOptions(
      {
        operationId: 'games.setGameTeam',
        auth: 'operator',
        summary: 'Give the game to a team (or, with null, back to the operator alone)',
        tag: 'teams',
      },
      { params: GameIdParams, body: SetGameTeamBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await setGameTeam(deps, request.params.game_id, request.body.team_id);
      return reply.code(204).send(null);
    },
  );
}
