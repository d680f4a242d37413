import { type TSchema, Type } from 'typebox';

export const U32_MAX = 4_294_967_295;

export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 with milliseconds, UTC' });
export const U32 = Type.Integer({ minimum: 0, maximum: U32_MAX });
export const Id = Type.String({ minLength: 1, maxLength: 64 });

/** An optional field that also accepts null, which clients often send for "not set". */
export function OptionalNullable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

export const ValidationErrorSchema = Type.Object(
  { path: Type.Array(Type.String(), { description: 'origin of the error, kebab-case segments' }) },
  { $id: 'ValidationError' },
);

export const ValidationResult = Type.Object({ errors: Type.Array(ValidationErrorSchema) });

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'UPPER_SNAKE error code, see the README catalogue' }),
    message: Type.String(),
    ray_id: Type.String({ description: 'request id, also in the x-ray-id header and the log line' }),
    documentation: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: 'Every non-2xx response' },
);

/** Added to every route so the OpenAPI document and the serializer know the error shape. */
export const errorResponses = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

export const NoContent = Type.Null({ description: 'No content' });
