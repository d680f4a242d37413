/**
 * fast-check arbitraries built from the JSON schemas of the OpenAPI document: values a schema accepts, and
 * values that are near or outside it (wrong types, empty and huge strings, NUL and other control
 * characters, lone surrogates, numbers at and beyond limits, very long arrays, nesting thousands deep,
 * unknown keys, `__proto__` and `constructor` keys). The fuzz suite sends them to every route.
 */
import fc from 'fast-check';

/** The subset of JSON Schema (OpenAPI 3.0 flavour) the service's schemas use, and a little more. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
}

/** JSON text written as is into the document: nesting too deep to build as objects, numbers JSON cannot hold. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Serialises a generated value; unlike JSON.stringify it keeps RawJson verbatim and own `__proto__` keys. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Field name → real values (ids of existing things), so generated requests reach past "not found". */
export type Pools = Readonly<Record<string, readonly unknown[]>>;

const I32 = 2 ** 31;

/** Integers in [min, max], beyond fc.integer's 32-bit range when the schema's range is wider. */
function integerIn(min: number, max: number): fc.Arbitrary<number> {
  if (min >= -I32 && max < I32) return fc.integer({ min, max });
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

function typesOf(schema: JsonSchema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

const TYPICAL_STRING = 24;

/**
 * Arbitraries are immutable, so one per pattern or length range serves every schema that has it: building
 * fc.stringMatching or fc.string tokenizes fast-check's list of troublesome strings against the characters
 * the arbitrary can make, and building them afresh for each field of each route was half the fuzz suite's CPU.
 */
const built = new Map<string, fc.Arbitrary<string>>();
function once(key: string, make: () => fc.Arbitrary<string>): fc.Arbitrary<string> {
  let arb = built.get(key);
  if (arb === undefined) {
    arb = make();
    built.set(key, arb);
  }
  return arb;
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const pattern = schema.pattern;
  if (pattern !== undefined) return once(`pattern ${pattern}`, () => fc.stringMatching(new RegExp(pattern)));
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') {
    return fc
      .date({
        min: new Date('1970-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? TYPICAL_STRING;
  const typicalMax = Math.max(minLength, Math.min(maxLength, TYPICAL_STRING));
  const typical = once(`string ${minLength} ${typicalMax}`, () =>
    fc.string({ minLength, maxLength: typicalMax }),
  );
  if (schema.maxLength === undefined) return typical;
  // At the limit exactly, counted in code points as ajv counts them (a wide character is one).
  return fc.oneof(
    { weight: 4, arbitrary: typical },
    { weight: 1, arbitrary: fc.constantFrom('a', '\u{1F600}').map((c) => c.repeat(maxLength)) },
  );
}

function validNumber(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  const min = schema.minimum ?? (exclusiveMin === undefined ? -Number.MAX_SAFE_INTEGER : exclusiveMin + 1);
  const max = schema.maximum ?? (exclusiveMax === undefined ? Number.MAX_SAFE_INTEGER : exclusiveMax - 1);
  const inRange = integer
    ? integerIn(Math.ceil(min), Math.floor(max))
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  // Every order of magnitude as often as any other: a uniform pick in [0, 2^53] is almost always huge.
  const low = Math.max(Math.ceil(min), 0);
  const magnitude = fc
    .integer({ min: 0, max: 53 })
    .chain((bits) => integerIn(low, Math.max(low, Math.min(Math.floor(max), 2 ** bits))));
  const arms = [
    { weight: 3, arbitrary: inRange },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  ];
  if (integer && low <= max) arms.push({ weight: 3, arbitrary: magnitude });
  return fc.oneof(...arms);
}

/** Values the schema accepts (its rules of shape; the service's own rules beyond the schema may still refuse). */
export function validArb(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const base = validArbNotNull(schema, depth);
  return schema.nullable === true
    ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: base })
    : base;
}

function validArbNotNull(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined) return fc.oneof(...choices.map((s) => validArb(s, depth)));
  if (schema.allOf?.[0] !== undefined) return validArb(schema.allOf[0], depth);
  const [type] = typesOf(schema);
  switch (type) {
    case 'string':
      return validString(schema);
    case 'integer':
      return validNumber(schema, true);
    case 'number':
      return validNumber(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validArb(schema.items ?? {}, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, depth > 4 ? 1 : 4)),
      });
    case 'object':
      return objectArb(schema, depth, (s) => validArb(s, depth + 1), false);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object of the schema's properties (each from `member`); the required ones present unless `loose`. */
function objectArb(
  schema: JsonSchema,
  depth: number,
  member: (s: JsonSchema, name: string) => fc.Arbitrary<unknown>,
  loose: boolean,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  // Deep in a big schema (version configs) only the required members, or generation never ends.
  const names = Object.keys(properties).filter((name) => depth < 5 || required.has(name));
  const model = Object.fromEntries(names.map((name) => [name, member(properties[name] ?? {}, name)]));
  const requiredKeys = loose ? [] : names.filter((name) => required.has(name));
  const known = fc.record(model, { requiredKeys });
  const extra = schema.additionalProperties;
  if (typeof extra !== 'object' || depth > 4) return known;
  const maxKeys = Math.min(schema.maxProperties ?? 3, 3);
  return fc
    .tuple(known, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), member(extra, '*'), { maxKeys }))
    .map(([k, more]) => ({ ...more, ...k }));
}

// ---------------------------------------------------------------------------------------------------------
// Values near or outside a schema
// ---------------------------------------------------------------------------------------------------------

const CONTROL = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));

/**
 * Any code point but a lone surrogate, as fast-check's 'binary' unit makes. That unit, built when this module
 * loads, maps all 1.1 million code points back to their indexes (3 s of CPU in every file that imports this).
 */
const ANY_CODE_POINT = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((c) => String.fromCodePoint(c < 0xd800 ? c : c + 0x800));

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(64),
  '\r\n',
  'a\r\nX-Injected: 1',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\uffff',
  '\u{10ffff}',
  '\u{1F600}',
  'é',
  'e\u0301',
  '../../etc/passwd',
  '%00',
  '%',
  '%zz',
  "' OR 1=1 --",
  '"; drop table games; --',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text itself is the probe (log4shell-style lookups)
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e400',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '01900000-0000-7000-8000-000000000000\u0000',
];

/** Strings a careless handler trips on: control characters, odd unicode, huge. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: ANY_CODE_POINT, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: CONTROL, minLength: 1, maxLength: 16 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 1_000, max: 300_000 }),
        fc.constantFrom('a', 'é', '\u{1F600}', '\u0000', '\ud800'),
      )
      .map(([n, c]) => c.repeat(n)),
  },
);

const NUMBER_EDGES: unknown[] = [
  -1,
  0,
  0.5,
  -0.5,
  2 ** 15,
  2 ** 31,
  2 ** 32,
  -(2 ** 31) - 1,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('-0'),
  new RawJson('1.0'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('1e-400'),
];

/** `[[[…]]]` or `{"a":{"a":…}}`, `depth` levels: built as text, since a parser must survive it. */
export function nested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)
    : new RawJson(`${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`);
}

export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(32, 100, 1_000, 3_000, 5_000), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, kind]) => nested(depth, kind));

/** Objects whose keys reach for the prototype: parsed naively, they would poison every object. */
const poisoned: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom(
  Object.fromEntries([['__proto__', { polluted: true, admin: true }]]),
  { constructor: { prototype: { polluted: true } } },
  { prototype: { polluted: true } },
  Object.fromEntries([
    ['__proto__', []],
    ['hasOwnProperty', 1],
  ]),
);

const longArray: fc.Arbitrary<unknown[]> = fc
  .tuple(fc.integer({ min: 1_000, max: 60_000 }), fc.constantFrom<unknown>(0, 'a', null, {}, []))
  .map(([n, item]) => new Array<unknown>(n).fill(item));

/** A value of some other JSON type, or a hostile one of the same type: whatever the schema did not plan for. */
export function hostileArb(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = new Set(typesOf(schema));
  const wrongType = fc.constantFrom<unknown>(null, true, false, 0, 1, -1, 1.5, '', 'x', [], {}, [1], {
    a: 1,
  });
  const arms: fc.WeightedArbitrary<unknown>[] = [
    { weight: 3, arbitrary: wrongType },
    { weight: 3, arbitrary: hostileString },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBER_EDGES) },
    { weight: 1, arbitrary: longArray },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: poisoned },
  ];
  if (types.has('string') || schema.enum !== undefined) arms.push({ weight: 4, arbitrary: hostileString });
  if (types.has('integer') || types.has('number')) {
    arms.push({ weight: 4, arbitrary: fc.constantFrom(...NUMBER_EDGES) });
    if (schema.maximum !== undefined) arms.push({ weight: 1, arbitrary: fc.constant(schema.maximum + 1) });
    if (schema.minimum !== undefined) arms.push({ weight: 1, arbitrary: fc.constant(schema.minimum - 1) });
  }
  if (types.has('array')) {
    arms.push({ weight: 3, arbitrary: longArray });
    arms.push({ weight: 1, arbitrary: fc.array(hostileString, { maxLength: 20 }) });
  }
  if (types.has('object')) arms.push({ weight: 3, arbitrary: poisoned });
  return fc.oneof(...arms);
}

/** `arb` in one case of eight, else undefined: one oddity per request finds more than many at once. */
export function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

/** Extra members no schema names: unknown keys and the prototype's own names. */
const strayMembers: fc.Arbitrary<[string, unknown][]> = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'unknown_key'),
      fc.string({ maxLength: 12 }),
    ),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), poisoned, deepNesting, longArray),
  ),
  { minLength: 1, maxLength: 3 },
);

/**
 * Mostly the schema's shape with, at random places, a hostile value instead, a required member missing or
 * stray members added. `pools` gives real values for members of those names.
 */
export function fuzzArb(schema: JsonSchema, pools: Pools = {}, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const pool = pools[name];
  const arms: fc.WeightedArbitrary<unknown>[] = [
    { weight: 1, arbitrary: hostileArb(schema) },
    { weight: 8, arbitrary: fuzzShape(schema, pools, depth) },
  ];
  if (pool !== undefined && pool.length > 0) arms.push({ weight: 4, arbitrary: fc.constantFrom(...pool) });
  return fc.oneof({ depthSize: 'small', maxDepth: 8 }, ...arms);
}

function fuzzShape(schema: JsonSchema, pools: Pools, depth: number): fc.Arbitrary<unknown> {
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined) return fc.oneof(...choices.map((s) => fuzzShape(s, pools, depth)));
  const [type] = typesOf(schema);
  if (type === 'object' && schema.enum === undefined) {
    // The required members only: the shape most likely to pass the service's own rules and be stored.
    const required = new Set(schema.required ?? []);
    const minimal = objectArb(
      {
        ...schema,
        properties: Object.fromEntries(
          Object.entries(schema.properties ?? {}).filter(([n]) => required.has(n)),
        ),
      },
      depth,
      (s, member) => fuzzArb(s, pools, depth + 1, member),
      false,
    );
    const loose = fc
      .boolean()
      .chain((missing) =>
        objectArb(schema, depth, (s, member) => fuzzArb(s, pools, depth + 1, member), missing),
      );
    return fc
      .tuple(fc.oneof(loose, minimal), rarely(strayMembers))
      .map(([obj, stray]) => (stray === undefined ? obj : { ...obj, ...Object.fromEntries(stray) }));
  }
  if (type === 'array') {
    return fc.array(fuzzArb(schema.items ?? {}, pools, depth + 1), {
      maxLength: depth > 4 ? 1 : 6,
    });
  }
  return validArb(schema, depth);
}
