import { type Static, Type } from 'typebox';

/**
 * The `Idempotency-Key` request header of the operations that create something: a retry with the same key
 * and the same request answers the first answer instead of creating again. Header names are compared
 * without case; Node hands them over in lower case.
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Set to `true` on an answer that is the stored answer of an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** How long a key is remembered, from the request that first used it. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Visible ASCII only (`!` to `~`): no spaces, so two headers (which HTTP joins with ", ") are refused
 * rather than read as one key. A UUID, a ULID or base64url text all fit.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]+$';

// Spelled as documents spell it; Fastify validates header schemas by lower-cased names.
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes a retry safe: a request with the same key and the same path and body, within 24 h, answers ' +
        'the first answer (with Idempotent-Replayed: true) instead of creating again. 1-255 visible ASCII ' +
        'characters (! to ~), chosen by the client (a UUID is typical) and scoped to the caller.',
    }),
  ),
});

export type IdempotencyHeaders = Static<typeof IdempotencyHeaders>;
