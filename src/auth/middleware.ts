import { defineMiddleware } from '../core/compose.js';
import { describeLayer } from '../core/contract.js';
import type { ApiResponse, Context, Middleware, Principal } from '../core/types.js';
import { ApiError } from '../errors/api-error.js';
import { renderError } from '../errors/render.js';
import { InvalidTokenError, type TokenVerifier } from './verifier.js';

export interface AuthenticateOptions {
  readonly verifier: TokenVerifier;
  /** The `realm` of the `WWW-Authenticate` challenge (RFC 6750 section 3). Default `api`. */
  readonly realm?: string;
  /**
   * Runs around every authentication failure (a bad, expired or malformed credential, another
   * scheme), typically the app's `rateLimit`: the failed request has no principal, so the limiter
   * counts it against the caller's address and answers 429 once over quota; under quota the 401 goes
   * out with the limiter's headers. Without it, failures are never counted: a client could try
   * tokens without limit. Pass the same limiter the app uses after `authenticate`, so anonymous
   * requests and failures from one address share one bucket.
   */
  readonly failureLimit?: Middleware;
}

// RFC 6750 section 2.1: b64token
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;
const TCHAR = /^[!#$%&'*+.^_`|~0-9A-Za-z-]$/;
const WHITESPACE = /^\s$/;

/** Index of the first character at or after `at` that is not a space or tab. */
function skipSpaceOrTab(value: string, at: number): number {
  while (value[at] === ' ' || value[at] === '\t') at++;
  return at;
}

/**
 * Whether `value` is a credential, a comma, then a second one: `<scheme> ..., <scheme> <credentials>`
 * (or `<scheme>` at the end). Neither a b64token nor a token68 holds a comma, and an auth-param after
 * a comma is `name=value`, so this is a repeated `Authorization` field joined into one value (RFC 9110
 * sections 5.3, 11.6.2). Adapters hand repeated fields over joined (the node adapter too).
 *
 * The same decision as `/^[ \t]*tchar+[^,]*,[ \t]*tchar+(?: +[^\s=]|[ \t]*$)/` in one pass: only the
 * first comma can follow the first credential, and the token after it is taken whole. That
 * expression backtracks quadratically on a long value with a comma (about 200 ms of CPU for 8 KB),
 * and costs about 7 us on every bearer token without one.
 */
export function hasSecondCredential(value: string): boolean {
  const start = skipSpaceOrTab(value, 0);
  if (!TCHAR.test(value[start] ?? '')) return false;
  const comma = value.indexOf(',', start);
  if (comma === -1) return false;
  let at = skipSpaceOrTab(value, comma + 1);
  if (!TCHAR.test(value[at] ?? '')) return false;
  while (at < value.length && TCHAR.test(value[at]!)) at++;
  let afterSpaces = at;
  while (value[afterSpaces] === ' ') afterSpaces++;
  const next = value[afterSpaces];
  if (afterSpaces > at && next !== undefined && next !== '=' && !WHITESPACE.test(next)) return true;
  return skipSpaceOrTab(value, at) === value.length;
}

function challenge(realm: string, error?: string, extra = ''): string {
  return error === undefined
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="${error}"${extra}`;
}

/**
 * Stateless authentication: verifies `Authorization: Bearer <token>` on every request and sets
 * `ctx.principal`. No credentials: the request goes on anonymously (routes that need a caller use
 * {@link requireAuth} or {@link requireScopes}). Bad credentials: 401 with a `WWW-Authenticate`
 * challenge (RFC 6750 section 3.1), whatever the route.
 *
 * @example createApp({ use: [authenticate({ verifier: hs256Verifier({ secret }) })] })
 */
export function authenticate(options: AuthenticateOptions): Middleware {
  const realm = options.realm ?? 'api';
  const { verifier, failureLimit } = options;
  if (failureLimit !== undefined && typeof failureLimit !== 'function') {
    throw new TypeError('authenticate: failureLimit must be a middleware (such as rateLimit(...))');
  }
  /** Refuse the credentials: through the failure limiter when there is one (its 429 wins). */
  const refuse = (ctx: Context, error: ApiError): never | Promise<ApiResponse> => {
    if (failureLimit === undefined) throw error;
    return failureLimit(ctx, () => Promise.resolve(renderError(error, ctx)));
  };
  const invalidToken = (ctx: Context, error: unknown): never | Promise<ApiResponse> => {
    if (!(error instanceof InvalidTokenError)) throw error;
    return refuse(
      ctx,
      new ApiError(401, {
        code: 'invalid-token',
        detail: 'The bearer token is invalid or expired.',
        source: { header: 'Authorization' },
        headers: { 'www-authenticate': challenge(realm, 'invalid_token') },
      }),
    );
  };
  const layer = defineMiddleware({
    // Anonymous requests pass without waiting; only a presented token is verified.
    before: function authenticateRequest(ctx) {
      const header = ctx.request.headers.get('authorization');
      if (header === undefined) return undefined;
      if (hasSecondCredential(header)) {
        return refuse(
          ctx,
          new ApiError(400, {
            code: 'invalid-header',
            detail: 'Authorization must appear once, with one credential (RFC 9110 section 11.6.2).',
            source: { header: 'Authorization' },
          }),
        );
      }
      const match = BEARER.exec(header);
      if (match === null) {
        // Another scheme: challenge without an error code (RFC 6750 section 3.1); a Bearer credential
        // that is not a b64token is an invalid token.
        const bearer = BEARER_SCHEME.test(header);
        return refuse(
          ctx,
          new ApiError(401, {
            code: bearer ? 'invalid-token' : 'unsupported-scheme',
            detail: bearer ? 'The bearer token is malformed.' : 'Authorization must use the Bearer scheme.',
            source: { header: 'Authorization' },
            headers: { 'www-authenticate': bearer ? challenge(realm, 'invalid_token') : challenge(realm) },
          }),
        );
      }
      return Promise.resolve()
        .then(() => verifier.verify(match[1]!))
        .then(
          (principal): undefined => {
            ctx.principal = principal;
            return undefined;
          },
          (error: unknown) => invalidToken(ctx, error),
        );
    },
  });
  return describeLayer(layer, AUTHENTICATE_CONTRACT);
}

/** The 401 `requireAuth` answers (also used by `ownedResource`, so both answer identically). */
export function unauthenticated(realm: string): ApiError {
  return new ApiError(401, {
    code: 'unauthenticated',
    detail: 'This resource needs a bearer token.',
    source: { header: 'Authorization' },
    headers: { 'www-authenticate': challenge(realm) },
  });
}

/** 401 unless the request is authenticated. */
export function requireAuth(
  options: { readonly realm?: string } = {},
): Middleware<Context, { readonly principal: Principal }> {
  const realm = options.realm ?? 'api';
  const layer = defineMiddleware<Context, undefined, { readonly principal: Principal }>({
    before: function requireAuthentication(ctx) {
      if (ctx.principal === undefined) throw unauthenticated(realm);
      return undefined;
    },
  });
  return describeLayer(layer, { security: { scopes: [] }, responses: { 401: UNAUTHENTICATED } });
}

/**
 * 401 unless authenticated, 403 unless the principal holds every listed scope
 * (`error="insufficient_scope"`, RFC 6750 section 3.1).
 *
 * @example use: [requireScopes({ scopes: ['standards:write'] })]
 */
export function requireScopes(options: {
  readonly scopes: readonly string[];
  readonly realm?: string;
}): Middleware<Context, { readonly principal: Principal }> {
  const realm = options.realm ?? 'api';
  const scopes = [...options.scopes];
  if (scopes.length === 0 || scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
    throw new TypeError('requireScopes: give one or more scope tokens (RFC 6749 section 3.3)');
  }
  const scopeList = scopes.join(' ');
  const layer = defineMiddleware<Context, undefined, { readonly principal: Principal }>({
    before: function checkScopes(ctx) {
      const { principal } = ctx;
      if (principal === undefined) throw unauthenticated(realm);
      const missing = scopes.filter((s) => !principal.scopes.has(s));
      if (missing.length > 0) {
        throw new ApiError(403, {
          code: 'insufficient-scope',
          detail: `This operation needs the scope ${missing.join(' ')}.`,
          headers: { 'www-authenticate': challenge(realm, 'insufficient_scope', `, scope="${scopeList}"`) },
        });
      }
      return undefined;
    },
  });
  return describeLayer(layer, {
    security: { scopes },
    responses: {
      401: UNAUTHENTICATED,
      403: {
        description: 'Forbidden: the token lacks a required scope.',
        headers: { 'WWW-Authenticate': CHALLENGE },
      },
    },
  });
}

const CHALLENGE = { description: 'The Bearer challenge (RFC 6750 section 3).', required: true };
const UNAUTHENTICATED = {
  description: 'Unauthorized: no valid bearer token.',
  headers: { 'WWW-Authenticate': CHALLENGE },
};

/** A presented token is verified on every route: a bad one is refused, two credentials are a 400. */
const AUTHENTICATE_CONTRACT = {
  responses: {
    400: { description: 'Bad Request: more than one Authorization field.' },
    401: {
      description: 'Unauthorized: the bearer token is invalid or expired.',
      headers: { 'WWW-Authenticate': CHALLENGE },
    },
  },
};
