import { roleCovers } from '@gcm/contract/roles';
import { Link, useSearchParams } from 'react-router';
import { type AuditEvent, type AuditScope, type TeamRole, useAudit } from '../api/people';
import { useInspect } from '../api/queries';
import { auditSentence, type Part } from './audit-words';
import { CopyButton, CopyId } from './CopyButton';
import { Pager } from './Pager';
import { Empty, ErrorMessage, Loading, When } from './status';
import { Table } from './TableWrap';
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
/** A resource's name and page, where the page showing the log knows them. */
export type AuditNames = (kind: string, id: string) => { label: string; to?: string } | undefined;

export function AuditLog({
  scope,
  teamId,
  names,
}: {
  scope: AuditScope;
  teamId: string;
  names?: AuditNames;
}) {
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
    <Pager
      label="Audit log pages"
      newest={cursor === null ? undefined : { to: pageLink(null), text: 'Newest events' }}
      older={
        audit.data.cursor === undefined
          ? undefined
          : { to: pageLink(audit.data.cursor), text: 'Older events' }
      }
    >
      {audit.isFetching && (
        <span className="status" role="status">
          Loading…
        </span>
      )}
    </Pager>
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
      <Table
        labelledBy="audit-heading"
        className="audit-table"
        caption="Audit events, newest first"
        columns={['When', 'What happened', 'Outcome', 'Ray id']}
      >
        {events.map((event) => (
          <tr key={event.event_id}>
            <th scope="row" className="nowrap">
              <When ts={event.ts} />
            </th>
            <td data-label="What happened" title={event.operation}>
              <Actor actor={event.actor} /> <Sentence event={event} names={names} />
            </td>
            <td data-label="Outcome">
              <span className={`badge ${event.outcome}`}>
                {event.outcome} {event.status}
              </span>
            </td>
            <td data-label="Ray id">
              <CopyId id={event.ray_id} what="ray id" />
            </td>
          </tr>
        ))}
      </Table>
      {pager}
    </>
  );
}

function Actor({ actor }: { actor: AuditEvent['actor'] }) {
  if (actor.kind === 'person') return <strong>{actor.email ?? 'A person'}</strong>;
  if (actor.kind === 'operator') return <strong>The operator</strong>;
  const kind =
    actor.kind === 'cloud_token'
      ? 'A cloud token'
      : actor.kind === 'lobby_token'
        ? 'A lobby token'
        : 'A reporter token';
  if (actor.token_id === undefined) return <strong>{kind}</strong>;
  return (
    <strong>
      {kind} (<span title={actor.token_id}>{actor.token_id.slice(0, 8)}</span>
      <CopyButton value={actor.token_id} what="token id" />)
    </strong>
  );
}

/** The event in words; each id by its name (linked) where the page knows it, else short with a copy button. */
function Sentence({ event, names }: { event: AuditEvent; names: AuditNames | undefined }) {
  return (
    <>
      {auditSentence(event).map((part, i) => {
        // The parts of one sentence never move: their place is their key.
        const key = `${i}`;
        if ('text' in part) return <span key={key}>{part.text}</span>;
        return <Named key={key} part={part} names={names} />;
      })}
    </>
  );
}

function Named({ part, names }: { part: Extract<Part, { kind: string }>; names: AuditNames | undefined }) {
  const known = names?.(part.kind, part.id);
  if (known === undefined)
    return (
      <span className="named">
        <span className="mono" title={part.id}>
          {part.id.slice(0, 8)}
        </span>
        <CopyButton value={part.id} what={`${part.kind} id`} />
      </span>
    );
  if (known.to === undefined) return <strong>{known.label}</strong>;
  return <Link to={known.to}>{known.label}</Link>;
}
