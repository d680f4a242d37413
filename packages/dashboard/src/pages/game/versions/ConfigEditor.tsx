import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import type { Problem } from './check';

export interface ConfigEditorHandle {
  /** Puts the cursor at a problem's place, in view. */
  jumpTo(problem: Problem): void;
  /** Puts a build id at the cursor's image_id (its value replaced), else the first one, else at the cursor. */
  insertImageId(buildId: string): void;
}

interface Props {
  id: string;
  /** The id of the element that names the editor (its label). */
  labelledBy: string;
  value: string;
  onChange(value: string): void;
  problems: readonly Problem[];
  /** Ids of what describes the editor: its help and the list of its problems. */
  describedBy: string;
}

/** A problem as CodeMirror's lint gutter shows it: the whole node it is about, or its first character. */
function diagnosticsOf(problems: readonly Problem[], length: number): Diagnostic[] {
  return problems.flatMap((problem) => {
    if (problem.offset === undefined) return [];
    const from = Math.min(problem.offset, length);
    const to = Math.min(Math.max(problem.end ?? from, from), length);
    return [{ from, to, severity: 'error', message: problem.message, source: problem.source }];
  });
}

const IMAGE_ID_LINE = /^(\s*(?:-\s+)?image_id\s*:)(.*)$/;

/**
 * The config's YAML in CodeMirror 6: highlighted, with line numbers and the problems in its lint gutter
 * (the same problems the list under it names, from the contract's validator and the service). Its own
 * styles go in a <style> element marked with the page's nonce; the highlighting is by class (`tok-*`),
 * coloured in versions.css for light and dark.
 */
export const ConfigEditor = forwardRef<ConfigEditorHandle, Props>(function ConfigEditor(
  { id, labelledBy, value, onChange, problems, describedBy },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const attributes = useRef(new Compartment());
  // The latest callback, for the listener made once with the view.
  const changed = useRef(onChange);
  changed.current = onChange;

  const contentAttributes = (invalid: boolean) =>
    EditorView.contentAttributes.of({
      id,
      'aria-labelledby': labelledBy,
      'aria-describedby': describedBy,
      'aria-invalid': String(invalid),
      spellcheck: 'false',
      autocapitalize: 'off',
      autocorrect: 'off',
    });

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; later props are dispatched below
  useEffect(() => {
    if (host.current === null) return;
    const made = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          // The page's style nonce (the service sends one with each page): CodeMirror's <style> element
          // carries it, and the CSP admits no other inline style.
          EditorView.cspNonce.of(
            document.querySelector<HTMLMetaElement>('meta[name="gcm-style-nonce"]')?.content ?? '',
          ),
          lineNumbers(),
          highlightActiveLineGutter(),
          lintGutter(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          yaml(),
          syntaxHighlighting(classHighlighter),
          EditorState.tabSize.of(2),
          // Wrapped, and as tall as its text: no region of its own to scroll, which a keyboard could not
          // reach (the text takes focus, not the scroller). A wrapped line keeps its one number.
          EditorView.lineWrapping,
          attributes.current.of(contentAttributes(problems.length > 0)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = made;
    return () => {
      made.destroy();
      view.current = null;
    };
  }, []);

  // A value from outside (the version it starts from): replaces the text, unless it is the text already.
  useEffect(() => {
    const v = view.current;
    if (v === null || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  const invalid = problems.length > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: contentAttributes reads exactly these
  useEffect(() => {
    view.current?.dispatch({
      effects: attributes.current.reconfigure(contentAttributes(invalid)),
    });
  }, [invalid, id, labelledBy, describedBy]);

  useEffect(() => {
    const v = view.current;
    if (v === null) return;
    v.dispatch(setDiagnostics(v.state, diagnosticsOf(problems, v.state.doc.length)));
  }, [problems]);

  useImperativeHandle(ref, () => ({
    jumpTo(problem) {
      const v = view.current;
      if (v === null) return;
      const at = Math.min(problem.offset ?? 0, v.state.doc.length);
      v.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: 'center' }) });
      v.focus();
    },
    insertImageId(buildId) {
      const v = view.current;
      if (v === null) return;
      const { doc, selection } = v.state;
      // The cursor's image_id line, else the first image_id of the config.
      let line = doc.lineAt(selection.main.head);
      if (!IMAGE_ID_LINE.test(line.text)) {
        for (let n = 1; n <= doc.lines; n++) {
          if (IMAGE_ID_LINE.test(doc.line(n).text)) {
            line = doc.line(n);
            break;
          }
        }
      }
      const match = IMAGE_ID_LINE.exec(line.text);
      const change =
        match === null
          ? { from: selection.main.from, to: selection.main.to, insert: buildId }
          : { from: line.from + (match[1]?.length ?? 0), to: line.to, insert: ` ${buildId}` };
      v.dispatch({ changes: change, selection: { anchor: change.from + change.insert.length } });
      v.focus();
    },
  }));

  return <div className="editor" ref={host} />;
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
