/**
 * Default security response headers (see docs/security.md), as exported data.
 *
 * - `X-XSS-Protection: 0`: the legacy XSS auditor is disabled; it introduced leaks of its own
 *   (OWASP Secure Headers Project). A JSON API relies on CSP and nosniff instead.
 * - `Strict-Transport-Security` (RFC 6797 section 6.1): HTTPS only for a year, subdomains included.
 * - `X-Content-Type-Options: nosniff` (WHATWG Fetch section 3.5): no MIME sniffing of JSON into HTML.
 * - `X-Frame-Options: DENY` (RFC 7034) and CSP `frame-ancestors 'none'`: never framed.
 * - `Content-Security-Policy: default-src 'none'` (CSP Level 3): a JSON response loads nothing.
 * - `Referrer-Policy: no-referrer` (W3C Referrer Policy).
 */
export const DEFAULT_SECURITY_HEADERS = Object.freeze({
  'x-xss-protection': '0',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const);

/** The headers this module manages. */
export type SecurityHeaderName = keyof typeof DEFAULT_SECURITY_HEADERS;

/** Per header: a replacement value, or `false` to leave the header out. Omitted headers keep the default. */
export type SecurityHeadersOptions = Partial<Record<SecurityHeaderName, string | false>>;

/** Headers that name the server's software; removed from every response. */
export const SOFTWARE_HEADERS: readonly string[] = Object.freeze(['server', 'x-powered-by']);

const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * The final header list for the given options, validated once: a value with control characters (a
 * header injection) is refused at start-up.
 */
export function resolveSecurityHeaders(
  options: SecurityHeadersOptions = {},
): ReadonlyArray<readonly [string, string]> {
  const entries: Array<readonly [string, string]> = [];
  for (const name of Object.keys(DEFAULT_SECURITY_HEADERS) as SecurityHeaderName[]) {
    const chosen = options[name] ?? DEFAULT_SECURITY_HEADERS[name];
    if (chosen === false) continue;
    if (typeof chosen !== 'string' || chosen === '' || !FIELD_VALUE.test(chosen)) {
      throw new TypeError(`securityHeaders: "${name}" must be a non-empty header value or false`);
    }
    entries.push([name, chosen]);
  }
  for (const name of Object.keys(options)) {
    if (!Object.hasOwn(DEFAULT_SECURITY_HEADERS, name))
      throw new TypeError(`securityHeaders: unknown header "${name}"`);
  }
  return Object.freeze(entries);
}
