import { type Static, type TSchema, type TSchemaOptions, Type } from 'typebox';

export const U32_MAX = 4_294_967_295;

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 with milliseconds, UTC' });
export const U32 = Type.Integer({ minimum: 0, maximum: U32_MAX });

/**
 * Every id the service makes is a lower-case UUID (v7); one that is not cannot name anything. The pattern
 * is what decides (it is checked first, and `format: uuid` would also take upper case); the format tells
 * OpenAPI readers and generators what the string is.
 */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export function IdOf(description: string) {
  return Type.String({ format: 'uuid', pattern: UUID_PATTERN, maxLength: 36, description });
}
export const Id = IdOf('a UUID');

/** No control characters at all (C0, DEL, C1): the pattern single-line fields carry. */
export const SINGLE_LINE_PATTERN = '^[^\\p{Cc}]*$';

/**
 * A single-line text field of at most `maxLength` characters. Where a rule of the service has a tighter
 * limit (a name of 24 bytes), the schema's limit is a generous wire bound above it, so the rule still
 * reports `too-long` through validate, and only absurd sizes are refused by the schema.
 */
export function Text(maxLength: number, options: TSchemaOptions & { minLength?: number } = {}) {
  return Type.String({ ...options, maxLength, pattern: SINGLE_LINE_PATTERN });
}

/** Text that may span lines (environment values, arguments): TAB, LF and CR allowed, other controls not. */
export function MultilineText(maxLength: number, options: TSchemaOptions = {}) {
  return Type.String({ ...options, maxLength });
}

/**
 * A display name: the name rules (lib/names.ts) report white space other than single inner spaces as
 * `display-name.invalid`, through validate as well as create, so TAB and LF are left to them here; NUL
 * and the other control characters are refused with every body.
 */
export function DisplayNameText(description: string) {
  return MultilineText(512, { description });
}

/** A map of user-chosen keys: at most `maxEntries`, keys single-line and at most `keyMax` characters. */
export function TextMap<T extends TSchema>(
  value: T,
  limits: { maxEntries: number; keyMax: number },
  options: TSchemaOptions = {},
) {
  return Type.Record(Type.String(), value, {
    ...options,
    maxProperties: limits.maxEntries,
    propertyNames: { maxLength: limits.keyMax, pattern: SINGLE_LINE_PATTERN },
  });
}

/** An optional field that also accepts null, which clients often send for "not set". */
export function OptionalNullable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

export const ValidationErrorSchema = Type.Object(
  {
    path: Type.Array(Type.String(), {
      description: 'origin of the error, kebab-case segments; the last names the rule broken (stable)',
    }),
    message: Type.String({
      description: 'a sentence naming the rule and its limit, for people (its wording may change)',
    }),
  },
  { $id: 'ValidationError' },
);

export const ValidationResult = Type.Object({ errors: Type.Array(ValidationErrorSchema) });

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'UPPER_SNAKE error code, see the README catalogue' }),
    message: Type.String(),
    ray_id: Type.String({
      format: 'uuid',
      description: 'request id, also in the x-ray-id header and the log line',
    }),
    documentation: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: 'Every non-2xx response' },
);

/** Added to every route so the OpenAPI document and the serializer know the error shape. */
export const errorResponses = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

export const NoContent = Type.Null({ description: 'No content' });

export type ValidationErrorSchema = Static<typeof ValidationErrorSchema>;
export type ValidationResult = Static<typeof ValidationResult>;
export type ErrorBody = Static<typeof ErrorBody>;
