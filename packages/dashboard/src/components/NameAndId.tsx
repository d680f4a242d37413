import { useId, useState } from 'react';
import { type Field, LIMITS, proposeId } from '../api/start';

/**
 * A name and the id proposed from it (a team's slug, a game's name id): the id follows the name as it is
 * typed until the person edits the id themselves; emptied, it follows the name again.
 */
export function useNameAndId(idMax: number) {
  const [name, setNameOnly] = useState('');
  const [id, setIdOnly] = useState('');
  const [idEdited, setIdEdited] = useState(false);
  return {
    name,
    id,
    setName: (value: string) => {
      setNameOnly(value);
      if (!idEdited) setIdOnly(proposeId(value, idMax));
    },
    setId: (value: string) => {
      setIdOnly(value);
      setIdEdited(value !== '');
    },
  };
}

interface FieldProps {
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  maxLength: number;
  /** The service's words about this field, from its last refusal. */
  error: string | undefined;
  mono?: boolean;
}

/** A labelled input with its hint and, after a refusal, the service's message right under it. */
function TextField({ label, hint, value, onChange, maxLength, error, mono = false }: FieldProps) {
  const base = useId();
  const hintId = `${base}-hint`;
  const errorId = `${base}-error`;
  return (
    <div className="field">
      <label>
        {label}
        <input
          required
          maxLength={maxLength}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          className={mono ? 'mono' : undefined}
          spellCheck={mono ? false : undefined}
          autoCapitalize={mono ? 'none' : undefined}
          autoComplete="off"
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={error === undefined ? hintId : `${errorId} ${hintId}`}
        />
      </label>
      {error !== undefined && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
      <p id={hintId} className="fine">
        {hint}
      </p>
    </div>
  );
}

interface Props {
  pair: ReturnType<typeof useNameAndId>;
  labels: Record<Field, string>;
  hints: Record<Field, string>;
  max: Record<Field, number>;
  errors: Partial<Record<Field, string>>;
}

export function NameAndId({ pair, labels, hints, max, errors }: Props) {
  const fields: readonly Field[] = ['name', 'id'];
  return fields.map((field) => (
    <TextField
      key={field}
      label={labels[field]}
      hint={hints[field]}
      value={pair[field]}
      onChange={field === 'name' ? pair.setName : pair.setId}
      maxLength={max[field]}
      error={errors[field]}
      // Ids are read letter by letter: in the monospace face, and never auto-corrected.
      mono={field === 'id'}
    />
  ));
}

/**
 * A team's name and slug, as making a team and the first-run setup ask for them. `slugHint` words the slug's
 * hint where the page needs it shorter; `errors` are the service's, by field.
 */
export function TeamNameFields({
  pair,
  errors,
  slugHint = `How the team is named in addresses and by the command-line tool: up to ${LIMITS.teamSlug} of a-z, 0-9 and -, unique. Proposed from the name; you may change it.`,
}: {
  pair: ReturnType<typeof useNameAndId>;
  errors: Partial<Record<Field, string>>;
  slugHint?: string;
}) {
  return (
    <NameAndId
      pair={pair}
      labels={{ name: 'Team name', id: 'Slug' }}
      hints={{ name: `Up to ${LIMITS.teamName} characters, shown to the team's members.`, id: slugHint }}
      max={{ name: LIMITS.teamName, id: LIMITS.teamSlug }}
      errors={errors}
    />
  );
}
