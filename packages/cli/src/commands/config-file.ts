import { readFileSync } from 'node:fs';
import type { ValidationErrorItem } from '@gcm/contract';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';
import { UsageError } from '../context.js';

/** A version config file read from disk: its value, and where each of its nodes is. */
export interface ConfigFile {
  path: string;
  value: unknown;
  /** Line and column (1-based) of the node at a validation path, or of the deepest part of it found. */
  locate(path: readonly string[]): { line: number; column: number } | undefined;
}

/** The largest config file read: far above any real one (the service caps a body at 1 MiB). */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * YAML or JSON (JSON is YAML, so one parser reads both and knows every node's place). Syntax errors are
 * reported with their line and column and end the command.
 */
export function loadConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (text.length > MAX_BYTES)
    throw new UsageError(`${file} is over ${MAX_BYTES} bytes: not a version config`);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const [first] = doc.errors;
    const offset = first?.pos[0];
    const at = offset === undefined ? undefined : lineCounter.linePos(offset);
    throw new UsageError(
      `${file}${at === undefined ? '' : `:${at.line}:${at.col}`}: ${first?.message.split('\n')[0] ?? 'not valid YAML'}`,
    );
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  const position = (node: Node | null | undefined) => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return {
    path: file,
    value,
    locate(segments) {
      let node: Node | null | undefined = doc.contents;
      let found = position(node);
      const rest =
        segments[0] === 'config' && !(isMap(node) && node.has('config')) ? segments.slice(1) : segments;
      for (const [index, raw] of rest.entries()) {
        // The last segment names the problem (`port-out-of-range`); its first word is often the key at fault.
        const key =
          index === rest.length - 1 && !raw.startsWith('*')
            ? (raw.split('-')[0] ?? raw)
            : raw.replace(/^\*(.*)\*$/, '$1');
        let next: unknown;
        if (isMap(node)) {
          const candidates = [key, key.replace(/-/g, '_')];
          const find = (map: YAMLMap) =>
            map.items.find((item) => isScalar(item.key) && candidates.includes(String(item.key.value)));
          // A rule's path may skip a level the file has (ports under `docker` or `container`): look one down.
          const pair =
            find(node) ??
            node.items
              .map((item) => (isMap(item.value) ? find(item.value as YAMLMap) : undefined))
              .find((inner) => inner !== undefined);
          // A key that is the problem itself (unknown, or a map key): point at the key.
          if (pair !== undefined && raw.startsWith('*')) found = position(pair.key as Node) ?? found;
          next = pair?.value;
        } else if (isSeq(node) && /^\d+$/.test(key)) {
          next = node.items[Number(key)];
        }
        if (next === undefined || next === null || typeof next !== 'object') break;
        node = next as Node;
        if (!raw.startsWith('*')) found = position(node) ?? found;
      }
      return found;
    },
  };
}

/** `file:line:column: path: message`, as compilers print, so editors can jump to it. */
export function describeProblem(file: ConfigFile, problem: ValidationErrorItem): string {
  const at = file.locate(problem.path);
  return `${file.path}${at === undefined ? '' : `:${at.line}:${at.column}`}: ${problem.path.join('.')}: ${problem.message}`;
}
