import { errors } from '../errors.js';
import { textProblem } from '../lib/text.js';

/**
 * One rule for every request, on both stores: bodies nest at most MAX_JSON_DEPTH levels, and no text the
 * service is given holds control characters or unpaired surrogates. PostgreSQL refuses NUL in text and
 * JSON.stringify overflows the stack on deep nesting, so both are refused before any other work, naming
 * the field, instead of failing somewhere deep inside with a 500.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Scans the raw text, so a body nested a million deep costs one linear pass and never reaches JSON.parse
 * or a recursive walk.
 */
export function jsonNestingExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Dotted path of a field, as the validation errors name it (`config.kv.a`, `tags.0`). */
function fieldName(path: readonly (string | number)[]): string {
  return path.join('.');
}

/**
 * Walks a parsed body (depth already bounded by jsonNestingExceeds, so the recursion is too) and throws
 * API_BAD_BODY naming the first key or value with a forbidden character.
 */
export function assertCleanBody(value: unknown, path: (string | number)[] = []): void {
  if (typeof value === 'string') {
    const problem = textProblem(value, true);
    if (problem !== undefined) throw badField(path, problem);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertCleanBody(value[i], [...path, i]);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const problem = textProblem(key, false);
      if (problem !== undefined) {
        throw badField(path, `has a key that ${problem}`, `key ${JSON.stringify(key)}`);
      }
      assertCleanBody(item, [...path, key]);
    }
  }
}

function badField(path: (string | number)[], problem: string, what?: string) {
  const field = fieldName(path);
  const subject = field === '' ? 'request body' : `body field "${field}"`;
  return errors.badBody(`${subject} ${what === undefined ? problem : `${problem}: ${what}`}`, {
    field: field === '' ? null : field,
  });
}

/**
 * Path parameters and query values are single-line text: any control character (TAB, LF and CR too) is
 * refused before the route's schema or any query sees it.
 */
export function assertCleanRequestStrings(where: 'params' | 'querystring', values: unknown): void {
  if (typeof values !== 'object' || values === null) return;
  // Every request runs this: no entry arrays or one-value arrays, only the strings themselves.
  const record = values as Record<string, unknown>;
  for (const name in record) {
    if (!Object.hasOwn(record, name)) continue;
    const raw = record[name];
    if (Array.isArray(raw)) {
      for (const value of raw) assertCleanRequestString(where, name, value);
    } else {
      assertCleanRequestString(where, name, raw);
    }
  }
}

function assertCleanRequestString(where: 'params' | 'querystring', name: string, value: unknown): void {
  if (typeof value !== 'string') return;
  const problem = textProblem(value, false);
  if (problem === undefined) return;
  if (where === 'params') {
    throw errors.badParams(`path parameter "${name}" ${problem}`, { field: name });
  }
  throw errors.badQuery(`query parameter "${name}" ${problem}`, { field: name });
}
