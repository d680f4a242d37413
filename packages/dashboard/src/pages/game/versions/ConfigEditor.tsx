import { forwardRef, useImperativeHandle, useRef } from 'react';
import type { Problem } from './check';

export interface ConfigEditorHandle {
  /** Puts the cursor at a problem's place, in view. */
  jumpTo(problem: Problem): void;
}

interface Props {
  id: string;
  value: string;
  onChange(value: string): void;
  problems: readonly Problem[];
  /** Ids of what describes the text area: its help and the list of its problems. */
  describedBy: string;
}

/**
 * A YAML text area with line numbers beside it (for the line numbers the problems name), each line with a
 * problem marked there by a sign as well as a colour. Lines are not wrapped, so a number is one line.
 */
export const ConfigEditor = forwardRef<ConfigEditorHandle, Props>(function ConfigEditor(
  { id, value, onChange, problems, describedBy },
  ref,
) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  useImperativeHandle(ref, () => ({
    jumpTo(problem) {
      const text = area.current;
      if (text === null) return;
      const offset = problem.offset ?? 0;
      text.focus();
      text.setSelectionRange(offset, offset);
      const lineHeight = Number.parseFloat(getComputedStyle(text).lineHeight) || 20;
      const line = (problem.line ?? 1) - 1;
      text.scrollTop = Math.max(0, line * lineHeight - text.clientHeight / 3);
      if (gutter.current !== null) gutter.current.scrollTop = text.scrollTop;
    },
  }));
  const lineCount = value.split('\n').length;
  const marked = new Set(problems.map((p) => p.line).filter((line) => line !== undefined));
  return (
    <div className="editor">
      <div className="editor-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: lineCount }, (_, i) => {
          const line = i + 1;
          return (
            <span key={line} className={marked.has(line) ? 'marked' : undefined}>
              {marked.has(line) ? '! ' : ''}
              {line}
            </span>
          );
        })}
      </div>
      <textarea
        id={id}
        ref={area}
        className="editor-text"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onScroll={(event) => {
          if (gutter.current !== null) gutter.current.scrollTop = event.currentTarget.scrollTop;
        }}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        autoCorrect="off"
        wrap="off"
        rows={Math.min(Math.max(lineCount + 1, 14), 32)}
        aria-invalid={problems.length > 0}
        aria-describedby={describedBy}
      />
    </div>
  );
});

/** The list of problems, each naming its place; choosing one moves the cursor there. */
export function ProblemList({
  id,
  problems,
  onJump,
}: {
  id: string;
  problems: readonly Problem[];
  onJump(problem: Problem): void;
}) {
  if (problems.length === 0) return <div id={id} hidden />;
  return (
    <ul id={id} className="problems">
      {problems.map((problem, i) => (
        // Problems have no identity of their own; the list is rebuilt whole on every check.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <li key={i}>
          <button type="button" className="link" onClick={() => onJump(problem)}>
            {problem.line === undefined
              ? problem.field === 'display_name'
                ? 'Name'
                : 'Config'
              : `Line ${problem.line}, column ${problem.column}`}
          </button>{' '}
          <code>{problem.where}</code>
          {problem.source === 'service' && <span className="tag">service</span>}
          <span className="problem-message">{problem.message}</span>
        </li>
      ))}
    </ul>
  );
}
