import { type Static, Type } from 'typebox';
import { Id, IdOf, Timestamp } from './common.js';
import { NextCursor } from './paging.js';

/** Who made a recorded call. */
export const AUDIT_ACTOR_KINDS = [
  'operator',
  'cloud_token',
  'reporter_token',
  'lobby_token',
  'public_token',
  'development_token',
  'person',
] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** succeeded: 2xx or 3xx; refused: 4xx (nothing changed); failed: 5xx. */
export const AUDIT_OUTCOMES = ['succeeded', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export function auditOutcome(status: number): AuditOutcome {
  return status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'succeeded';
}

export const AuditActor = Type.Object({
  kind: Type.Union([
    Type.Literal('operator'),
    Type.Literal('cloud_token'),
    Type.Literal('reporter_token'),
    Type.Literal('lobby_token'),
    Type.Literal('public_token'),
    Type.Literal('development_token'),
    Type.Literal('person'),
  ]),
  token_id: Type.Optional(IdOf('the token used (cloud and reporter tokens)')),
  user_id: Type.Optional(IdOf('the signed-in person')),
  email: Type.Optional(Type.String({ description: "the person's email when the call was made" })),
});
export type AuditActor = Static<typeof AuditActor>;

/** One recorded write: who, what, which resource, when, and how it ended. */
export const AuditEvent = Type.Object({
  event_id: Id,
  ts: Timestamp,
  actor: AuditActor,
  operation: Type.String({
    description: 'the operationId (`games.namespaces.createGameNamespace`), or `auth.*`',
  }),
  method: Type.String(),
  path: Type.String({ description: 'the request path, without its query' }),
  game_id: Type.Optional(IdOf('the game the call was about')),
  team_id: Type.Optional(
    IdOf(
      'the team that owned the game at the time, or the team the call named (path or body) when its caller ' +
        'belongs to it',
    ),
  ),
  resource: Type.Record(Type.String(), Type.String(), {
    description: 'the ids the call named in its path, and those its answer made (`namespace_id`, …)',
  }),
  status: Type.Integer({ description: 'the HTTP status answered' }),
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('refused'), Type.Literal('failed')]),
  ray_id: IdOf("the request's ray id (its x-ray-id header): its log lines carry the same"),
});
export type AuditEvent = Static<typeof AuditEvent>;

/**
 * `GET /cloud/games/{game_id}/audit`, `GET /cloud/teams/{team_id}/audit` and the operator's `GET /cloud/audit`
 * (every event) (query: PageQuery): newest first.
 */
export const AuditList = Type.Object({
  events: Type.Array(AuditEvent),
  cursor: NextCursor,
});
export type AuditList = Static<typeof AuditList>;

export const TeamIdParams = Type.Object({ team_id: IdOf("the team's id (POST /cloud/teams answers it)") });
export type TeamIdParams = Static<typeof TeamIdParams>;
