import { v7 } from 'uuid';

/** UUIDv7: time-ordered, so new rows land at the end of primary-key indexes instead of at random pages. */
export function newId(): string {
  return v7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
