import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { LIMITS, teamErrorField, useCreateTeam } from '../api/start';
import { useTitle } from '../components/Layout';
import { TeamNameFields, useNameAndId } from '../components/NameAndId';
import { ErrorMessage } from '../components/status';
import './start.css';

/** `/teams/new`: make a team, which the person then owns; on success, its (empty) games page. */
export function NewTeamPage() {
  useTitle('Make a team');
  const navigate = useNavigate();
  const pair = useNameAndId(LIMITS.teamSlug);
  const create = useCreateTeam();
  const field = teamErrorField(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: pair.name.trim(), slug: pair.id },
      { onSuccess: (team) => navigate(`/teams/${team.id}`) },
    );
  };
  return (
    <div className="narrow">
      <h1>Make a team</h1>
      <p className="lead">
        A team owns games. You become its owner: you can invite people, give them roles and make games.
      </p>
      <form onSubmit={submit} className="stack">
        <TeamNameFields
          pair={pair}
          errors={field === undefined || create.error === null ? {} : { [field]: create.error.message }}
        />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Making the team…' : 'Make team'}
          </button>
          <Link to="/">Cancel</Link>
        </div>
      </form>
      {create.isError && field === undefined && (
        <ErrorMessage error={create.error} title="Could not make the team" />
      )}
    </div>
  );
}
