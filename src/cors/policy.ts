/**
 * What `cors()` allows, as exported data and one checked policy (Fetch standard, section 3.2 "CORS
 * protocol"). Options are read once; a bad one is a `TypeError` naming it at start-up.
 */
import { booleanOption, integerInRange } from '../errors/option-checks.js';

/**
 * The response headers of the conventions a script on another origin may read by default
 * (`Access-Control-Expose-Headers`). A browser shows a cross-origin script only the CORS-safelisted
 * response headers (`Cache-Control`, `Content-Language`, `Content-Length`, `Content-Type`, `Expires`,
 * `Last-Modified`, `Pragma`) unless the response names more:
 *
 * - `ETag` (RFC 9110 section 8.8.3): the validator for the next `If-Match` / `If-None-Match`.
 * - `Location` (section 10.2.2): where a `201` put the new resource.
 * - `RateLimit`, `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers), `Retry-After`
 *   (section 10.2.3): how much quota is left, and when to retry a `429` or `503`.
 * - `Deprecation` (RFC 9745), `Sunset` (RFC 8594), `Link` (RFC 8288): a deprecated resource and its successor.
 * - `Idempotent-Replayed`: the answer is a replay of an earlier request with the same `Idempotency-Key`.
 * - `X-Request-Id`: the id to quote when reporting a failure.
 * - `WWW-Authenticate` (section 11.6.1): why a `401` refused the credentials.
 * - `Allow` (section 10.2.1), `Accept-Post`, `Accept-Patch`, `Accept-Encoding`: what a `405` or
 *   `415` says the resource takes instead.
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = Object.freeze([
  'ETag',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'Link',
  'Idempotent-Replayed',
  'X-Request-Id',
  'WWW-Authenticate',
  'Allow',
  'Accept-Post',
  'Accept-Patch',
  'Accept-Encoding',
]);

/**
 * The request headers of the conventions a script on another origin may send by default
 * (`Access-Control-Allow-Headers`, the answer to a preflight): credentials (`Authorization`), JSON
 * and JSON:API bodies (`Content-Type`; only three form types are safelisted), conditional requests
 * (`If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`, RFC 9110 section 13.1),
 * keyed writes (`Idempotency-Key`), the client's own request id (`X-Request-Id`), and `Accept`,
 * `Accept-Language`, `Content-Language` (safelisted only for short, plain values; `Accept` carries the
 * API version as a media type parameter).
 */
export const CORS_ALLOWED_HEADERS: readonly string[] = Object.freeze([
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'Idempotency-Key',
  'X-Request-Id',
  'Accept',
  'Accept-Language',
  'Content-Language',
]);

/**
 * How long a browser may keep a preflight's answer (`Access-Control-Max-Age`), in seconds: two hours,
 * the most Chromium keeps (Firefox keeps up to a day). A preflight is cached per URL, so without it a
 * browser client sends one before each first non-simple request to every URL.
 */
export const DEFAULT_CORS_MAX_AGE_SECONDS = 7200;

export interface CorsOptions {
  /**
   * The origins whose scripts may read the responses: serialized origins as browsers send them in
   * `Origin` (`https://app.example.com`, `http://localhost:5173`: scheme, host and a port other than
   * the default; no path, no trailing slash), a test of the `Origin` field value, or `'*'` for any
   * origin (only without `credentials`). Required: no origin is trusted by default, and an arbitrary
   * `Origin` is never reflected.
   */
  readonly origins: readonly string[] | '*' | ((origin: string) => boolean);
  /**
   * Let the browser send its credentials (cookies, HTTP authentication) and the script read the answer
   * (`Access-Control-Allow-Credentials: true`). Default `false`: a bearer token in `Authorization` is
   * not a credential in this sense and needs no such permission. Not with `origins: '*'`.
   */
  readonly credentials?: boolean;
  /** Response headers a script may read, besides {@link CORS_EXPOSED_HEADERS}. */
  readonly exposeHeaders?: readonly string[];
  /** Request headers a script may send, besides {@link CORS_ALLOWED_HEADERS}. */
  readonly allowHeaders?: readonly string[];
  /** `Access-Control-Max-Age` in seconds, 0 to 86 400 (default {@link DEFAULT_CORS_MAX_AGE_SECONDS}). */
  readonly maxAgeSeconds?: number;
}

/** The checked options, with every field value built once. */
export interface CorsPolicy {
  /** Whether an `Origin` field value may read responses. */
  readonly allows: (origin: string) => boolean;
  /** Any origin (`'*'`): the answer is the same for all, so it does not vary on `Origin`. */
  readonly anyOrigin: boolean;
  readonly credentials: boolean;
  /** `Access-Control-Expose-Headers`. */
  readonly exposeHeaders: string;
  /** `Access-Control-Allow-Headers`. */
  readonly allowHeaders: string;
  /** The allowed request header names, lower-case. */
  readonly allowedHeaderNames: ReadonlySet<string>;
  /** `Access-Control-Max-Age`. */
  readonly maxAge: string;
}

/** A field name (RFC 9110 section 5.1: a token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Check the options once, as `cors()` does. */
export function corsPolicy(options: CorsOptions): CorsPolicy {
  if (typeof options !== 'object' || options === null) throw new TypeError('cors: options must be an object');
  const credentials = booleanOption('cors', 'credentials', options.credentials, false);
  const { origins } = options;
  if (origins === '*' && credentials)
    throw new TypeError(
      "cors: origins '*' cannot go with credentials (Fetch standard: a credentialed answer names its origin); list the origins",
    );
  const maxAgeSeconds = integerInRange(
    'cors',
    'maxAgeSeconds',
    options.maxAgeSeconds,
    DEFAULT_CORS_MAX_AGE_SECONDS,
    0,
    86_400,
  );
  const exposed = headerList('exposeHeaders', CORS_EXPOSED_HEADERS, options.exposeHeaders);
  const allowed = headerList('allowHeaders', CORS_ALLOWED_HEADERS, options.allowHeaders);
  return {
    allows: allowsOf(origins),
    anyOrigin: origins === '*',
    credentials,
    exposeHeaders: exposed.join(', '),
    allowHeaders: allowed.join(', '),
    allowedHeaderNames: new Set(allowed.map((name) => name.toLowerCase())),
    maxAge: String(maxAgeSeconds),
  };
}

function allowsOf(origins: CorsOptions['origins']): (origin: string) => boolean {
  if (origins === '*') return () => true;
  if (typeof origins === 'function') return origins;
  if (!Array.isArray(origins))
    throw new TypeError("cors: origins must be a list of origins, a function, or '*'");
  for (const origin of origins) checkOrigin(origin);
  const listed = new Set<string>(origins);
  return (origin) => listed.has(origin);
}

/** An origin as a browser serializes it in `Origin` (HTML, "serialization of an origin"). */
function checkOrigin(origin: unknown): void {
  let serialized: string | undefined;
  try {
    serialized = typeof origin === 'string' ? new URL(origin).origin : undefined;
  } catch {
    serialized = undefined;
  }
  if (serialized === undefined || serialized === 'null' || serialized !== origin)
    throw new TypeError(
      `cors: each origin must be a serialized origin such as https://app.example.com (scheme, host, port; no path or trailing slash), got ${JSON.stringify(origin)}${serialized !== undefined && serialized !== 'null' ? ` (did you mean ${serialized}?)` : ''}`,
    );
}

/** The defaults and the extra names, each once (case-insensitively), in that order. */
function headerList(option: string, defaults: readonly string[], extra: unknown): string[] {
  if (extra !== undefined && !Array.isArray(extra))
    throw new TypeError(`cors: ${option} must be a list of header names`);
  const names = [...defaults];
  const seen = new Set(defaults.map((name) => name.toLowerCase()));
  for (const name of (extra ?? []) as unknown[]) {
    if (typeof name !== 'string' || !TOKEN.test(name))
      throw new TypeError(
        `cors: ${option} must hold header names (RFC 9110 tokens), got ${JSON.stringify(name)}`,
      );
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}
