import { AuditList, GameIdParams, PageQuery, TeamIdParams } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { listAllAudit, listGameAudit, listTeamAudit } from './audit.service.js';

const TAG = 'audit';

export function auditRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/cloud/games/:game_id/audit',
    routeOptions(
      {
        operationId: 'games.audit.list',
        auth: 'game',
        personRole: 'admin',
        summary:
          "The game's audit log, newest first and paged: each write with its actor, operation, resource, ray id and outcome",
        tag: TAG,
      },
      { params: GameIdParams, querystring: PageQuery, response: { 200: AuditList } },
    ),
    async (request) => listGameAudit(deps, request.params.game_id, request.query),
  );

  app.get(
    '/cloud/teams/:team_id/audit',
    routeOptions(
      {
        operationId: 'teams.audit.list',
        auth: 'operator',
        personRole: 'admin',
        summary:
          "The team's audit log, newest first and paged: writes to its games and to its members and invitations",
        tag: TAG,
      },
      { params: TeamIdParams, querystring: PageQuery, response: { 200: AuditList } },
    ),
    async (request) => listTeamAudit(deps, request.params.team_id, request.query),
  );

  app.get(
    '/cloud/audit',
    routeOptions(
      {
        operationId: 'audit.list',
        auth: 'operator',
        summary:
          "Every audit event, newest first and paged: the games' and teams' events, and those no other list " +
          'shows (refused calls to operator-only routes, calls naming a team their caller is not in)',
        tag: TAG,
      },
      { querystring: PageQuery, response: { 200: AuditList } },
    ),
    async (request) => listAllAudit(deps, request.query),
  );
}
