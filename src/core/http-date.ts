/** IMF-fixdate (RFC 9110 section 5.6.7) of a time, truncated to the second: `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function imfFixdate(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toUTCString();
}

/**
 * An IMF-fixdate formatter (RFC 9110 section 5.6.7) that formats each second at most once: the same
 * second comes back request after request. Each caller holds its own, so a response's `Date` and a
 * resource's `Last-Modified` do not evict each other.
 */
export function perSecondFixdate(): (epochMs: number) => string {
  let cachedSecond = Number.NaN;
  let cachedValue = '';
  return (epochMs) => {
    const second = Math.floor(epochMs / 1000);
    if (second !== cachedSecond) {
      cachedSecond = second;
      cachedValue = imfFixdate(epochMs);
    }
    return cachedValue;
  };
}

const dateOfNow = perSecondFixdate();

/**
 * The `Date` of a response (RFC 9110 section 6.6.1): the current second as IMF-fixdate, formatted at
 * most once per second rather than per request.
 */
export function httpDate(now: number = Date.now()): string {
  return dateOfNow(now);
}
