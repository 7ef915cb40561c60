/**
 * The errors of bearer authentication (RFC 6750 section 3.1): each refusal of a credential, built
 * here once, with its `WWW-Authenticate` challenge. `authenticate`, `requireAuth`, `requireScopes`,
 * `ownedResource`, `ownershipGuard` and the adapters' caller all answer with these.
 */
import type { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import type { AuthErrorCode } from '../errors/codes.js';

const source = { header: 'Authorization' } as const;

/**
 * A `Bearer` challenge for `realm` (RFC 6750 section 3): with an `error` (and its attributes) when
 * the request carried a bearer token that failed, without one when it carried none.
 */
function challenge(realm: string, error?: 'invalid_token' | 'insufficient_scope', attributes = ''): string {
  return error === undefined
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="${error}"${attributes}`;
}

/** The one 401 of a refused credential: its code, its words and its challenge. */
function refusal(code: AuthErrorCode, detail: string, wwwAuthenticate: string): ApiError {
  return codedError(401, code, { detail, source, headers: { 'www-authenticate': wwwAuthenticate } });
}

/** 400: `Authorization` sent more than once, or with more than one credential (RFC 9110 section 11.6.2). */
export function repeatedAuthorizationError(): ApiError {
  return codedError(400, 'invalid-header', {
    detail: 'Authorization must appear once, with one credential (RFC 9110 section 11.6.2).',
    source,
  });
}

/** 401: `Authorization` in another scheme than `Bearer`; the challenge names no error (section 3.1). */
export function unsupportedSchemeError(realm: string): ApiError {
  return refusal('unsupported-scheme', 'Authorization must use the Bearer scheme.', challenge(realm));
}

/** 401 `invalid_token`: a bearer token that is not a b64token (`malformed`), or failed verification. */
export function invalidTokenError(realm: string, why: 'malformed' | 'refused'): ApiError {
  return refusal(
    'invalid-token',
    why === 'malformed' ? 'The bearer token is malformed.' : 'The bearer token is invalid or expired.',
    challenge(realm, 'invalid_token'),
  );
}

/** 401: no credentials where the route needs a caller (`requireAuth`, `ownedResource`, ...). */
export function unauthenticatedError(realm: string): ApiError {
  return refusal('unauthenticated', 'This resource needs a bearer token.', challenge(realm));
}

/** 403 `insufficient_scope`: the principal lacks `missing` of the route's `scopes` (section 3.1). */
export function insufficientScopeError(
  realm: string,
  missing: readonly string[],
  scopes: readonly string[],
): ApiError {
  return codedError(403, 'insufficient-scope', {
    detail: `This operation needs the scope ${missing.join(' ')}.`,
    headers: {
      'www-authenticate': challenge(realm, 'insufficient_scope', `, scope="${scopes.join(' ')}"`),
    },
  });
}
