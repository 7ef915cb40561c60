import { hash } from 'node:crypto';
import { essence } from '../core/media-types.js';

/**
 * A canonical JSON text: object members sorted by key (UTF-16 code units), no insignificant
 * whitespace, numbers and strings as `JSON.stringify` writes them. This is the serialization of
 * RFC 8785 (JSON Canonicalization Scheme) for the values `JSON.parse` produces.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * @see https://www.rfc-editor.org/rfc/rfc8785
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  // Sorted in place: the array is this call's own. One string built as it goes, no arrays of parts.
  const names = Object.keys(record).sort();
  let text = '{';
  for (const name of names) {
    const member = record[name];
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${jsonString(name)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/** Characters a JSON string holds as they are: printable ASCII but `"` and `\`. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as `JSON.stringify` writes it. Calling `JSON.stringify` costs a trip into the engine's
 * C++ per value, so the common case (nothing to escape) is quoted here; a finite number likewise is
 * `String(value)`, the same text.
 */
function jsonString(value: string): string {
  return PLAIN_JSON_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** What identifies "the same request" for an idempotency key. */
export interface FingerprintInput {
  /** Upper-case method. */
  readonly method: string;
  /** The path in its route's canonical form (see `canonicalPath`), so `/orders/` is `/orders`. */
  readonly path: string;
  /** Raw query string without `?` (`""` when absent). */
  readonly search: string;
  /**
   * The request's `Content-Type`: its media type is part of the request (the same bytes as
   * `application/json` and as `application/vnd.api+json` are different requests), and it decides
   * whether the body is compared as JSON. Parameters and case do not count.
   */
  readonly contentType: string | undefined;
  readonly body: Uint8Array;
}

const JSON_TYPE = /^application\/(?:[^;\s]*\+)?json\s*(?:;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's digest: a JSON body (by `Content-Type`) is hashed in canonical form, so key order and
 * whitespace do not matter; any other body (or JSON that does not parse) is hashed as bytes.
 */
export function bodyDigest(contentType: string | undefined, body: Uint8Array): string {
  if (body.byteLength === 0) return 'empty';
  if (contentType !== undefined && JSON_TYPE.test(contentType)) {
    const canonical = canonicalOrUndefined(body);
    if (canonical !== undefined) return `json:${sha256(canonical)}`;
  }
  return `bytes:${sha256(body)}`;
}

function canonicalOrUndefined(body: Uint8Array): string | undefined {
  try {
    return canonicalJson(JSON.parse(utf8.decode(body)));
  } catch {
    return undefined;
  }
}

/**
 * The request fingerprint stored with a key (draft-ietf-httpapi-idempotency-key-header section 2.4):
 * a SHA-256 over method, path, query, the body's media type (lower-cased, without parameters) and the
 * canonical body digest. The same key with another fingerprint is a different request (422).
 *
 * @example
 * requestFingerprint({ method: 'POST', path: '/orders', search: '', contentType: 'application/json', body });
 */
export function requestFingerprint(input: FingerprintInput): string {
  const digest = bodyDigest(input.contentType, input.body);
  const mediaType = input.contentType === undefined ? '' : essence(input.contentType);
  return sha256(`${input.method}\n${input.path}\n${input.search}\n${mediaType}\n${digest}`);
}

/** Lower-case hex SHA-256 of a UTF-8 string or of bytes (one call, no `Hash` object). */
function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
