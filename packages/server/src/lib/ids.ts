import { randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/** UUIDv7: time-ordered, so new rows land at the end of primary-key indexes instead of at random pages. */
export function newId(): string {
  return v7();
}

/** Request (ray) ids only need to be unique; Node's pooled random UUIDs are several times cheaper than v7. */
export function newRayId(): string {
  return randomUUID();
}
