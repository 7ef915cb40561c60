import type { CorsPolicy } from './policy.js';

/**
 * The CORS decision on plain values (Fetch standard, section 3.2 "CORS protocol"): what a response
 * to a request from a script on another origin says about who may read it.
 */

/** The request fields CORS reads. */
export interface CorsRequest {
  /** Upper-case method. */
  readonly method: string;
  /** `Origin`, absent on a request no script on another origin made. */
  readonly origin: string | undefined;
  /** `Access-Control-Request-Method`: on a preflight, the method the script wants to use. */
  readonly requestMethod: string | undefined;
}

/** The answer the rest of the app gave, as far as CORS reads it. */
export interface CorsAnswer {
  readonly status: number;
  /** The methods the resource allows (`Allow`, RFC 9110 section 10.2.1): how the route table answers OPTIONS. */
  readonly allow: string | undefined;
}

export type CorsDecision =
  /** No `Origin`: nothing to say but that the answer would differ for another origin. */
  | { readonly kind: 'no-origin'; readonly headers: Readonly<Record<string, string>> }
  /** An origin not allowed: no permission, so the browser keeps the answer from the script. */
  | { readonly kind: 'refused'; readonly headers: Readonly<Record<string, string>> }
  /** An allowed origin's request: the script may read the answer and the listed headers. */
  | { readonly kind: 'allowed'; readonly headers: Readonly<Record<string, string>> }
  /**
   * An allowed origin's preflight on a resource the route table knows: answered `204` with the
   * methods of its `Allow`, the allowed request headers and how long to keep the answer.
   */
  | { readonly kind: 'preflight'; readonly headers: Readonly<Record<string, string>> };

const VARY_ORIGIN = 'Origin';
/** A preflight's answer also depends on what it asks for. */
const VARY_ASKED = 'Access-Control-Request-Method, Access-Control-Request-Headers';

/**
 * What to add to the answer to `request`, under `policy`. A preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) is answered from what the route table said of the path: a 2xx
 * with `Allow`; anything else (a `404` for an unknown path) is left as it is, and the browser's
 * preflight fails on its status. Every answer that depends on `Origin` says so in `Vary` (RFC 9110
 * section 12.5.5), so a shared cache does not give one origin's answer to another.
 *
 * @example corsDecision({ method: 'GET', origin: 'https://app.example', requestMethod: undefined }, { status: 200, allow: undefined }, policy)
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
export function corsDecision(request: CorsRequest, answer: CorsAnswer, policy: CorsPolicy): CorsDecision {
  const { origin } = request;
  if (origin === undefined) {
    // With any origin allowed, every answer says so: one cached answer serves every origin.
    const headers: Record<string, string> = policy.anyOrigin
      ? { 'access-control-allow-origin': '*' }
      : { vary: VARY_ORIGIN };
    return { kind: 'no-origin', headers };
  }
  if (!policy.allows(origin))
    return { kind: 'refused', headers: policy.anyOrigin ? {} : { vary: VARY_ORIGIN } };
  const headers: Record<string, string> = {
    'access-control-allow-origin': policy.anyOrigin ? '*' : origin,
  };
  if (policy.credentials) headers['access-control-allow-credentials'] = 'true';
  const { allow } = answer;
  const preflight =
    request.method === 'OPTIONS' &&
    request.requestMethod !== undefined &&
    allow !== undefined &&
    answer.status >= 200 &&
    answer.status <= 299;
  if (preflight) {
    headers['access-control-allow-methods'] = allow;
    headers['access-control-allow-headers'] = policy.allowHeaders;
    headers['access-control-max-age'] = policy.maxAge;
    headers.vary = policy.anyOrigin ? VARY_ASKED : `${VARY_ORIGIN}, ${VARY_ASKED}`;
    return { kind: 'preflight', headers };
  }
  headers['access-control-expose-headers'] = policy.exposeHeaders;
  if (!policy.anyOrigin) headers.vary = VARY_ORIGIN;
  return { kind: 'allowed', headers };
}
