/** IMF-fixdate (RFC 9110 section 5.6.7) of a time, truncated to the second: `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function imfFixdate(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toUTCString();
}

let cachedSecond = -1;
let cachedValue = '';

/**
 * The `Date` of a response (RFC 9110 section 6.6.1): the current second as IMF-fixdate, formatted at
 * most once per second rather than per request.
 */
export function httpDate(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedValue = imfFixdate(now);
  }
  return cachedValue;
}
