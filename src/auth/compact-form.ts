import * as joseErrors from 'jose/errors';

/**
 * The one spelling a JWS compact serialization may take here (RFC 7515 section 7.1): three segments,
 * each canonical base64url (RFC 7515 section 2, RFC 4648 section 3.5): the URL-safe alphabet only,
 * no padding, and the unused low bits of the last character zero. A token that other decoders
 * would forgive (`=` padding, other values of those bits) is another string for the same bytes,
 * and would be cached, logged and rate limited as a different token: it is refused.
 */
const ALPHABET = /^[A-Za-z0-9_-]*$/;
const VALUES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Whether `segment` is the canonical base64url encoding of some bytes. */
export function isCanonicalBase64url(segment: string): boolean {
  const tail = segment.length % 4;
  if (tail === 1 || !ALPHABET.test(segment)) return false;
  if (tail === 0) return true;
  // 2 characters carry 1 byte (4 bits unused), 3 carry 2 bytes (2 bits unused).
  const last = VALUES.indexOf(segment[segment.length - 1]!);
  return (last & (tail === 2 ? 0b1111 : 0b11)) === 0;
}

/** Throws jose's `JWSInvalid` unless `token` is three canonical base64url segments. */
export function assertCanonicalJws(token: string): void {
  const segments = token.split('.', 4);
  if (segments.length !== 3 || !segments.every(isCanonicalBase64url)) {
    throw new joseErrors.JWSInvalid('JWS must be three canonical base64url segments');
  }
}

/**
 * `typ`, when present, must say JWT (RFC 8725 section 3.11, RFC 7519 section 5.1: `JWT` or
 * `application/jwt`, compared without regard to case as media types are), so that a token of
 * another kind (`typ: "none"`, `at+jwt` for another audience, a JWS of some other protocol) is
 * not taken for an access token of this API.
 */
export function assertJwtType(header: { readonly typ?: unknown }): void {
  const { typ } = header;
  if (typ === undefined) return;
  if (typeof typ === 'string' && /^(?:application\/)?jwt$/i.test(typ)) return;
  throw new joseErrors.JWSInvalid('JWS "typ" Header Parameter must be "JWT" when present');
}
