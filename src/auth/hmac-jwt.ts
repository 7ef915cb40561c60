import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';
import * as joseErrors from 'jose/errors';
import { deepFreeze } from '../core/deep-freeze.js';
import { isCanonicalBase64url } from './compact-form.js';

/**
 * A synchronous verifier for JWTs signed with HMAC (HS256, HS384, HS512; RFC 7518 section 3.2) in
 * the JWS compact serialization (RFC 7515 section 7.1), doing with `node:crypto` what `jwtVerify`
 * does with WebCrypto, in the same order and with the same outcome:
 *
 * 1. three segments, each strict base64url (RFC 7515 section 2: no padding, no other characters);
 * 2. the protected header a JSON object in well-formed UTF-8, with `alg` a non-empty string on the
 *    allow-list (RFC 8725 section 3.1);
 * 3. the MAC over `header.payload`, compared in constant time;
 * 4. the claims a JSON object; `iss`, `aud`, `sub` and `exp` present as required; `iat` and `nbf`
 *    numbers when present; `nbf` not in the future and `exp` not in the past beyond the tolerance
 *    (RFC 7519 section 4.1).
 *
 * Verified tokens are remembered (see {@link VERIFIED_TOKENS_CACHED}); their claims are frozen.
 *
 * A failure throws the error jose would throw (its class, code and message). A token outside this
 * fast path's scope returns {@link DELEGATE} and is left to jose: a `crit` header (RFC 7515 section
 * 4.1.11, including the `b64` extension of RFC 7797), an `alg` that is not HMAC, or a segment that is
 * not canonical base64url (jose's decoder forgives whitespace and padding).
 */
export const DELEGATE: unique symbol = Symbol('delegate to jose');

export interface HmacJwtOptions {
  /** The shared secret; copied once. */
  readonly secret: Uint8Array;
  readonly algorithms: readonly string[];
  readonly issuer?: string;
  readonly audience?: string;
  readonly clockToleranceSeconds: number;
  readonly now?: () => number;
  /** Verified tokens remembered (default {@link VERIFIED_TOKENS_CACHED}); 0 remembers none. */
  readonly cacheSize?: number;
  /** A further check of the protected header, run after the MAC; it throws to refuse the token. */
  readonly checkHeader?: (header: Readonly<Record<string, unknown>>) => void;
}

/**
 * How many verified tokens a verifier remembers, the oldest forgotten first. A remembered token is
 * answered without the HMAC while its `exp` and `nbf` still hold at the current time; the key and
 * the options are fixed for the verifier's life, so nothing else can make it invalid.
 */
const VERIFIED_TOKENS_CACHED = 1_000;
/** Longer tokens are verified every time, so the cache holds at most about 4 MB of tokens. */
const LONGEST_CACHED_TOKEN = 4_096;

/** `alg` values and their `node:crypto` digests (RFC 7518 section 3.1). */
const HMAC_DIGESTS: Readonly<Record<string, string>> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const CHECK_FAILED = 'check_failed';

/** JSON text to a plain object, or `undefined` (jose's `isObject` after `JSON.parse`). */
function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  const value: unknown = JSON.parse(strictUtf8.decode(bytes));
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function claimFailed(message: string, claims: JWTPayload, claim: string, reason: string): never {
  throw new joseErrors.JWTClaimValidationFailed(message, claims, claim, reason);
}

/** The value of a NumericDate claim when present, which must then be a number (RFC 7519 section 2). */
function numericDate(claims: JWTPayload, claim: string): number | undefined {
  const value = claims[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') claimFailed(`"${claim}" claim must be a number`, claims, claim, 'invalid');
  return value;
}

function hasAudience(aud: unknown, audience: string): boolean {
  if (typeof aud === 'string') return aud === audience;
  return Array.isArray(aud) && aud.includes(audience);
}

/**
 * Returns a function that verifies a token and returns its claims, throws jose's error for an
 * invalid one, or returns {@link DELEGATE} for a token only jose handles.
 */
export function hmacJwtVerifier(options: HmacJwtOptions): (token: string) => JWTPayload | typeof DELEGATE {
  const allowed = new Set(options.algorithms);
  const key: KeyObject = createSecretKey(Uint8Array.prototype.slice.call(options.secret));
  const { issuer, audience, now, checkHeader } = options;
  const tolerance = options.clockToleranceSeconds;
  const cacheSize = options.cacheSize ?? VERIFIED_TOKENS_CACHED;
  const verified = new Map<string, JWTPayload>();
  const currentSeconds = () => {
    const seconds = Math.floor((now === undefined ? Date.now() : new Date(now()).getTime()) / 1000);
    if (!Number.isFinite(seconds)) throw new TypeError('Invalid currentDate option input');
    return seconds;
  };
  // jose's presence check order: iss, aud, sub, exp.
  const required = [
    ...(issuer === undefined ? [] : ['iss']),
    ...(audience === undefined ? [] : ['aud']),
    'sub',
    'exp',
  ];

  return function verifyHmacJwt(token) {
    const remembered = verified.get(token);
    if (remembered !== undefined) {
      const nowSeconds = currentSeconds();
      const { exp, nbf } = remembered as { exp: number; nbf?: number };
      if (exp > nowSeconds - tolerance && (nbf === undefined || nbf <= nowSeconds + tolerance))
        return remembered;
      verified.delete(token);
    }
    const first = token.indexOf('.');
    const second = token.indexOf('.', first + 1);
    if (first < 0 || second < 0 || token.indexOf('.', second + 1) >= 0) return DELEGATE;
    const encodedHeader = token.slice(0, first);
    const encodedPayload = token.slice(first + 1, second);
    const encodedSignature = token.slice(second + 1);
    // Only the one spelling of each segment (see compact-form.ts); any other is jose's to refuse.
    if (
      !isCanonicalBase64url(encodedHeader) ||
      !isCanonicalBase64url(encodedPayload) ||
      !isCanonicalBase64url(encodedSignature)
    ) {
      return DELEGATE;
    }

    let header: Record<string, unknown> | undefined;
    try {
      header = parseObject(Buffer.from(encodedHeader, 'base64url'));
    } catch (cause) {
      throw new joseErrors.JWSInvalid('JWS Protected Header is invalid', { cause });
    }
    if (header === undefined) throw new joseErrors.JWSInvalid('JWS Protected Header is invalid');
    if (header.crit !== undefined) return DELEGATE;
    const { alg } = header;
    if (typeof alg !== 'string' || alg === '') {
      throw new joseErrors.JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
    }
    if (!allowed.has(alg)) {
      throw new joseErrors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
    }
    const digest = HMAC_DIGESTS[alg];
    if (digest === undefined) return DELEGATE;

    const signature = Buffer.from(encodedSignature, 'base64url');
    const mac = createHmac(digest, key).update(token.slice(0, second)).digest();
    if (signature.length !== mac.length || !timingSafeEqual(signature, mac)) {
      throw new joseErrors.JWSSignatureVerificationFailed();
    }
    // Where jose checks its `typ` option: after the signature, before the claims.
    checkHeader?.(header);

    let claims: JWTPayload | undefined;
    try {
      claims = parseObject(Buffer.from(encodedPayload, 'base64url'));
    } catch (cause) {
      throw new joseErrors.JWTInvalid('JWT Claims Set must be a top-level JSON object', { cause });
    }
    if (claims === undefined)
      throw new joseErrors.JWTInvalid('JWT Claims Set must be a top-level JSON object');
    for (const claim of required) {
      if (!Object.hasOwn(claims, claim))
        claimFailed(`missing required "${claim}" claim`, claims, claim, 'missing');
    }
    if (issuer !== undefined && claims.iss !== issuer)
      claimFailed('unexpected "iss" claim value', claims, 'iss', CHECK_FAILED);
    if (audience !== undefined && !hasAudience(claims.aud, audience)) {
      claimFailed('unexpected "aud" claim value', claims, 'aud', CHECK_FAILED);
    }
    const nowSeconds = currentSeconds();
    numericDate(claims, 'iat');
    const nbf = numericDate(claims, 'nbf');
    if (nbf !== undefined && nbf > nowSeconds + tolerance) {
      claimFailed('"nbf" claim timestamp check failed', claims, 'nbf', CHECK_FAILED);
    }
    const exp = numericDate(claims, 'exp');
    if (exp !== undefined && exp <= nowSeconds - tolerance) {
      throw new joseErrors.JWTExpired('"exp" claim timestamp check failed', claims, 'exp', CHECK_FAILED);
    }
    if (cacheSize > 0 && token.length <= LONGEST_CACHED_TOKEN) {
      if (verified.size >= cacheSize) verified.delete(verified.keys().next().value as string);
      // Shared by every request that presents the token, so nobody can change it for the others.
      verified.set(token, deepFreeze(claims));
    }
    return claims;
  };
}
