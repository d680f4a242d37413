import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

/** The JSON error body every refusal carries (`{code, message, ray_id, metadata?}`). */
export interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  metadata?: Record<string, unknown>;
}

/** Asserts an error answer's status and code; returns its body, typed as `B` where a test reads more. */
export function assertError<B extends { code: string } = ErrorBody>(
  res: LightMyRequestResponse,
  status: number,
  code: string,
): B {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<B>();
  assert.equal(body.code, code, res.body);
  return body;
}
