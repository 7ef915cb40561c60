import { InvalidTokenError } from './invalid-token.js';

/** Default bound on a token's age and lifetime: 24 hours. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;
/** Default clock skew tolerated between the issuer and this server: 30 seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** What {@link checkTimeClaims} checks against. */
export interface TimeClaimsPolicy {
  /** The current time, in seconds since the epoch (a JWT NumericDate, RFC 7519 section 2). */
  readonly nowSeconds: number;
  /** The longest a token may live and the oldest it may be, in seconds, measured from `iat`. */
  readonly maxTokenAgeSeconds: number;
  /** Skew allowed on every comparison with the clock, in seconds. */
  readonly clockToleranceSeconds: number;
}

/**
 * Check the time claims of a verified JWT payload (RFC 7519 sections 4.1.4 and 4.1.6), so that no
 * token lives for ever and none comes from the future:
 * - `exp` is required, a finite number, and not past (`exp > now - tolerance`);
 * - with `iat`: not in the future (`iat <= now + tolerance`), not older than the maximum age
 *   (`now - iat <= maxAge + tolerance`), and a lifetime `exp - iat` of at most the maximum age;
 * - without `iat`: `exp` at most the maximum age (plus tolerance) from now, so the lifetime is
 *   bounded all the same.
 * Throws {@link InvalidTokenError} naming the failed check (a server-side message, never sent).
 * Used by every verifier in this module, whatever checks the signature.
 *
 * @example
 * checkTimeClaims({ iat: 1_700_000_000, exp: 1e308 }, { nowSeconds: 1_700_000_010, maxTokenAgeSeconds: 86_400, clockToleranceSeconds: 30 })
 * // throws InvalidTokenError('token lifetime exceeds the maximum')
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.10
 */
export function checkTimeClaims(
  payload: { readonly exp?: unknown; readonly iat?: unknown; readonly [claim: string]: unknown },
  policy: TimeClaimsPolicy,
): void {
  const { nowSeconds: now, maxTokenAgeSeconds: maxAge, clockToleranceSeconds: skew } = policy;
  const { exp, iat } = payload;
  if (typeof exp !== 'number' || !Number.isFinite(exp))
    throw new InvalidTokenError('exp is missing or not a number');
  if (exp <= now - skew) throw new InvalidTokenError('token expired');
  if (iat === undefined) {
    if (exp > now + maxAge + skew) throw new InvalidTokenError('token without iat expires too far ahead');
    return;
  }
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new InvalidTokenError('iat is not a number');
  if (iat > now + skew) throw new InvalidTokenError('token issued in the future');
  if (now - iat > maxAge + skew) throw new InvalidTokenError('token older than the maximum age');
  if (exp - iat > maxAge) throw new InvalidTokenError('token lifetime exceeds the maximum');
}

/**
 * Read `maxTokenAgeSeconds` and `clockToleranceSeconds` from verifier options, with their defaults;
 * a bad value throws a `TypeError` naming the option (at start-up).
 */
export function timeClaimsOptions(
  name: string,
  options: { readonly maxTokenAgeSeconds?: number; readonly clockToleranceSeconds?: number },
): { readonly maxTokenAgeSeconds: number; readonly clockToleranceSeconds: number } {
  const maxTokenAgeSeconds = options.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS;
  if (!Number.isFinite(maxTokenAgeSeconds) || maxTokenAgeSeconds <= 0) {
    throw new TypeError(
      `${name}: maxTokenAgeSeconds must be a positive number, got ${String(maxTokenAgeSeconds)}`,
    );
  }
  const clockToleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  if (!Number.isFinite(clockToleranceSeconds) || clockToleranceSeconds < 0) {
    throw new TypeError(
      `${name}: clockToleranceSeconds must be a non-negative number, got ${String(clockToleranceSeconds)}`,
    );
  }
  return { maxTokenAgeSeconds, clockToleranceSeconds };
}
