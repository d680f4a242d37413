/**
 * Keys of a version configuration that interface 2.9 does not know. The schema lets them through (bodies
 * of other operations ignore unknown fields), but in a configuration a misspelt key silently means "not
 * set": `game_mode` for `game_modes` would validate as "no game modes". So each one is reported, at every
 * level, by walking the configuration beside VersionConfigSchema itself, so the walk never falls behind the
 * schema. Objects whose members the interface leaves open (`kv`, the engine objects) are marked in the
 * schema with `additionalProperties: true` and not looked into. Pure, like the validator.
 */
import type { ValidationErrorItem } from '../errors.js';
import { quote } from '../names.js';
import { VersionConfigSchema } from './schema.js';

interface SchemaNode {
  type?: unknown;
  anyOf?: readonly SchemaNode[];
  properties?: Readonly<Record<string, SchemaNode>>;
  patternProperties?: Readonly<Record<string, SchemaNode>>;
  additionalProperties?: unknown;
  items?: SchemaNode;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The member of a union (`X | null`) that describes an object, or the node itself. */
function objectNode(node: SchemaNode): SchemaNode | undefined {
  if (node.type === 'object') return node;
  return node.anyOf?.find((member) => member.type === 'object');
}

function arrayNode(node: SchemaNode): SchemaNode | undefined {
  if (node.type === 'array') return node;
  return node.anyOf?.find((member) => member.type === 'array');
}

/** Edit distance, for "did you mean"; keys are short (at most a few dozen characters), so O(n·m) is fine. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known key a person most likely meant: same letters up to case and `-`/`_`, or a couple of typos. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const normal = (k: string) => k.toLowerCase().replace(/-/g, '_');
  const exact = known.find((k) => normal(k) === normal(key));
  if (exact !== undefined) return exact;
  if (key.length > 64) return undefined;
  let best: { key: string; d: number } | undefined;
  for (const candidate of known) {
    const d = distance(normal(key), candidate);
    if (
      d <= Math.max(1, Math.min(3, Math.floor(candidate.length / 3))) &&
      (best === undefined || d < best.d)
    ) {
      best = { key: candidate, d };
    }
  }
  return best?.key;
}

function unknownKeyMessage(key: string, at: string, known: readonly string[]): string {
  const head = `unknown key ${quote(key)} in ${at}`;
  const guess = closestKey(key, known);
  if (guess !== undefined) return `${head}; did you mean "${guess}"?`;
  return `${head}; the keys it takes are ${known.join(', ')}`;
}

function walk(
  node: SchemaNode,
  value: unknown,
  path: string[],
  at: string,
  out: ValidationErrorItem[],
): void {
  if (Array.isArray(value)) {
    const items = arrayNode(node)?.items;
    if (items !== undefined) {
      value.forEach((item, i) => {
        walk(items, item, [...path, String(i)], `${at}.${i}`, out);
      });
    }
    return;
  }
  if (!isObject(value)) return;
  const object = objectNode(node);
  if (object === undefined || object.additionalProperties === true) return;
  const keys = Object.keys(value).sort();
  const members =
    object.patternProperties === undefined ? undefined : Object.values(object.patternProperties)[0];
  if (members !== undefined) {
    // A map of user-chosen keys: every key is allowed, its value is walked.
    for (const key of keys) walk(members, value[key], [...path, `*${key}*`], `${at}.${key}`, out);
    return;
  }
  const properties = object.properties ?? {};
  const known = Object.keys(properties);
  for (const key of keys) {
    // Own keys only: "constructor" or "toString" are not members of the schema's properties.
    const member = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (member === undefined) {
      out.push({ path: [...path, `*${key}*`, 'unknown-key'], message: unknownKeyMessage(key, at, known) });
    } else {
      walk(member, value[key], [...path, key.replace(/_/g, '-')], `${at}.${key}`, out);
    }
  }
}

/**
 * Every key of `config` that the interface does not define, in a stable order (keys sorted at each level,
 * depth first). The path is the place in kebab-case (`config.matchmaker`), then the key in stars, then
 * `unknown-key`: `["config", "matchmaker", "*game_mode*", "unknown-key"]`.
 */
export function unknownConfigKeys(config: unknown): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  walk(VersionConfigSchema as SchemaNode, config, ['config'], 'config', out);
  return out;
}
