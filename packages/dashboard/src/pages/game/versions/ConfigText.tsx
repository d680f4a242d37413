import { diffLines } from 'diff';
import { toYaml } from './yaml';

type Row = { kind: 'same' | 'added' | 'removed'; text: string } | { kind: 'skipped'; count: number };

/** Unchanged lines kept around each change; longer unchanged runs fold into one "N unchanged lines" row. */
const CONTEXT = 3;

/** The line diff of two texts, with long unchanged stretches folded. */
export function diffRows(before: string, after: string): { rows: Row[]; added: number; removed: number } {
  const lines: Exclude<Row, { kind: 'skipped' }>[] = [];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const texts = part.value.endsWith('\n') ? part.value.slice(0, -1).split('\n') : part.value.split('\n');
    for (const text of texts) lines.push({ kind, text });
  }
  const rows: Row[] = [];
  let i = 0;
  while (i < lines.length) {
    let end = i;
    while (end < lines.length && lines[end]?.kind === 'same') end++;
    const run = end - i;
    const keepHead = i === 0 ? 0 : CONTEXT;
    const keepTail = end === lines.length ? 0 : CONTEXT;
    if (run > keepHead + keepTail + 1) {
      rows.push(...lines.slice(i, i + keepHead));
      rows.push({ kind: 'skipped', count: run - keepHead - keepTail });
      rows.push(...lines.slice(end - keepTail, end));
    } else rows.push(...lines.slice(i, end));
    while (end < lines.length && lines[end]?.kind !== 'same') rows.push(lines[end++] as Row);
    i = end;
  }
  return {
    rows,
    added: lines.filter((l) => l.kind === 'added').length,
    removed: lines.filter((l) => l.kind === 'removed').length,
  };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A config as YAML, read-only, in a region that scrolls sideways (named by its section's heading). */
export function ConfigYaml({ config, labelledBy }: { config: unknown; labelledBy: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1)
    <section className="code-block" tabIndex={0} aria-labelledby={labelledBy}>
      <pre>{toYaml(config)}</pre>
    </section>
  );
}

/**
 * Two configs as YAML, `before` → `after` line by line. Added and removed lines carry a sign and words
 * for a screen reader, not a colour alone.
 */
export function ConfigDiff({
  before,
  after,
  beforeName,
  afterName,
  labelledBy,
}: {
  before: unknown;
  after: unknown;
  beforeName: string;
  afterName: string;
  labelledBy: string;
}) {
  const { rows, added, removed } = diffRows(toYaml(before), toYaml(after));
  if (added === 0 && removed === 0) {
    return <p className="diff-summary">The configurations are the same.</p>;
  }
  return (
    <>
      <p className="diff-summary">
        {plural(added, 'line')} added, {plural(removed, 'line')} removed: lines marked{' '}
        <span className="mono">−</span> are only in {beforeName}, lines marked <span className="mono">+</span>{' '}
        only in {afterName}.
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1) */}
      <section className="diff" aria-labelledby={labelledBy} tabIndex={0}>
        {rows.map((row, i) =>
          row.kind === 'skipped' ? (
            // Rows are positions in one rendering of one diff: the index is their identity.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <div key={i} className="diff-line skipped">
              <span className="sign" aria-hidden="true">
                ⋯
              </span>
              {plural(row.count, 'unchanged line')}
            </div>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <div key={i} className={`diff-line ${row.kind}`}>
              <span className="sign" aria-hidden="true">
                {row.kind === 'added' ? '+' : row.kind === 'removed' ? '−' : ' '}
              </span>
              {row.kind !== 'same' && (
                <span className="visually-hidden">{row.kind === 'added' ? 'Added: ' : 'Removed: '}</span>
              )}
              <span>{row.text}</span>
            </div>
          ),
        )}
      </section>
    </>
  );
}
