import { type FormEvent, useState } from 'react';
import {
  type Build,
  type Environment,
  parseTagLines,
  tagLines,
  usePatchBuildTags,
} from '../../../api/builds';
import { ErrorMessage } from '../../../components/status';

/**
 * Edits a build's tags, under its row. The service merges tags (a key left out keeps its value) and takes
 * each exclusive key off every other build of the namespace, so that key names this build alone.
 */
export function TagEditor({ build, env, onDone }: { build: Build; env: Environment; onDone: () => void }) {
  const [text, setText] = useState(() => tagLines(build.tags));
  const [exclusive, setExclusive] = useState<ReadonlySet<string>>(new Set());
  const [problem, setProblem] = useState<string>();
  const patch = usePatchBuildTags(env);
  const parsed = parseTagLines(text);
  const keys = 'tags' in parsed ? Object.keys(parsed.tags) : [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if ('problem' in parsed) {
      setProblem(`Tags: ${parsed.problem}.`);
      return;
    }
    setProblem(undefined);
    const chosen = [...exclusive].filter((k) => keys.includes(k));
    patch.mutate(
      {
        buildId: build.id,
        body: { tags: parsed.tags, ...(chosen.length > 0 ? { exclusive_tags: chosen } : {}) },
      },
      { onSuccess: onDone },
    );
  };

  return (
    <form className="tag-editor stack" onSubmit={submit} aria-label={`Tags of ${build.name}`}>
      <label>
        Tags of {build.name}
        <span className="fine">One key=value a line. Tags are merged: a tag left out keeps its value.</span>
        <textarea
          rows={Math.min(Math.max(keys.length + 1, 3), 10)}
          value={text}
          spellCheck={false}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      {keys.length > 0 && (
        <fieldset>
          <legend>Exclusive tags</legend>
          <p className="fine">An exclusive tag is taken off every other build of this namespace.</p>
          <div className="checks">
            {keys.map((key) => (
              <label key={key} className="check">
                <input
                  type="checkbox"
                  checked={exclusive.has(key)}
                  onChange={(event) => {
                    const next = new Set(exclusive);
                    if (event.target.checked) next.add(key);
                    else next.delete(key);
                    setExclusive(next);
                  }}
                />
                <span>
                  <span className="visually-hidden">Exclusive: </span>
                  <span className="mono">{key}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {problem !== undefined && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
      {patch.isError && <ErrorMessage error={patch.error} title="Could not save the tags" />}
      <div className="actions">
        <button type="submit" disabled={patch.isPending}>
          {patch.isPending ? 'Saving…' : 'Save tags'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
