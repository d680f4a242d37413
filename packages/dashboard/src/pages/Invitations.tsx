import { Link, useSearchParams } from 'react-router';
import {
  type InvitationDetail,
  type UserInvitation,
  useAnswerInvitation,
  useInvitation,
  useMyInvitations,
} from '../api/people';
import { useTitle } from '../components/Layout';
import { Empty, ErrorMessage, Loading, When } from '../components/status';
import '../components/people.css';

/**
 * `/invitations`: the signed-in person's pending invitations, to accept or decline. `?invitation=<id>` (the
 * link an admin or the mail gives) shows that one even before the person's email is proven, which better-auth
 * requires for the list.
 */
export function InvitationsPage() {
  useTitle('Invitations');
  const [params] = useSearchParams();
  const linked = params.get('invitation');
  const { query, verified, sessionPending } = useMyInvitations();
  const answer = useAnswerInvitation();

  let list: React.ReactNode;
  if (sessionPending || (verified && query.isPending)) list = <Loading what="your invitations" />;
  else if (!verified)
    list = (
      <Empty>
        <p>Your invitations are listed here once you have joined a team by an invitation link.</p>
        <p>Open the link in the invitation you were sent: it shows that invitation here to accept.</p>
      </Empty>
    );
  else if (query.isError) list = <ErrorMessage error={query.error} title="Could not load your invitations" />;
  else if (query.isSuccess) {
    const others = query.data.filter((i) => i.id !== linked);
    list =
      others.length === 0 ? (
        <Empty>
          <p>{linked === null ? 'No pending invitations.' : 'No other pending invitations.'}</p>
        </Empty>
      ) : (
        <ul className="invitation-cards" aria-label="Pending invitations">
          {others.map((i) => (
            <InvitationCard key={i.id} invitation={i} answer={answer} />
          ))}
        </ul>
      );
  }

  return (
    <>
      <h1>Invitations</h1>
      <p className="lead">Teams that invited you. Accepting one adds it to your teams.</p>
      {answer.isError && <ErrorMessage error={answer.error} title="Could not answer the invitation" />}
      {answer.isSuccess && (
        <p className="notice ok" role="status">
          {answer.variables.accept ? (
            <>
              You joined {answer.variables.team}.{' '}
              <Link to={`/teams/${answer.data.teamId}`}>Open its games</Link>
            </>
          ) : (
            <>You declined the invitation to {answer.variables.team}.</>
          )}
        </p>
      )}
      {linked !== null && <Linked id={linked} answer={answer} />}
      {linked !== null && <h2>Other invitations</h2>}
      {list}
    </>
  );
}

type Answer = ReturnType<typeof useAnswerInvitation>;

function Linked({ id, answer }: { id: string; answer: Answer }) {
  const invitation = useInvitation(id);
  const answered = answer.isSuccess && answer.variables.id === id;
  if (answered) return null;
  if (invitation.isPending) return <Loading what="the invitation" />;
  if (invitation.isError)
    return <ErrorMessage error={invitation.error} title="Could not open this invitation" />;
  return (
    <ul className="invitation-cards" aria-label="The linked invitation">
      <InvitationCard invitation={invitation.data} answer={answer} />
    </ul>
  );
}

function InvitationCard({
  invitation,
  answer,
}: {
  invitation: UserInvitation | InvitationDetail;
  answer: Answer;
}) {
  const team = invitation.organizationName;
  const busy = answer.isPending && answer.variables.id === invitation.id;
  return (
    <li>
      <h3>{team}</h3>
      <p className="fine">
        As <strong>{invitation.role}</strong>
        {'inviterEmail' in invitation && <> · from {invitation.inviterEmail}</>} · expires{' '}
        <When ts={invitation.expiresAt} />
      </p>
      <div className="row-actions">
        <button
          type="button"
          disabled={answer.isPending}
          aria-label={`Accept the invitation to ${team}`}
          onClick={() =>
            answer.mutate({ id: invitation.id, accept: true, team, teamId: invitation.organizationId })
          }
        >
          {busy && answer.variables.accept ? 'Accepting…' : 'Accept'}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={answer.isPending}
          aria-label={`Decline the invitation to ${team}`}
          onClick={() =>
            answer.mutate({ id: invitation.id, accept: false, team, teamId: invitation.organizationId })
          }
        >
          Decline
        </button>
      </div>
    </li>
  );
}
