import { roleCovers } from '@gcm/contract/roles';
import { NavLink, useParams } from 'react-router';
import { useMyInvitations } from '../api/people';
import { useTeamRole } from '../api/queries';
import './people.css';

/** Header links: the current team's members and (for admins) audit log, and the person's invitations. */
export function PeopleNav() {
  const { teamId } = useParams();
  const role = useTeamRole(teamId ?? '');
  const { query } = useMyInvitations();
  const pending = query.data?.length ?? 0;
  return (
    <nav aria-label="Pages" className="pages-nav">
      {teamId !== undefined && role !== undefined && (
        <NavLink to={`/teams/${teamId}/members`}>Members</NavLink>
      )}
      {teamId !== undefined && roleCovers(role, 'admin') && (
        <NavLink to={`/teams/${teamId}/audit`}>Audit log</NavLink>
      )}
      {pending > 0 && (
        <NavLink to="/invitations">
          Invitations <span className="count">{pending}</span>
          <span className="visually-hidden"> pending</span>
        </NavLink>
      )}
    </nav>
  );
}
