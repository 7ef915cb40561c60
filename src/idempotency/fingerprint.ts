import { createHash, hash } from 'node:crypto';
import { essence } from '../http/media-types.js';
import { type JsonText, parseJsonText } from '../validation/json-text.js';

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
  const names = sortNames(Object.keys(record));
  let text = '{';
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const member = record[name];
    if (member === undefined) continue;
    text += `${(text.length === 1 ? '' : ',') + jsonString(name)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/**
 * Names in UTF-16 code unit order, as `Array.prototype.sort` orders strings. Objects in request
 * bodies have a handful of members, for which an insertion sort costs a fraction of the built-in's
 * set-up; larger ones use the built-in.
 */
function sortNames(names: string[]): string[] {
  if (names.length > 16) return names.sort();
  for (let i = 1; i < names.length; i++) {
    const name = names[i] as string;
    let j = i - 1;
    for (; j >= 0 && (names[j] as string) > name; j--) names[j + 1] = names[j] as string;
    names[j + 1] = name;
  }
  return names;
}

/**
 * A string as `JSON.stringify` writes it. Calling `JSON.stringify` costs a trip into the engine's
 * C++ per value, so the common case (printable ASCII but `"` and `\`: nothing to escape) is quoted
 * here; a finite number likewise is `String(value)`, the same text.
 */
function jsonString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(value);
  }
  return `"${value}"`;
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

/**
 * The request fingerprint stored with a key (draft-ietf-httpapi-idempotency-key-header section 2.4):
 * one SHA-256 over method, path, query, the body's media type (lower-cased, without parameters) and
 * the body, each on a line of its own, the body after a line naming its form: `json` and the body in
 * canonical form (a JSON body by `Content-Type`, so key order and whitespace do not matter), `bytes`
 * and the body as it came (any other body, or one that is not JSON text, see `parseJsonText`), or
 * `empty`. No field before the body holds a line feed, so no two requests spell the same text. The
 * same key with another fingerprint is a different request (422).
 *
 * @example
 * requestFingerprint({ method: 'POST', path: '/orders', search: '', contentType: 'application/json', body });
 */
export function requestFingerprint(input: FingerprintInput): string {
  return fingerprintOf(input, parseJsonText);
}

/**
 * {@link requestFingerprint} with the body read as JSON by `parse`: the middleware passes a parse it
 * shares with the body decoder, so the bytes are parsed once per request.
 */
export function fingerprintOf(input: FingerprintInput, parse: (body: Uint8Array) => JsonText): string {
  const { contentType, body } = input;
  const mediaType = contentType === undefined ? '' : essence(contentType);
  const head = `${input.method}\n${input.path}\n${input.search}\n${mediaType}\n`;
  if (body.byteLength === 0) return sha256(`${head}empty\n`);
  if (contentType !== undefined && JSON_TYPE.test(contentType)) {
    const canonical = canonicalOrUndefined(parse(body));
    // One string, one hash: the canonical text is hashed with the fields, not digested first.
    if (canonical !== undefined) return sha256(`${head}json\n${canonical}`);
  }
  return createHash('sha256').update(`${head}bytes\n`).update(body).digest('hex');
}

function canonicalOrUndefined(text: JsonText): string | undefined {
  if (!text.ok) return undefined;
  try {
    return canonicalJson(text.value);
  } catch {
    // Nesting deeper than the stack: hashed as bytes.
    return undefined;
  }
}

/** Lower-case hex SHA-256 of a UTF-8 string (one call, no `Hash` object). */
function sha256(data: string): string {
  return hash('sha256', data, 'hex');
}
