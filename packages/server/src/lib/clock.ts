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

export const DAY_MS = 24 * 60 * 60 * 1000;

/** 9999-12-31T23:59:59.999Z: past it, years take more than four digits. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;
const DIGITS3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const DIGITS2 = DIGITS3.slice(0, 100).map((d) => d.slice(1));
/** The last day formatted: the rows of one page mostly share their day. */
let lastDay = Number.NaN;
let lastDayText = '';

/** `YYYY-MM-DD` of the day `days` after 1970-01-01 (Howard Hinnant's civil_from_days, days >= 0). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${DIGITS2[month]}-${DIGITS2[day]}`;
}

/**
 * RFC 3339 with milliseconds and `Z`, the one way every timestamp leaves the service: what
 * Date#toISOString gives, made without a Date for 1970 to 9999 (a page formats a thousand of them, and
 * toISOString was a tenth of a thousand-build page's time).
 */
export function toTimestamp(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay) {
    lastDayText = civilDate(days);
    lastDay = days;
  }
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastDayText}T${DIGITS2[hours]}:${DIGITS2[minutes]}:${DIGITS2[seconds]}.${DIGITS3[rest - seconds * 1000]}Z`;
}

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
