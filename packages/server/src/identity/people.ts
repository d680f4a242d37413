import type { IncomingHttpHeaders } from 'node:http';
import { fromNodeHeaders } from 'better-auth/node';
import type { Db } from '../db/open-db.js';
import { errors } from '../errors.js';
import { type Accounts, SESSION_COOKIE_PREFIX } from './accounts.js';
import type { Person } from './callers.js';
import { isTeamRole, roleCovers, type TeamRole } from './roles.js';

/** The session cookie's name, with and without the `__Secure-` prefix better-auth adds on https. */
const SESSION_COOKIE = `${SESSION_COOKIE_PREFIX}.session_token=`;

/** True when the Cookie header may hold a session: only then is a session looked up. */
export function carriesSession(cookie: string | undefined): boolean {
  return cookie?.includes(SESSION_COOKIE) === true;
}

/**
 * Who a session cookie speaks for, read from the store on every request (no cookie cache): signing out or
 * revoking a session takes effect at once, on every instance.
 */
export class People {
  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
  ) {}

  /** The person the cookies sign in, or the 401 that says why not. */
  async fromCookies(headers: IncomingHttpHeaders): Promise<Person> {
    const session = await this.accounts.api.getSession({
      headers: fromNodeHeaders({ cookie: headers.cookie }),
      query: { disableCookieCache: true, disableRefresh: true },
    });
    if (session === null) {
      throw errors.unauthorized('the session is not valid: it expired or was signed out; sign in again');
    }
    const rows = await this.db
      .selectFrom('team_members')
      .select(['team_id', 'role'])
      .where('user_id', '=', session.user.id)
      .execute();
    const teams = new Map<string, TeamRole>();
    for (const row of rows) if (isTeamRole(row.role)) teams.set(row.team_id, row.role);
    return {
      kind: 'person',
      userId: session.user.id,
      sessionId: session.session.id,
      email: session.user.email,
      name: session.user.name,
      teams,
    };
  }

  /** The team that owns a live game, or undefined (no such game, or one only the operator manages). */
  async teamOfGame(gameId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('games')
      .select('team_id')
      .where('game_id', '=', gameId)
      .where('delete_ts', 'is', null)
      .executeTakeFirst();
    return row?.team_id ?? undefined;
  }

  /** Throws the 403 that says why `person` may not act as `needed` on the game, unless they may. */
  async assertGameRole(person: Person, gameId: string, needed: TeamRole): Promise<void> {
    const teamId = await this.teamOfGame(gameId);
    const held = teamId === undefined ? undefined : person.teams.get(teamId);
    if (held === undefined) throw errors.forbidden('you are not in the team that owns this game');
    if (!roleCovers(held, needed)) {
      throw errors.forbidden(
        `this operation needs the ${needed} role (or stronger) in the game's team; you are ${held}`,
      );
    }
  }

  /** The role a person (by id) holds now in the team that owns a live game; undefined when none. */
  async gameRoleOf(userId: string, gameId: string): Promise<TeamRole | undefined> {
    const row = await this.db
      .selectFrom('games')
      .innerJoin('team_members', 'team_members.team_id', 'games.team_id')
      .select('team_members.role')
      .where('games.game_id', '=', gameId)
      .where('games.delete_ts', 'is', null)
      .where('team_members.user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined && isTeamRole(row.role) ? row.role : undefined;
  }

  /** Throws the 403 that says why `person` may not act as `needed` in the team, unless they may. */
  assertTeamRole(person: Person, teamId: string, needed: TeamRole): void {
    const held = person.teams.get(teamId);
    if (held === undefined) throw errors.forbidden('you are not in this team');
    if (!roleCovers(held, needed)) {
      throw errors.forbidden(
        `this operation needs the ${needed} role (or stronger) in the team; you are ${held}`,
      );
    }
  }

  /** Ids of the teams where `person` holds `needed` or stronger. */
  teamsWith(person: Person, needed: TeamRole): string[] {
    return [...person.teams].filter(([, role]) => roleCovers(role, needed)).map(([teamId]) => teamId);
  }
}
