import { defineMiddleware } from '../core/compose.js';
import { contractOf, describeLayer, type OperationContract, type StatusContract } from '../core/contract.js';
import type { ApiError } from '../errors/api-error.js';
import { realmOption } from '../errors/option-checks.js';
import { renderError } from '../errors/render.js';
import { type EarlyResponse, earlyResponse } from '../http/middleware-hooks.js';
import type { Context, Middleware, Principal } from '../http/types.js';
import { bearerCredential, missingScopes } from './credentials.js';
import {
  insufficientScopeError,
  invalidTokenError,
  repeatedAuthorizationError,
  unauthenticatedError,
  unsupportedSchemeError,
} from './errors.js';
import {
  type ImmediateTokenVerifier,
  InvalidTokenError,
  type TokenVerifier,
  VERIFY_NOW,
} from './verifier.js';

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

/** The error for a refused `Authorization` field (see {@link bearerCredential}). */
function refusedCredentialError(reason: 'repeated' | 'malformed' | 'other-scheme', realm: string): ApiError {
  if (reason === 'repeated') return repeatedAuthorizationError();
  // Another scheme: challenge without an error code (RFC 6750 section 3.1); a Bearer credential
  // that is not a b64token is an invalid token.
  return reason === 'malformed' ? invalidTokenError(realm, 'malformed') : unsupportedSchemeError(realm);
}

/**
 * Stateless authentication: verifies `Authorization: Bearer <token>` on every request and sets
 * `ctx.var.principal`. No credentials: the request goes on anonymously (routes that need a caller use
 * {@link requireAuth} or {@link requireScopes}). Bad credentials: 401 with a `WWW-Authenticate`
 * challenge (RFC 6750 section 3.1), whatever the route.
 *
 * @example createApp({ use: [authenticate({ verifier: hs256Verifier({ secret }) })] })
 */
export function authenticate(options: AuthenticateOptions): Middleware {
  const realm = realmOption('authenticate', options.realm);
  const { verifier, failureLimit } = options;
  if (failureLimit !== undefined && typeof failureLimit !== 'function') {
    throw new TypeError('authenticate: failureLimit must be a middleware (such as rateLimit(...))');
  }
  const verifyNow = (verifier as Partial<ImmediateTokenVerifier>)[VERIFY_NOW];
  /** Refuse the credentials: through the failure limiter when there is one (its 429 wins). */
  const refuse = (ctx: Context, error: ApiError): never | Promise<EarlyResponse> => {
    if (failureLimit === undefined) throw error;
    return failureLimit(ctx, () => Promise.resolve(renderError(error, ctx))).then(earlyResponse);
  };
  const invalidToken = (ctx: Context, error: unknown): never | Promise<EarlyResponse> => {
    if (!(error instanceof InvalidTokenError)) throw error;
    return refuse(ctx, invalidTokenError(realm, 'refused'));
  };
  const layer = defineMiddleware({
    // Anonymous requests pass without waiting; only a presented token is verified.
    before: function authenticateRequest(ctx) {
      const credential = bearerCredential(ctx.request.headers.get('authorization'));
      if (credential.kind === 'absent') return undefined;
      if (credential.kind === 'refused') return refuse(ctx, refusedCredentialError(credential.reason, realm));
      const { token } = credential;
      // The library's HMAC verifier answers at once (a throw here is the same refusal as a rejection).
      if (verifyNow !== undefined) {
        let principal: Principal | undefined;
        try {
          principal = verifyNow(token);
        } catch (error) {
          return invalidToken(ctx, error);
        }
        if (principal !== undefined) {
          ctx.var.principal = principal;
          return undefined;
        }
      }
      // A verifier that throws instead of rejecting is treated alike; its promise is used as it is.
      let verified: Promise<Principal>;
      try {
        verified = Promise.resolve(verifier.verify(token));
      } catch (error) {
        verified = Promise.reject(error);
      }
      return verified.then(
        (principal): undefined => {
          ctx.var.principal = principal;
          return undefined;
        },
        (error: unknown) => invalidToken(ctx, error),
      );
    },
  });
  return describeLayer(layer, authenticateContract(failureLimit));
}

/** 401 unless the request is authenticated. */
export function requireAuth(
  options: { readonly realm?: string } = {},
): Middleware<Context, { readonly principal: Principal }> {
  const realm = realmOption('requireAuth', options.realm);
  const layer = defineMiddleware<Context, undefined, { readonly principal: Principal }>({
    before: function requireAuthentication(ctx) {
      if (ctx.var.principal === undefined) throw unauthenticatedError(realm);
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
  const realm = realmOption('requireScopes', options.realm);
  const scopes = [...options.scopes];
  if (scopes.length === 0 || scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
    throw new TypeError('requireScopes: give one or more scope tokens (RFC 6749 section 3.3)');
  }
  const layer = defineMiddleware<Context, undefined, { readonly principal: Principal }>({
    before: function checkScopes(ctx) {
      const { principal } = ctx.var;
      if (principal === undefined) throw unauthenticatedError(realm);
      const missing = missingScopes(principal.scopes, scopes);
      if (missing.length > 0) {
        throw insufficientScopeError(realm, missing, scopes);
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
const AUTHENTICATE_CONTRACT: OperationContract & { readonly responses: Record<number, StatusContract> } = {
  responses: {
    400: { description: 'Bad Request: more than one Authorization field.' },
    401: {
      description: 'Unauthorized: the bearer token is invalid or expired.',
      headers: { 'WWW-Authenticate': CHALLENGE },
    },
  },
};

/**
 * With a failure limiter, every route (those the app's own limiter skips included) may also answer
 * the limiter's statuses (429), and a refusal carries the limiter's headers: it passed through it.
 */
function authenticateContract(failureLimit: Middleware | undefined): OperationContract {
  const limits = failureLimit === undefined ? [] : contractOf(failureLimit);
  if (limits.length === 0) return AUTHENTICATE_CONTRACT;
  // Absent when the limiter's store fails and it lets the request through.
  const headers = Object.fromEntries(
    limits
      .flatMap((c) => Object.entries(c.allHeaders ?? {}))
      .map(([name, h]) => [name, { ...h, required: false }]),
  );
  const responses: Record<number, StatusContract> = {};
  for (const contract of [...limits, AUTHENTICATE_CONTRACT]) {
    for (const [code, status] of Object.entries(contract.responses ?? {}))
      responses[Number(code)] = { ...status, headers: { ...headers, ...status.headers } };
  }
  return { responses };
}
