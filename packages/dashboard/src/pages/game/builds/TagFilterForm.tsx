import { type FormEvent, useState } from 'react';

/** The builds page's "Filter by tag" field: adds one key=value to the address's filters. */
export function TagFilterForm({ onAdd }: { onAdd: (key: string, value: string) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = text.trim();
    const eq = trimmed.indexOf('=');
    if (eq <= 0) {
      setProblem('Write the filter as key=value, e.g. channel=beta.');
      return;
    }
    setProblem(undefined);
    onAdd(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
    setText('');
  };
  return (
    <form className="tag-filter" onSubmit={submit} noValidate>
      <label>
        Filter by tag
        <input
          value={text}
          placeholder="key=value"
          autoComplete="off"
          aria-invalid={problem !== undefined}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit" className="secondary">
        Add filter
      </button>
      {problem !== undefined && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
