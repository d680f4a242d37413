import { readFileSync } from 'node:fs';
import type { ValidationErrorItem } from '@gcm/contract';
import { locateConfigPath, yamlConfigNodes } from '@gcm/contract/locate';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { UsageError } from '../context.js';
import { unreadableFile } from '../files.js';

/** A problem at a place in a file: a line and column (1-based) when known. */
export interface PlacedProblem extends ValidationErrorItem {
  line?: number;
  column?: number;
}

/** A version config file read from disk: its value, and where each of its nodes is. */
export interface ConfigFile {
  path: string;
  /** Undefined when the file is not valid YAML (`syntax` says where). */
  value: unknown;
  /** Its YAML syntax errors, each at its line and column: a problem in the file like any other. */
  syntax: PlacedProblem[];
  /** Line and column (1-based) of the node at a validation path, or of the deepest part of it found. */
  locate(path: readonly string[]): { line: number; column: number } | undefined;
}

const NODES = yamlConfigNodes<Node>({ isMap, isSeq, isScalar });

/** The largest config file read: far above any real one (the service caps a body at 1 MiB). */
const MAX_BYTES = 4 * 1024 * 1024;

/** Syntax errors reported at most: the first few say where to look; the rest follow from them. */
const MAX_SYNTAX_ERRORS = 20;

/**
 * YAML or JSON (JSON is YAML, so one parser reads both and knows every node's place). Syntax errors are
 * returned as the file's problems, each with its line and column; a file that cannot be read at all is a
 * usage error.
 */
export function loadConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      unreadableFile(file, err),
      '`gcm init` writes a gcm.yaml to start from; --config (or the FILE argument) names another',
    );
  }
  if (text.length > MAX_BYTES)
    throw new UsageError(`${file} is over ${MAX_BYTES} bytes: not a version config`);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const syntax = doc.errors.slice(0, MAX_SYNTAX_ERRORS).map((error): PlacedProblem => {
      const offset = error.pos[0];
      const { line, col } = lineCounter.linePos(offset);
      return {
        path: [],
        message: `not valid YAML: ${error.message.split('\n')[0] ?? 'a syntax error'}`,
        line,
        column: col,
      };
    });
    return { path: file, value: undefined, syntax, locate: () => undefined };
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
    syntax: [],
    locate(segments) {
      const root = doc.contents ?? undefined;
      return root === undefined ? undefined : position(locateConfigPath(root, segments, NODES).node);
    },
  };
}

/** `file:line:column: path: message`, as compilers print, so editors can jump to it. */
export function describeProblem(file: ConfigFile, problem: PlacedProblem): string {
  const at =
    problem.line === undefined
      ? file.locate(problem.path)
      : { line: problem.line, column: problem.column ?? 1 };
  const where = problem.path.length === 0 ? '' : `${problem.path.join('.')}: `;
  return `${file.path}${at === undefined ? '' : `:${at.line}:${at.column}`}: ${where}${problem.message}`;
}
