import { isTeamRole, roleCovers, TEAM_ROLES, type TeamRole } from '@gcm/contract/roles';
import { type FormEvent, useId, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import {
  cancelInvitation,
  type FullTeam,
  type Invitation,
  inviteMember,
  isOpen,
  type Member,
  removeMember,
  updateMemberRole,
  useFullTeam,
  useTeamChange,
} from '../../api/people';
import { useInspect, useSession } from '../../api/queries';
import { useTitle } from '../../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../../components/status';
import { Table } from '../../components/TableWrap';
import '../../components/people.css';

/** The roles `mine` may give: better-auth lets only an owner make (or unmake) an owner. */
function assignable(mine: TeamRole | undefined): readonly TeamRole[] {
  return roleCovers(mine, 'owner') ? TEAM_ROLES : TEAM_ROLES.filter((r) => r !== 'owner');
}

/** A role picker offering `roles`; it hands on a role only, never another string. */
function RoleSelect({
  roles,
  value,
  onPick,
  ...select
}: {
  roles: readonly TeamRole[];
  value: string;
  onPick: (role: TeamRole) => void;
} & Omit<React.ComponentProps<'select'>, 'value' | 'onChange' | 'children'>) {
  return (
    <select
      {...select}
      value={value}
      onChange={(e) => {
        if (isTeamRole(e.target.value)) onPick(e.target.value);
      }}
    >
      {roles.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

/**
 * `/teams/:teamId/members`: the team's members and, for admins and owners, its pending invitations, role
 * changes, removals and new invitations. `?invited=<id>` keeps the link of an invitation just made on screen.
 */
export function TeamMembersPage() {
  const { teamId = '' } = useParams();
  const team = useFullTeam(teamId);
  const inspect = useInspect(true);
  const role = inspect.data?.agent.person?.teams.find((t) => t.team_id === teamId)?.role;
  const manages = roleCovers(role, 'admin');
  useTitle(team.data === undefined ? 'Members' : `${team.data.name}: members`);

  let body: React.ReactNode;
  if (team.isPending || inspect.isPending) body = <Loading what="the members" />;
  else if (team.isError) body = <ErrorMessage error={team.error} title="Could not load the members" />;
  else
    body = (
      <>
        <MemberTable team={team.data} mine={role} manages={manages} />
        {manages && <Invitations team={team.data} />}
        {!manages && (
          <p className="fine">
            You are a {role ?? 'visitor'} in this team: its admins and owners invite people and change roles.
          </p>
        )}
      </>
    );
  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={`/teams/${teamId}`}>{team.data?.name ?? 'Team'}: games</Link>
      </nav>
      <p className="eyebrow">{team.data?.name ?? 'Team'}</p>
      <h1>Members</h1>
      {body}
    </>
  );
}

function MemberTable({
  team,
  mine,
  manages,
}: {
  team: FullTeam;
  mine: TeamRole | undefined;
  manages: boolean;
}) {
  const session = useSession();
  const [confirming, setConfirming] = useState<string | null>(null);
  const changeRole = useTeamChange(team.id, (v: { member: Member; role: TeamRole }) =>
    updateMemberRole(team.id, v.member.id, v.role),
  );
  const remove = useTeamChange(team.id, (member: Member) => removeMember(team.id, member.id));
  const members = [...team.members].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const roles = assignable(mine);
  // An admin may not touch an owner (better-auth refuses it); nobody removes themself here.
  const canEdit = (m: Member) => manages && (roleCovers(mine, 'owner') || m.role !== 'owner');
  const me = session.data?.user.id;

  return (
    <>
      <h2 id="members-heading">People ({members.length})</h2>
      {changeRole.isError && <ErrorMessage error={changeRole.error} title="Could not change the role" />}
      {remove.isError && <ErrorMessage error={remove.error} title="Could not remove the member" />}
      {remove.isSuccess && (
        <p className="notice ok" role="status">
          {remove.variables.user.email} is no longer in the team.
        </p>
      )}
      <Table
        labelledBy="members-heading"
        className="people-table"
        columns={['Name', 'Email', 'Role', 'Joined']}
        actions={manages}
      >
        {members.map((m) => (
          <tr key={m.id}>
            <th scope="row">
              {m.user.name}
              {m.userId === me && <span className="fine"> (you)</span>}
            </th>
            <td className="mono" data-label="Email">
              {m.user.email}
            </td>
            <td data-label="Role">
              {canEdit(m) && m.userId !== me ? (
                <RoleSelect
                  aria-label={`Role of ${m.user.email}`}
                  value={m.role}
                  disabled={changeRole.isPending}
                  onPick={(picked) => changeRole.mutate({ member: m, role: picked })}
                  roles={roles.includes(m.role as TeamRole) ? roles : [m.role as TeamRole, ...roles]}
                />
              ) : (
                m.role
              )}
            </td>
            <td className="nowrap" data-label="Joined">
              <When ts={m.createdAt} />
            </td>
            {manages && (
              <td>
                {canEdit(m) && m.userId !== me && (
                  <div className="row-actions">
                    {confirming === m.id ? (
                      <>
                        <span>Remove {m.user.email}?</span>
                        <button
                          type="button"
                          className="danger solid"
                          disabled={remove.isPending}
                          onClick={() => remove.mutate(m, { onSettled: () => setConfirming(null) })}
                        >
                          Yes, remove
                        </button>
                        <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Remove ${m.user.email}`}
                        onClick={() => setConfirming(m.id)}
                      >
                        Remove
                      </button>
                    )}
                  </div>
                )}
              </td>
            )}
          </tr>
        ))}
      </Table>
    </>
  );
}

/** The addresses an invited person opens: sign-up for a new account, /invitations for one they have. */
function invitationLinks(invitation: Pick<Invitation, 'id' | 'email'>) {
  const origin = window.location.origin;
  const id = encodeURIComponent(invitation.id);
  return {
    signUp: `${origin}/sign-up?invitation=${id}&email=${encodeURIComponent(invitation.email)}`,
    signedIn: `${origin}/invitations?invitation=${id}`,
  };
}

function Invitations({ team }: { team: FullTeam }) {
  const [params, setParams] = useSearchParams();
  const inspect = useInspect(true);
  const mine = inspect.data?.agent.person?.teams.find((t) => t.team_id === team.id)?.role;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TeamRole>('member');
  const ids = { email: useId(), role: useId() };
  const invite = useTeamChange(team.id, () => inviteMember(team.id, email.trim(), role));
  const cancel = useTeamChange(team.id, (invitation: Invitation) => cancelInvitation(invitation.id));
  const pending = team.invitations
    .filter((i) => isOpen(i))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const invitedId = params.get('invited');
  const invited = team.invitations.find((i) => i.id === invitedId && isOpen(i));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(undefined, {
      onSuccess: (made) => {
        setEmail('');
        setParams((p) => {
          p.set('invited', made.id);
          return p;
        });
      },
    });
  };

  return (
    <>
      <h2 id="invite-heading">Invite someone</h2>
      <form className="invite-form" onSubmit={submit} aria-labelledby="invite-heading">
        <div className="stack-field">
          <label htmlFor={ids.email}>Email</label>
          <input
            id={ids.email}
            type="email"
            required
            maxLength={254}
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
        <div className="stack-field">
          <label htmlFor={ids.role}>Role</label>
          <RoleSelect id={ids.role} value={role} onPick={setRole} roles={assignable(mine)} />
        </div>
        <button type="submit" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Send invitation'}
        </button>
      </form>
      {invite.isError && <ErrorMessage error={invite.error} title="Could not invite" />}
      {invited !== undefined && <InvitedNotice invitation={invited} />}

      <h2 id="invitations-heading">Pending invitations ({pending.length})</h2>
      {cancel.isError && <ErrorMessage error={cancel.error} title="Could not cancel the invitation" />}
      {pending.length === 0 ? (
        <Empty>
          <p>No pending invitations.</p>
        </Empty>
      ) : (
        <Table
          labelledBy="invitations-heading"
          className="people-table"
          columns={['Email', 'Role', 'Invited', 'Expires']}
          actions
        >
          {pending.map((i) => (
            <tr key={i.id}>
              <th scope="row" className="mono">
                {i.email}
              </th>
              <td data-label="Role">{i.role}</td>
              <td className="nowrap" data-label="Invited">
                <When ts={i.createdAt} />
              </td>
              <td className="nowrap" data-label="Expires">
                <When ts={i.expiresAt} />
              </td>
              <td>
                <div className="row-actions">
                  <Link
                    to={{ search: `?invited=${encodeURIComponent(i.id)}` }}
                    aria-label={`Link for ${i.email}`}
                  >
                    Link
                  </Link>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Cancel the invitation of ${i.email}`}
                    disabled={cancel.isPending}
                    onClick={() => cancel.mutate(i)}
                  >
                    Cancel
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

/** The links to pass on: without a mail server the service only logs its mail, so the admin sends these. */
function InvitedNotice({ invitation }: { invitation: Invitation }) {
  const links = invitationLinks(invitation);
  return (
    <section className="notice ok" aria-labelledby="invited-heading">
      <strong id="invited-heading">
        {invitation.email} is invited as {invitation.role}
      </strong>
      <p>
        They get a mail when the service has a mail server. Otherwise send them one of these links; it expires{' '}
        <When ts={invitation.expiresAt} />.
      </p>
      <CopyField label="Link for a new account" value={links.signUp} />
      <CopyField label="Link if they already have an account" value={links.signedIn} />
    </section>
  );
}

function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  };
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <span className="link-field">
        <input id={id} readOnly value={value} onFocus={(e) => e.target.select()} />
        <button type="button" className="secondary" onClick={copy} aria-label={`Copy: ${label}`}>
          Copy
        </button>
      </span>
      <span role="status" className="fine">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Select the link and copy it.' : ''}
      </span>
    </div>
  );
}
