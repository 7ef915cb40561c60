import type { StoredResponse } from '../store.js';

/**
 * The compact form of a completed idempotency record in the memory store: one Latin-1 string (one
 * byte per character, so V8 keeps it as a flat one-byte string with a 16-byte header) holding
 * everything a replay and the expiry sweep need. A JavaScript object per record and its header
 * dictionary cost several hundred bytes of heap more than the bytes they describe.
 *
 * Layout (big-endian): expiry in ms (6 bytes) | owner id (6 bytes) | fingerprint | status (2 bytes) |
 * header count (1 byte) | each header: name (1-byte code of a well-known name, or 0x80|length and the
 * name) and value (0x8000 | the code of a well-known media type, or a 2-byte length below 0x8000
 * and the UTF-8 value) | body bytes.
 * The fingerprint is 0x01 and the first 8 bytes (64 bits) of a lower-case hex SHA-256 (what
 * `requestFingerprint` makes), else 0x00, a 2-byte length and its UTF-8 bytes.
 */

/** Header names stored as one byte (the default replay allow-list and a few more). */
const KNOWN_NAMES: readonly string[] = [
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
  'location',
  'etag',
  'last-modified',
  'link',
  'cache-control',
  'vary',
  'content-disposition',
  'preference-applied',
];
const CODE_OF = new Map(KNOWN_NAMES.map((name, index) => [name, index]));
/** Header values stored as a 2-byte code (0x8000 | index): the media types this library sends. */
const KNOWN_VALUES: readonly string[] = [
  'application/vnd.api+json',
  'application/json',
  'application/problem+json',
  'application/json; charset=utf-8',
  'text/plain; charset=utf-8',
];
const VALUE_CODE_OF = new Map(KNOWN_VALUES.map((value, index) => [value, 0x8000 | index]));
const MAX_VALUE = 0x7fff;
/**
 * Bytes of a hex SHA-256 fingerprint kept: 64 bits. The fingerprint only tells one request under a
 * key from another of the same caller; matching a stored one on purpose is a second preimage of 64
 * bits (about 2^64 hashes), and an accidental match about one in 10^19.
 */
const DIGEST_BYTES = 8;
const EXPIRY_AT = 0;
const OWNER_AT = 6;
const FINGERPRINT_AT = 12;
const MAX_SHORT = 0xffff;

/**
 * A lower-case hex SHA-256. A pattern, not a loop over the characters: on Bun the loop costs five
 * times as much (about 440 ns against 90), on Node about the same.
 */
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * How a fingerprint is stored: `hex` (a SHA-256 in hex, kept as its first {@link DIGEST_BYTES}
 * bytes) or its UTF-8 length. Checked once per record, then sized and written from this.
 */
type FingerprintForm = { readonly hex: true } | { readonly hex: false; readonly length: number };
const HEX_FORM: FingerprintForm = { hex: true };

function fingerprintForm(fingerprint: string): FingerprintForm {
  if (HEX_SHA256.test(fingerprint)) return HEX_FORM;
  const length = Buffer.byteLength(fingerprint, 'utf8');
  if (length > MAX_SHORT) throw new RangeError('fingerprint longer than 65535 bytes');
  return { hex: false, length };
}

/** Bytes {@link writeFingerprint} writes. */
function fingerprintLength(form: FingerprintForm): number {
  return form.hex ? 1 + DIGEST_BYTES : 3 + form.length;
}

/** Write the fingerprint as stored in a record at `at`; returns the offset after it. */
function writeFingerprint(out: Buffer, fingerprint: string, form: FingerprintForm, at: number): number {
  if (form.hex) {
    out[at++] = 1;
    for (let i = 0; i < 2 * DIGEST_BYTES; i += 2)
      out[at++] = (hexDigit(fingerprint.charCodeAt(i)) << 4) | hexDigit(fingerprint.charCodeAt(i + 1));
    return at;
  }
  out[at] = 0;
  const next = out.writeUInt16BE(form.length, at + 1);
  return next + out.write(fingerprint, next, 'utf8');
}

/** The value of a lower-case hex digit's character code. */
const hexDigit = (code: number): number => (code <= 0x39 ? code - 0x30 : code - 0x57);

/** The fingerprint as stored in a record (a prefix at {@link FINGERPRINT_AT}). */
export function encodeFingerprint(fingerprint: string): Buffer {
  const form = fingerprintForm(fingerprint);
  const bytes = Buffer.allocUnsafe(fingerprintLength(form));
  writeFingerprint(bytes, fingerprint, form, 0);
  return bytes;
}

/** A UTF-16 code unit outside ASCII: text without one is as long in UTF-8 as in JavaScript. */
const NON_ASCII = /[\u0080-\uffff]/;
/** Text this short is copied a character at a time: a call into the runtime costs more (on Bun, 3.5x). */
const SHORT_TEXT = 64;

/** The UTF-8 length of `text`: its length when it is ASCII, as header values almost always are. */
function utf8Length(text: string): number {
  return NON_ASCII.test(text) ? Buffer.byteLength(text, 'utf8') : text.length;
}

/**
 * Write `text` as UTF-8 at `at`; returns the bytes written. Short text is copied as it is checked
 * for ASCII, in one pass; at its first character outside ASCII the runtime writes it all instead.
 */
function writeText(out: Buffer, text: string, at: number): number {
  if (text.length <= SHORT_TEXT) {
    let i = 0;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) break;
      out[at + i] = code;
    }
    if (i === text.length) return i;
  }
  return out.write(text, at, 'utf8');
}

/** Bytes one header takes in a record (its name code or name, its value code or value). */
function headerLength(name: string, value: string): number {
  let size = 3;
  if (CODE_OF.get(name) === undefined) {
    const length = utf8Length(name);
    if (length > 0x7f) throw new RangeError(`header ${name} too long to store`);
    size += length;
  }
  if (VALUE_CODE_OF.get(value) === undefined) {
    const length = utf8Length(value);
    if (length > MAX_VALUE) throw new RangeError(`header ${name} too long to store`);
    size += length;
  }
  return size;
}

function writeHeader(out: Buffer, name: string, value: string, at: number): number {
  const code = CODE_OF.get(name);
  if (code !== undefined) out[at++] = code;
  else {
    const length = writeText(out, name, at + 1);
    out[at] = 0x80 | length;
    at += 1 + length;
  }
  const valueCode = VALUE_CODE_OF.get(value);
  if (valueCode !== undefined) return out.writeUInt16BE(valueCode, at);
  const length = writeText(out, value, at + 2);
  out.writeUInt16BE(length, at);
  return at + 2 + length;
}

/** Write a non-negative integer below 2^48 in 6 bytes, big-endian: two fixed-width writes (on Bun, a third of `writeUIntBE`'s time). */
function writeUInt48(out: Buffer, value: number, at: number): void {
  out.writeUInt16BE(Math.floor(value / 2 ** 32), at);
  out.writeUInt32BE(value >>> 0, at + 2);
}

/** Encode a completed record. `expiresAt` and `ownerId` are non-negative integers below 2^48. */
export function encodeRecord(
  expiresAt: number,
  ownerId: number,
  fingerprint: string,
  response: StoredResponse,
): string {
  // Sized first, then written in place: no object or buffer per header.
  const { headers, body } = response;
  const form = fingerprintForm(fingerprint);
  let size = FINGERPRINT_AT + fingerprintLength(form) + 3 + body.byteLength;
  let count = 0;
  for (const name in headers) {
    size += headerLength(name, headers[name] as string);
    count++;
  }
  if (count > 0xff) throw new RangeError('more than 255 headers to store');
  const out = Buffer.allocUnsafe(size);
  writeUInt48(out, expiresAt, EXPIRY_AT);
  writeUInt48(out, ownerId, OWNER_AT);
  let at = writeFingerprint(out, fingerprint, form, FINGERPRINT_AT);
  at = out.writeUInt16BE(response.status, at);
  out[at++] = count;
  for (const name in headers) at = writeHeader(out, name, headers[name] as string, at);
  out.set(body, at);
  return out.toString('latin1');
}

function readUInt48(record: string, at: number): number {
  let value = 0;
  for (let i = at; i < at + 6; i++) value = value * 256 + record.charCodeAt(i);
  return value;
}

/** When the record expires (ms since the epoch). */
export function recordExpiry(record: string): number {
  return readUInt48(record, EXPIRY_AT);
}

/** The id of the record's owner. */
export function recordOwner(record: string): number {
  return readUInt48(record, OWNER_AT);
}

/** Whether the record was stored for `encodedFingerprint` ({@link encodeFingerprint}, as Latin-1). */
export function recordMatches(record: string, encodedFingerprint: string): boolean {
  return record.startsWith(encodedFingerprint, FINGERPRINT_AT);
}

/** The stored response of a record (a fresh copy: callers may keep or change it). */
export function decodeResponse(record: string): StoredResponse {
  const bytes = Buffer.from(record, 'latin1');
  let at = FINGERPRINT_AT;
  at += bytes[at] === 1 ? 1 + DIGEST_BYTES : 3 + bytes.readUInt16BE(at + 1);
  const status = bytes.readUInt16BE(at);
  at += 2;
  const count = bytes[at++] as number;
  const headers: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const first = bytes[at++] as number;
    let name: string;
    if (first & 0x80) {
      const length = first & 0x7f;
      name = bytes.toString('utf8', at, at + length);
      at += length;
    } else name = KNOWN_NAMES[first] as string;
    const length = bytes.readUInt16BE(at);
    at += 2;
    if (length & 0x8000) headers[name] = KNOWN_VALUES[length & MAX_VALUE] as string;
    else {
      headers[name] = bytes.toString('utf8', at, at + length);
      at += length;
    }
  }
  return { status, headers, body: new Uint8Array(bytes.subarray(at)) };
}
