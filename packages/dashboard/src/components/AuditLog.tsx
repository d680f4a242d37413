import { Link, useSearchParams } from 'react-router';
import { type AuditEvent, type AuditScope, roleCovers, type TeamRole, useAudit } from '../api/people';
import { useInspect } from '../api/queries';
import { Empty, ErrorMessage, Loading, When } from './status';
import { TableWrap } from './TableWrap';
import './people.css';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

/** `?limit=` as the service takes it (1–1,000); anything else is the default page. */
function limitOf(raw: string | null): number {
  const n = raw === null ? Number.NaN : Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= MAX_LIMIT ? n : DEFAULT_LIMIT;
}

/**
 * A game's or a team's audit log, newest first, paged by the service's cursor. The page and its size are in
 * the URL (`?cursor=`, `?limit=`), so a page of the log can be shared. Only admins and owners read it: the
 * others get a plain statement of that rather than the service's refusal.
 */
export function AuditLog({ scope, teamId }: { scope: AuditScope; teamId: string }) {
  const [params] = useSearchParams();
  const cursor = params.get('cursor');
  const limit = limitOf(params.get('limit'));
  const inspect = useInspect(true);
  const role: TeamRole | undefined = inspect.data?.agent.person?.teams.find(
    (t) => t.team_id === teamId,
  )?.role;
  const allowed = roleCovers(role, 'admin');
  const audit = useAudit(scope, limit, cursor, allowed);

  if (inspect.isPending) return <Loading what="your role" />;
  if (inspect.isError) return <ErrorMessage error={inspect.error} />;
  if (role === undefined)
    return (
      <Empty>
        <p>You are not a member of this team.</p>
      </Empty>
    );
  if (!allowed)
    return (
      <Empty>
        <p>
          <strong>Only the team's admins and owners read the audit log.</strong>
        </p>
        <p>You are a {role} in this team: ask an admin or owner if you need to know who changed what.</p>
      </Empty>
    );
  if (audit.isPending) return <Loading what="the audit log" />;
  if (audit.isError) return <ErrorMessage error={audit.error} title="Could not load the audit log" />;

  const pageLink = (next: string | null) => {
    const search = new URLSearchParams(params);
    if (next === null) search.delete('cursor');
    else search.set('cursor', next);
    const text = search.toString();
    return { search: text === '' ? '' : `?${text}` };
  };
  const { events } = audit.data;
  const pager = (
    <nav aria-label="Audit log pages" className="pager">
      {cursor !== null && <Link to={pageLink(null)}>Newest events</Link>}
      {audit.data.cursor !== undefined && <Link to={pageLink(audit.data.cursor)}>Older events</Link>}
      {audit.isFetching && (
        <span className="status" role="status">
          Loading…
        </span>
      )}
    </nav>
  );
  if (events.length === 0)
    return (
      <>
        <Empty>
          <p>{cursor === null ? 'No writes recorded yet.' : 'No older events.'}</p>
          <p>Every change made through the API is recorded here, refused ones too.</p>
        </Empty>
        {pager}
      </>
    );
  return (
    <>
      <p className="lead">Newest first, {limit} a page. Reads are not recorded; refused writes are.</p>
      <TableWrap labelledBy="audit-heading">
        <table className="audit-table">
          <caption className="visually-hidden" id="audit-heading">
            Audit events, newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Operation</th>
              <th scope="col">Resource</th>
              <th scope="col">Outcome</th>
              <th scope="col">Ray id</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.event_id}>
                <td className="nowrap">
                  <When ts={event.ts} />
                </td>
                <td>
                  <Actor actor={event.actor} />
                </td>
                <td>
                  <code>{event.operation}</code>
                  <div className="fine">
                    {event.method} <span className="mono">{event.path}</span>
                  </div>
                </td>
                <td>
                  <Resource event={event} />
                </td>
                <td>
                  <span className={`badge ${event.outcome}`}>
                    {event.outcome} {event.status}
                  </span>
                </td>
                <td>
                  <code>{event.ray_id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {pager}
    </>
  );
}

function Actor({ actor }: { actor: AuditEvent['actor'] }) {
  if (actor.kind === 'person') return <span>{actor.email ?? actor.user_id ?? 'a person'}</span>;
  if (actor.kind === 'operator') return <span>Operator</span>;
  const kind = actor.kind === 'cloud_token' ? 'Cloud token' : 'Reporter token';
  return (
    <span>
      {kind}
      {actor.token_id !== undefined && (
        <>
          {' '}
          <code>{actor.token_id}</code>
        </>
      )}
    </span>
  );
}

/** The ids the call named or made; the game, when the path did not name it (a team's list). */
function Resource({ event }: { event: AuditEvent }) {
  const entries = Object.entries(event.resource);
  if (event.game_id !== undefined && !('game_id' in event.resource))
    entries.unshift(['game_id', event.game_id]);
  if (entries.length === 0) return <span className="fine">—</span>;
  return (
    <ul className="resource">
      {entries.map(([key, value]) => (
        <li key={key}>
          {key.replace(/_id$/, '')} <code>{value}</code>
        </li>
      ))}
    </ul>
  );
}
