/**
 * Wording shared by every reader of a JSON-schema validator's issues (Ajv in the service, TypeBox's
 * `Value.Errors` in the CLI and the dashboard): both report a union of literals as one `const` issue per
 * literal, each naming its `allowedValue`, which alone reads "must be equal to constant" and names none.
 */

/** The part of an Ajv or TypeBox issue these messages read. */
export interface SchemaIssue {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: unknown;
}

/** How much of a refused value a message repeats: enough to recognise it, not a pasted file. */
const SHOWN_MAX = 64;

/** A value as a message shows it: JSON, cut short. */
export function shownValue(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}…` : text;
}

/**
 * "must be one of tcp, udp; got "udpp"" when the issues at `instancePath` are a union of literals (or an
 * enum) the value matched none of; undefined otherwise (any other rule failed there).
 */
export function oneOfMessage(
  issues: readonly SchemaIssue[],
  instancePath: string,
  value: unknown,
): string | undefined {
  const allowed: unknown[] = [];
  for (const issue of issues) {
    if (issue.instancePath !== instancePath) continue;
    const params = (issue.params ?? {}) as { allowedValue?: unknown; allowedValues?: unknown };
    if (issue.keyword === 'const') allowed.push(params.allowedValue);
    else if (issue.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      allowed.push(...params.allowedValues);
    }
  }
  if (allowed.length === 0) return undefined;
  const names = [...new Set(allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))))];
  return `must be one of ${names.join(', ')}; got ${shownValue(value)}`;
}

/** The value at a JSON pointer (`/a/0/b`) below `root`; undefined where the path leads nowhere. */
export function valueAtPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
