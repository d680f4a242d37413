import { useState } from 'react';
import { LIMITS, proposeId } from '../../../api/start';
import { useCreateNamespace, ValidationRefusal } from '../../../api/versions';
import { useGameContext } from '../../../components/GameLayout';
import { ErrorMessage } from '../../../components/status';
import './versions.css';

type Field = 'display_name' | 'name_id';

/** "New namespace" (members and above): a name, a name id and the version it runs first. */
export function NewNamespaceForm() {
  const { gameId, game } = useGameContext();
  const create = useCreateNamespace(gameId);
  const [displayName, setDisplayName] = useState('');
  const [typedId, setTypedId] = useState('');
  const [versionId, setVersionId] = useState('');
  const [problems, setProblems] = useState<Partial<Record<Field, string[]>>>({});
  const [done, setDone] = useState<string | undefined>(undefined);
  // The name id follows the display name (as a new team's or game's does) until the person types one.
  const nameId = typedId === '' ? proposeId(displayName, LIMITS.gameNameId) : typedId;
  // What a new namespace most likely runs is what was written last; ids are UUIDv7, time-ordered, so they
  // break a tie of two versions made in the same millisecond.
  const newest = game.versions.reduce<(typeof game.versions)[number] | undefined>((best, v) => {
    if (best === undefined) return v;
    const later =
      v.create_ts === best.create_ts ? v.version_id > best.version_id : v.create_ts > best.create_ts;
    return later ? v : best;
  }, undefined);
  const version = versionId === '' ? newest?.version_id : versionId;

  if (game.versions.length === 0) {
    return <p className="fine">A namespace runs a version: create a version first.</p>;
  }
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    // The service checks both names (the contract's rules, and a name id no other namespace has) and says
    // which field is wrong: the overview does not load the contract for a form most visits never use.
    setProblems({});
    if (version === undefined) return;
    // Never an empty name: the service would only answer what is plain here already.
    const missing: Partial<Record<Field, string[]>> = {};
    if (displayName.trim() === '') missing.display_name = ['Give the namespace a name.'];
    if (nameId === '') missing.name_id = ['Give the namespace a name id: a-z, 0-9 and “-”.'];
    if (Object.keys(missing).length > 0) {
      setProblems(missing);
      return;
    }
    create.mutate(
      { display_name: displayName.trim(), name_id: nameId, version_id: version },
      {
        onSuccess: () => {
          setDone(`Namespace ${displayName} created.`);
          setDisplayName('');
          setTypedId('');
        },
        onError: (error) => {
          // The service names the field it refuses (a name id another namespace has, say): show it there.
          if (!(error instanceof ValidationRefusal)) return;
          const answered: Partial<Record<Field, string[]>> = {};
          for (const item of error.errors) {
            const field: Field | undefined =
              item.path[0] === 'name-id'
                ? 'name_id'
                : item.path[0] === 'display-name'
                  ? 'display_name'
                  : undefined;
            if (field !== undefined) answered[field] = [...(answered[field] ?? []), item.message];
          }
          setProblems(answered);
        },
      },
    );
  };
  return (
    <form
      className="stack new-namespace"
      onSubmit={submit}
      noValidate
      aria-labelledby="new-namespace-heading"
    >
      <h3 id="new-namespace-heading">New namespace</h3>
      <div className="inline-form">
        <NameField
          field="display_name"
          label="Display name"
          value={displayName}
          onChange={setDisplayName}
          problems={problems.display_name}
          help="Such as Staging; at most 24 bytes."
        />
        <NameField
          field="name_id"
          label="Name id"
          value={nameId}
          onChange={setTypedId}
          problems={problems.name_id}
          help={
            <>
              Such as <span className="mono">staging</span>: 1 to 16 of a-z, 0-9 and “-”.
            </>
          }
        />
        <div className="field">
          <label>
            Version
            <select
              value={version}
              onChange={(event) => setVersionId(event.target.value)}
              aria-describedby="new-namespace-version-help"
            >
              {game.versions.map((v) => (
                <option key={v.version_id} value={v.version_id}>
                  {v.display_name}
                </option>
              ))}
            </select>
          </label>
          <span id="new-namespace-version-help" className="fine">
            What it runs first.
          </span>
        </div>
      </div>
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create namespace'}
        </button>
        <p role="status" className="done">
          {done}
        </p>
      </div>
      {create.isError && <ErrorMessage error={create.error} title="Could not create the namespace" />}
    </form>
  );
}

/** A text field with its help and, once the service refused it, its problems, all described to a screen reader. */
function NameField({
  field,
  label,
  value,
  onChange,
  problems,
  help,
}: {
  field: Field;
  label: string;
  value: string;
  onChange(value: string): void;
  problems: string[] | undefined;
  help: React.ReactNode;
}) {
  const helpId = `new-namespace-${field}-help`;
  const problemsId = `new-namespace-${field}-problems`;
  return (
    <div className="field">
      <label>
        {label}
        <input
          value={value}
          onChange={(event) => onChange(event.target.value)}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          aria-invalid={problems !== undefined}
          aria-describedby={problems === undefined ? helpId : `${helpId} ${problemsId}`}
        />
      </label>
      <span id={helpId} className="fine">
        {help}
      </span>
      {problems !== undefined && (
        <ul id={problemsId} className="problems">
          {problems.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
