import { perSecondFixdate } from '../core/http-date.js';
import { trimOws } from '../http/field-syntax.js';

/**
 * HTTP-date (RFC 9110 section 5.6.7): the three formats a recipient must accept, parsed strictly.
 * Anything else, including two dates joined by a comma, is not a date and is ignored by callers.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const MONTH = MONTHS.join('|');
const DAY = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const DAY_LONG = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
// rfc850-date (obsolete): Sunday, 06-Nov-94 08:49:37 GMT
const RFC850_DATE = new RegExp(`^(?:${DAY_LONG}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
// asctime-date (obsolete): Sun Nov  6 08:49:37 1994
const ASCTIME_DATE = new RegExp(`^(?:${DAY}) (${MONTH}) (\\d{2}| \\d) ${TIME} (\\d{4})$`);

/**
 * Parse an HTTP-date into milliseconds since the epoch, or `undefined` when the value is not exactly
 * one valid date in one of the three formats (names are case-sensitive, fields range-checked).
 * A two-digit rfc850 year more than 50 years in the future means the most recent past year with
 * those digits, relative to `now`.
 *
 * @example parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT') // 784111777000
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  // The same IMF-fixdate comes back request after request (a route's Last-Modified read back, a
  // client's If-Modified-Since): remember the last one parsed. Its meaning does not depend on `now`.
  if (value === lastParsed.text) return lastParsed.time;
  const text = trimOws(value);
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) {
    const time = toTime(+m[3]!, m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
    lastParsed = { text: value, time };
    return time;
  }
  m = RFC850_DATE.exec(text);
  if (m !== null) return toTime(fullYear(+m[3]!, now), m[2]!, +m[1]!, +m[4]!, +m[5]!, +m[6]!);
  m = ASCTIME_DATE.exec(text);
  if (m !== null) return toTime(+m[6]!, m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
  return undefined;
}

// A resource's Last-Modified repeats from request to request: each second is formatted once.
const lastModifiedDate = perSecondFixdate();

/**
 * Format a time as IMF-fixdate, truncated to the second (the precision of HTTP-date).
 * @example formatHttpDate(784111777000) // 'Sun, 06 Nov 1994 08:49:37 GMT'
 */
export function formatHttpDate(time: number): string {
  return lastModifiedDate(time);
}

let lastParsed: { readonly text: string | undefined; readonly time: number | undefined } = {
  text: undefined,
  time: undefined,
};

function fullYear(twoDigits: number, now: number): number {
  const currentYear = new Date(now).getUTCFullYear();
  let year = currentYear - (currentYear % 100) + twoDigits;
  if (year > currentYear + 50) year -= 100;
  else if (year <= currentYear - 50) year += 100;
  return year;
}

function toTime(year: number, monthName: string, day: number, hour: number, minute: number, second: number) {
  // second 60 is a leap second (RFC 9110 section 5.6.7 time-of-day); it counts as the next minute's 00.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const month = MONTHS.indexOf(monthName as (typeof MONTHS)[number]);
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  if (day < 1 || date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}
