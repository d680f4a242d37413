import { readFileSync } from 'node:fs';
import { locateConfigPath, type ValidationErrorItem, yamlConfigNodes } from '@gcm/contract';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { UsageError } from '../context.js';

/** A version config file read from disk: its value, and where each of its nodes is. */
export interface ConfigFile {
  path: string;
  value: unknown;
  /** Line and column (1-based) of the node at a validation path, or of the deepest part of it found. */
  locate(path: readonly string[]): { line: number; column: number } | undefined;
}

const NODES = yamlConfigNodes<Node>({ isMap, isSeq, isScalar });

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
  const position = (node: Node) => {
    const offset = node.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return {
    path: file,
    value,
    locate(segments) {
      const root = doc.contents ?? undefined;
      return root === undefined ? undefined : position(locateConfigPath(root, segments, NODES).node);
    },
  };
}

/** `file:line:column: path: message`, as compilers print, so editors can jump to it. */
export function describeProblem(file: ConfigFile, problem: ValidationErrorItem): string {
  const at = file.locate(problem.path);
  return `${file.path}${at === undefined ? '' : `:${at.line}:${at.column}`}: ${problem.path.join('.')}: ${problem.message}`;
}
