import type { RequestView } from './types.js';

/**
 * Whether a request is a CORS preflight (Fetch standard, section 4.8 "CORS-preflight fetch"): an
 * `OPTIONS` request a browser sends on its own before a request another origin's script asked for,
 * carrying `Origin` and `Access-Control-Request-Method`. It carries no credentials and asks only
 * which methods and headers the resource allows.
 *
 * @see https://fetch.spec.whatwg.org/#cors-preflight-fetch
 */
export function isCorsPreflight(request: RequestView): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.get('origin') !== undefined &&
    request.headers.get('access-control-request-method') !== undefined
  );
}
