import type { FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { gameErrorFields, LIMITS, useCreateGame } from '../api/start';
import { NameAndId, useNameAndId } from '../components/NameAndId';
import { ErrorMessage } from '../components/status';
import './start.css';

/** The form on a team's games page that makes a game in it (its admins and owners); then opens the game. */
export function NewGameForm({ teamId }: { teamId: string }) {
  const navigate = useNavigate();
  const pair = useNameAndId(LIMITS.gameNameId);
  const create = useCreateGame();
  const fields = gameErrorFields(create.error);
  const elsewhere = create.isError && fields.name === undefined && fields.id === undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { display_name: pair.name.trim(), name_id: pair.id, team_id: teamId },
      { onSuccess: (made) => navigate(`/teams/${teamId}/games/${made.game_id}`) },
    );
  };
  return (
    <section className="new-game" aria-labelledby="new-game">
      <h2 id="new-game">New game</h2>
      <form onSubmit={submit} className="stack">
        <NameAndId
          pair={pair}
          labels={{ name: 'Display name', id: 'Name id' }}
          hints={{
            name: `Shown in lists: up to ${LIMITS.gameDisplayName} bytes.`,
            id: `How the command-line tool and the API name the game: up to ${LIMITS.gameNameId} of a-z, 0-9 and -, unique in the service. Proposed from the display name; you may change it.`,
          }}
          max={{ name: LIMITS.gameDisplayName, id: LIMITS.gameNameId }}
          errors={fields}
        />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Making the game…' : 'Make game'}
          </button>
        </div>
      </form>
      {elsewhere && <ErrorMessage error={create.error} title="Could not make the game" />}
    </section>
  );
}
