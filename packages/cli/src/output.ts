import { terminalSafe } from './terminal-text.js';

/** Machine output: one JSON document per line on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Text for people, its control characters escaped (terminal-text.ts) unless --raw. */
export function printLine(text = ''): void {
  process.stdout.write(`${terminalSafe(text)}\n`);
}

/** Messages for people that are not the command's output (progress, hints): stderr, so stdout stays clean. */
export function note(text: string): void {
  process.stderr.write(`${terminalSafe(text)}\n`);
}

/** A plain text table: a header row, then the rows, columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** Prints `value` as JSON with --json, else what `human` makes of it. */
export function output<T>(json: boolean, value: T, human: (value: T) => string): void {
  if (json) printJson(value);
  else printLine(human(value));
}
