/** Time is injected so tests can move it (token expiry, billing periods) without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private current = Date.now()) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** RFC 3339 with milliseconds and `Z`, the one way every timestamp leaves the service. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

export const DAY_MS = 24 * 60 * 60 * 1000;

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Epoch milliseconds of an RFC 3339 timestamp, or undefined when it is not one. Digits below the
 * millisecond are rounded up when `roundUp` is set: "before 12:00:00.0005" must include 12:00:00.000.
 */
export function parseTimestamp(value: string, roundUp = false): number | undefined {
  const match = RFC3339.exec(value);
  if (match === null) return undefined;
  const [, date, time, fraction = '', zone] = match;
  const ms = Date.parse(`${date}T${time}.${fraction.padEnd(3, '0').slice(0, 3)}${zone?.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const belowMs = /[1-9]/.test(fraction.slice(3));
  return roundUp && belowMs ? ms + 1 : ms;
}
