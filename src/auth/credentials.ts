/**
 * The plain-value core of `authenticate` and `requireScopes`: what an `Authorization` field holds
 * (RFC 6750 section 2.1, RFC 9110 section 11.6.2) and which required scopes a caller lacks
 * (RFC 6749 section 3.3). No request, no errors thrown: the middleware turn these into 400/401/403.
 */

/** What an `Authorization` field value holds, for the Bearer scheme. */
export type BearerCredential =
  | { readonly kind: 'absent' }
  | { readonly kind: 'token'; readonly token: string }
  /**
   * `repeated`: two credentials in one (a repeated field joined by a comma, 400);
   * `malformed`: Bearer, but not a b64token (401 `invalid_token`); `other-scheme`: not Bearer (401).
   */
  | { readonly kind: 'refused'; readonly reason: 'repeated' | 'malformed' | 'other-scheme' };

// RFC 6750 section 2.1: b64token
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;
/**
 * Whether `header` is a credential, a comma, then a second one: `<scheme> ..., <scheme> <credentials>`
 * (or `<scheme>` at the end). Neither a b64token nor a token68 holds a comma, and an auth-param after
 * a comma is `name=value`, so this is a repeated `Authorization` field joined into one value (RFC 9110
 * sections 5.3, 11.6.2). Adapters hand repeated fields over joined (the node adapter too).
 *
 * The same language as `^[ \t]*<token>[^,]*,[ \t]*<token>(?: +[^\s=]|[ \t]*$)`, checked around the
 * first comma (the only one that pattern can match, since nothing before it may hold a comma): one
 * pattern over the whole value backtracked over every character of a token on each request
 * (about 6 us for a 200-byte bearer header), and quadratically on a long one.
 */
export function hasSecondCredential(header: string): boolean {
  const comma = header.indexOf(',');
  return (
    comma !== -1 &&
    CREDENTIAL_START.test(header) &&
    SECOND_CREDENTIAL_AFTER_COMMA.test(header.slice(comma + 1))
  );
}
/** A scheme's first character, after optional whitespace: what must come before the first comma. */
const CREDENTIAL_START = /^[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]/;
/** After the comma: a scheme, then its credentials (not `name=value`) or the end. */
const SECOND_CREDENTIAL_AFTER_COMMA = /^[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?: +[^\s=]|[ \t]*$)/;

const ABSENT: BearerCredential = { kind: 'absent' };

/**
 * Reads a bearer token from an `Authorization` field value.
 *
 * @example
 * bearerCredential('Bearer abc.def.ghi'); // { kind: 'token', token: 'abc.def.ghi' }
 * bearerCredential('Basic dXNlcjpwdw=='); // { kind: 'refused', reason: 'other-scheme' }
 */
export function bearerCredential(authorization: string | undefined): BearerCredential {
  if (authorization === undefined) return ABSENT;
  if (hasSecondCredential(authorization)) return { kind: 'refused', reason: 'repeated' };
  const match = BEARER.exec(authorization);
  if (match !== null) return { kind: 'token', token: match[1]! };
  return { kind: 'refused', reason: BEARER_SCHEME.test(authorization) ? 'malformed' : 'other-scheme' };
}

/**
 * The required scopes a caller does not hold, in the order required (empty: allowed).
 *
 * @example missingScopes(new Set(['orders:read']), ['orders:read', 'orders:write']); // ['orders:write']
 */
export function missingScopes(granted: ReadonlySet<string>, required: readonly string[]): string[] {
  return required.filter((scope) => !granted.has(scope));
}
