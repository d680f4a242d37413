import { Link, useParams } from 'react-router';
import { useTeamNames } from '../../api/queries';
import { AuditLog } from '../../components/AuditLog';
import { useTitle } from '../../components/Layout';

/** `/teams/:teamId/audit`: writes to the team's games, members and invitations (admins and owners). */
export function TeamAuditPage() {
  const { teamId = '' } = useParams();
  const names = useTeamNames(true);
  const teamName = names.data?.find((t) => t.id === teamId)?.name;
  useTitle(teamName === undefined ? 'Audit log' : `${teamName}: audit log`);
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={`/teams/${teamId}`}>{teamName ?? 'Team'}: games</Link>
      </nav>
      <p className="eyebrow">{teamName ?? 'Team'}</p>
      <h1>Audit log</h1>
      <AuditLog scope={{ kind: 'team', id: teamId }} teamId={teamId} />
    </>
  );
}
