import type { ApiResponse } from '../http/types.js';

/**
 * The fields a 304 keeps from the 200 it stands for. RFC 9110 section 15.4.5: the server MUST send
 * `Content-Location`, `Date`, `ETag` and `Vary`, and `Cache-Control` and `Expires`, as a 200 would;
 * `Last-Modified` is kept to guide caches. Other representation metadata (`Content-Type`,
 * `Content-Length`) is dropped. Outer middleware (security headers, `X-Request-Id`) still adds its own.
 */
export const RETAINED_304_HEADERS: readonly string[] = Object.freeze([
  'cache-control',
  'content-location',
  'date',
  'etag',
  'expires',
  'last-modified',
  'vary',
]);

/**
 * A 304 Not Modified standing for `response` (or for a 200 with these headers): the retained
 * headers, no body.
 * @example notModified({ status: 200, headers: { etag: '"v1"', 'content-type': 'application/json' }, json: {} })
 * // { status: 304, headers: { etag: '"v1"' } }
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.4.5
 */
export function notModified(response: Pick<ApiResponse, 'headers'>): ApiResponse {
  const headers: Record<string, string> = {};
  for (const name of RETAINED_304_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return { status: 304, headers };
}
