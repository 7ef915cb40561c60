/**
 * IMF-fixdate (RFC 9110 section 5.6.7) of the current second, formatted at most once per second:
 * every response carries `Date` (RFC 9110 section 6.6.1) without formatting a date per request.
 */
let cachedSecond = -1;
let cachedValue = '';

export function httpDate(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedValue = new Date(second * 1000).toUTCString();
  }
  return cachedValue;
}
