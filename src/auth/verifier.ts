import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { JOSEError } from 'jose/errors';
import type { Principal } from '../http/types.js';
import { checkTimeClaims, timeClaimsOptions } from './claims.js';
import { assertCanonicalJws, assertJwtType } from './compact-form.js';
import { DELEGATE, hmacJwtVerifier } from './hmac-jwt.js';
import { InvalidTokenError } from './invalid-token.js';

export { InvalidTokenError };

/**
 * Checks a bearer token and says who it is for. Implement it to plug in any scheme (RS256 with a
 * JWKS, opaque tokens with introspection, ...). Reject an invalid token by throwing
 * {@link InvalidTokenError}; anything else thrown is treated as a server failure.
 */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/**
 * Resolves the verification key from the token's JOSE header (RFC 7515 section 4.1: `alg`, `kid`),
 * as jose's `createRemoteJWKSet` does. Structural, so that the published declarations do not
 * import jose (an ES module only, which a CommonJS consumer's `tsc` refuses to resolve).
 */
export type JwtKeyResolver = (
  protectedHeader: { readonly alg?: string; readonly kid?: string },
  token: { readonly payload: string | Uint8Array; readonly signature: string; readonly protected?: string },
) => unknown;

/**
 * A Web Crypto key (W3C Web Cryptography API, `CryptoKey`), as the consumer's own typings declare it:
 * the type `crypto.subtle.importKey` resolves to (the DOM lib, `@types/node`), so that compiling the
 * published declarations needs no DOM lib and no global `CryptoKey` (which `@types/node` 20 does not
 * declare); the key's shape where no typings declare Web Crypto. Written out, not imported from jose:
 * jose is an ES module only, whose types a CommonJS consumer's declarations cannot import plainly.
 */
export type WebCryptoKey = typeof globalThis extends {
  readonly crypto: { readonly subtle: { importKey(...args: never[]): Promise<infer Key> } };
}
  ? Key
  : {
      readonly type: string;
      readonly algorithm: { readonly name: string };
      readonly extractable: boolean;
      readonly usages: readonly string[];
    };

/** A verified JWT claims set (RFC 7519 section 4): `sub` and `scope` are read, the rest kept. */
export type JwtClaims = {
  readonly sub?: string;
  readonly scope?: unknown;
  readonly [claim: string]: unknown;
};

export interface JwtVerifierOptions {
  /** A shared secret (HS*), a public key, or a key resolver such as jose's `createRemoteJWKSet`. */
  readonly key: Uint8Array | WebCryptoKey | JwtKeyResolver;
  /** Accepted `alg` values. Required: `none` and unlisted algorithms are always refused. */
  readonly algorithms: readonly string[];
  readonly issuer?: string;
  readonly audience?: string;
  /** Seconds of clock skew tolerated for `exp`/`nbf`/`iat` (default 30). */
  readonly clockToleranceSeconds?: number;
  /** The longest a token may live and the oldest it may be, from `iat` (default 24 h); see `checkTimeClaims`. */
  readonly maxTokenAgeSeconds?: number;
  /** The clock, in ms since the epoch (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/**
 * The principal a verified JWT payload describes: `sub`, space-separated `scope` (RFC 8693 section
 * 4.2). Frozen claims (those the HMAC verifier remembers, presented again by the same caller) get
 * the same principal each time, built once: it is frozen and its scopes cannot be changed, so no
 * request can alter what another is granted.
 */
export function principalFromClaims(payload: JwtClaims): Principal {
  const remembered = Object.isFrozen(payload);
  const known = remembered ? principals.get(payload) : undefined;
  if (known !== undefined) return known;
  if (typeof payload.sub !== 'string' || payload.sub === '')
    throw new InvalidTokenError('The token has no subject.');
  const scope = typeof payload.scope === 'string' ? payload.scope : '';
  const principal: Principal = {
    sub: payload.sub,
    scopes: readOnlySet(scope.split(' ').filter((s) => s !== '')),
    claims: payload,
  };
  if (remembered) principals.set(payload, Object.freeze(principal));
  return principal;
}

/** Principals of remembered (frozen) claims, kept while the verifier remembers the claims. */
const principals = new WeakMap<JwtClaims, Principal>();

/** A set whose own `add`, `delete` and `clear` refuse: scopes, shared by the requests of one token. */
function readOnlySet(values: readonly string[]): ReadonlySet<string> {
  return Object.freeze(Object.assign(new Set(values), { add: refuse, delete: refuse, clear: refuse }));
}

function refuse(): never {
  throw new TypeError("a principal's scopes cannot be changed");
}

/**
 * A JWT verifier: HMAC tokens (HS256, HS384, HS512) are verified by {@link hmacJwtVerifier}; jose,
 * loaded on first use, verifies the others and any token the fast path leaves to it: signature, `alg` allow-list, required `exp` and `sub`, optional
 * `iss`/`aud` (RFC 7519 section 7.2, RFC 8725 section 3.1).
 *
 * @example jwtVerifier({ key: createRemoteJWKSet(new URL(jwksUrl)), algorithms: ['RS256'] })
 */
function invalidToken(error: unknown): never {
  if (error instanceof InvalidTokenError) throw error;
  if (error instanceof JOSEError) throw new InvalidTokenError(error.code, { cause: error });
  throw error;
}

export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const algorithms = [...options.algorithms];
  if (algorithms.length === 0 || algorithms.some((a) => a.toLowerCase() === 'none')) {
    throw new TypeError('jwtVerifier: list the accepted algorithms; "none" is never accepted');
  }
  const bounds = timeClaimsOptions('jwtVerifier', options);
  const verifyOptions = {
    algorithms,
    requiredClaims: ['exp', 'sub'],
    clockTolerance: bounds.clockToleranceSeconds,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  };
  const { key, now } = options;
  // Lifetime and skew bounds (RFC 8725 section 3.10) hold on both paths, on every request.
  // One policy object, its clock reading set on each check: no object copied per request.
  const policy = { ...bounds, nowSeconds: 0 };
  const principalOf = (payload: JwtClaims): Principal => {
    policy.nowSeconds = (now?.() ?? Date.now()) / 1000;
    checkTimeClaims(payload, policy);
    return principalFromClaims(payload);
  };
  const viaJose = async (token: string): Promise<Principal> => {
    const checked = now === undefined ? verifyOptions : { ...verifyOptions, currentDate: new Date(now()) };
    try {
      // jose forgives padding and whitespace: one token has one spelling here.
      assertCanonicalJws(token);
      // Loaded on first use: HMAC tokens are decided without jose (see hmacJwtVerifier).
      const { jwtVerify } = await import('jose');
      const { payload, protectedHeader } =
        typeof key === 'function'
          ? await jwtVerify(token, key as JWTVerifyGetKey, checked)
          : await jwtVerify(token, key, checked);
      assertJwtType(protectedHeader);
      return principalOf(payload);
    } catch (error) {
      return invalidToken(error);
    }
  };
  if (!(key instanceof Uint8Array) || key.byteLength === 0) return { verify: viaJose };
  const fast = hmacJwtVerifier({
    secret: key,
    algorithms,
    clockToleranceSeconds: bounds.clockToleranceSeconds,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
    ...(now === undefined ? {} : { now }),
    checkHeader: assertJwtType,
  });
  // The HMAC path needs no waiting: `authenticate` calls it directly, so a request with a valid
  // token goes on without a promise (see VERIFY_NOW).
  const verifyNow = (token: string): Principal | undefined => {
    let claims: JWTPayload | typeof DELEGATE;
    try {
      // The fast path takes canonical segments only and hands any other token to jose's path, which
      // refuses it; a remembered token was canonical when it was verified.
      claims = fast(token);
      if (claims === DELEGATE) return undefined;
      return principalOf(claims as JwtClaims);
    } catch (error) {
      return invalidToken(error);
    }
  };
  const verifier: ImmediateTokenVerifier = {
    verify(token) {
      let principal: Principal | undefined;
      try {
        principal = verifyNow(token);
      } catch (error) {
        return Promise.reject(error);
      }
      return principal === undefined ? viaJose(token) : Promise.resolve(principal);
    },
    [VERIFY_NOW]: verifyNow,
  };
  return verifier;
}

/**
 * The key of a verifier's synchronous path, internal to the package: called with a token, it returns
 * the principal, throws what `verify` would reject with, or returns `undefined` when only `verify`
 * can decide (the token needs jose). `jwtVerifier` has one for HMAC keys; `authenticate` uses it
 * when present, so the pipeline need not wait for a promise that is already settled.
 */
export const VERIFY_NOW: unique symbol = Symbol('verify now');

/** A verifier with the synchronous path of {@link VERIFY_NOW}. */
export interface ImmediateTokenVerifier extends TokenVerifier {
  readonly [VERIFY_NOW]: (token: string) => Principal | undefined;
}

const MIN_SECRET_BYTES = 32;

function secretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new TypeError(`HS256 secrets must be at least ${MIN_SECRET_BYTES} bytes (RFC 7518 section 3.2)`);
  }
  return bytes;
}

/**
 * HS256 with a shared secret of at least 32 bytes (RFC 7518 section 3.2).
 * @example hs256Verifier({ secret: process.env.AUTH_SECRET })
 */
export function hs256Verifier(options: {
  readonly secret: string | Uint8Array;
  readonly issuer?: string;
  readonly audience?: string;
  readonly now?: () => number;
  /** See {@link JwtVerifierOptions.clockToleranceSeconds} (default 30). */
  readonly clockToleranceSeconds?: number;
  /** See {@link JwtVerifierOptions.maxTokenAgeSeconds} (default 24 h). */
  readonly maxTokenAgeSeconds?: number;
}): TokenVerifier {
  return jwtVerifier({
    key: secretBytes(options.secret),
    algorithms: ['HS256'],
    ...(options.clockToleranceSeconds === undefined
      ? {}
      : { clockToleranceSeconds: options.clockToleranceSeconds }),
    ...(options.maxTokenAgeSeconds === undefined ? {} : { maxTokenAgeSeconds: options.maxTokenAgeSeconds }),
    ...(options.now ? { now: options.now } : {}),
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  });
}

/** What {@link signHs256Token} puts in a token. */
export interface TokenClaims {
  readonly sub: string;
  /** Space-separated scopes. */
  readonly scope?: string;
  /** Lifetime in seconds (default one hour). */
  readonly expiresInSeconds?: number;
}

/** Mint an HS256 token, for development tools and tests. */
export async function signHs256Token(secret: string | Uint8Array, claims: TokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { SignJWT } = await import('jose');
  return new SignJWT(claims.scope === undefined ? {} : { scope: claims.scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresInSeconds ?? 3600))
    .sign(secretBytes(secret));
}
