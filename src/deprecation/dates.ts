const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(10000, 0, 1) - 1000;

/**
 * A configured instant, checked: a valid `Date`, or an ISO 8601 string (`2026-06-30` is midnight UTC;
 * a date-time needs `Z` or an offset, so the instant never depends on the server's time zone).
 * Returns epoch milliseconds truncated to the second (both headers have one-second resolution).
 * Throws a `TypeError` naming `option` otherwise.
 */
export function instantOf(option: string, value: unknown, owner: string): number {
  let time: number;
  if (value instanceof Date) {
    time = value.getTime();
    if (Number.isNaN(time)) throw new TypeError(`${owner}: "${option}" is an invalid Date`);
  } else if (typeof value === 'string') {
    const match = ISO_DATE.exec(value);
    time = match ? Date.parse(value) : Number.NaN;
    if (match && !Number.isNaN(time) && !sameCalendarDay(match, Date.parse(value.slice(0, 10)))) {
      time = Number.NaN;
    }
    if (Number.isNaN(time)) {
      throw new TypeError(
        `${owner}: "${option}" must be a Date or an ISO 8601 date such as "2026-06-30" or "2026-06-30T00:00:00Z", got ${JSON.stringify(value)}`,
      );
    }
  } else {
    throw new TypeError(`${owner}: "${option}" must be a Date or an ISO 8601 string, got ${typeof value}`);
  }
  if (time < EARLIEST || time > LATEST) {
    throw new TypeError(
      `${owner}: "${option}" must fall between 1970 and 9999, got ${new Date(time).toISOString()}`,
    );
  }
  return Math.floor(time / 1000) * 1000;
}

/** `Date.parse` rolls 2025-02-30 over to March; refuse such dates instead. */
function sameCalendarDay(match: RegExpExecArray, midnight: number): boolean {
  const day = new Date(midnight);
  return (
    day.getUTCFullYear() === Number(match[1]) &&
    day.getUTCMonth() + 1 === Number(match[2]) &&
    day.getUTCDate() === Number(match[3])
  );
}

/** An RFC 9651 Date item (`@` and integer seconds), as RFC 9745 uses for `Deprecation`. */
export function structuredDate(epochMs: number): string {
  return `@${Math.floor(epochMs / 1000)}`;
}
