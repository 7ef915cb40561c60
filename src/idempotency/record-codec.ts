import type { StoredResponse } from './store.js';

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
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const EXPIRY_AT = 0;
const OWNER_AT = 6;
const FINGERPRINT_AT = 12;
const MAX_SHORT = 0xffff;

/** The fingerprint as stored in a record (a prefix at {@link FINGERPRINT_AT}). */
export function encodeFingerprint(fingerprint: string): Buffer {
  if (HEX_SHA256.test(fingerprint)) {
    const bytes = Buffer.allocUnsafe(1 + DIGEST_BYTES);
    bytes[0] = 1;
    bytes.write(fingerprint.slice(0, 2 * DIGEST_BYTES), 1, 'hex');
    return bytes;
  }
  const text = Buffer.from(fingerprint, 'utf8');
  if (text.byteLength > MAX_SHORT) throw new RangeError('fingerprint longer than 65535 bytes');
  const bytes = Buffer.allocUnsafe(3 + text.byteLength);
  bytes[0] = 0;
  bytes.writeUInt16BE(text.byteLength, 1);
  text.copy(bytes, 3);
  return bytes;
}

/** Encode a completed record. `expiresAt` and `ownerId` are non-negative integers below 2^48. */
export function encodeRecord(
  expiresAt: number,
  ownerId: number,
  fingerprint: string,
  response: StoredResponse,
): string {
  const fp = encodeFingerprint(fingerprint);
  const headers = Object.entries(response.headers).map(([name, value]) => {
    const code = CODE_OF.get(name);
    const nameBytes = code === undefined ? Buffer.from(name, 'utf8') : undefined;
    const valueCode = VALUE_CODE_OF.get(value);
    const valueBytes = valueCode === undefined ? Buffer.from(value, 'utf8') : undefined;
    if ((nameBytes?.byteLength ?? 0) > 0x7f || (valueBytes?.byteLength ?? 0) > MAX_VALUE) {
      throw new RangeError(`header ${name} too long to store`);
    }
    return { code, nameBytes, valueCode, valueBytes };
  });
  if (headers.length > 0xff) throw new RangeError('more than 255 headers to store');
  let size = FINGERPRINT_AT + fp.byteLength + 3 + response.body.byteLength;
  for (const h of headers) size += 1 + (h.nameBytes?.byteLength ?? 0) + 2 + (h.valueBytes?.byteLength ?? 0);
  const out = Buffer.allocUnsafe(size);
  out.writeUIntBE(expiresAt, EXPIRY_AT, 6);
  out.writeUIntBE(ownerId, OWNER_AT, 6);
  let at = FINGERPRINT_AT + fp.copy(out, FINGERPRINT_AT);
  at = out.writeUInt16BE(response.status, at);
  out[at++] = headers.length;
  for (const h of headers) {
    if (h.nameBytes === undefined) out[at++] = h.code as number;
    else {
      out[at++] = 0x80 | h.nameBytes.byteLength;
      at += h.nameBytes.copy(out, at);
    }
    if (h.valueBytes === undefined) at = out.writeUInt16BE(h.valueCode as number, at);
    else {
      at = out.writeUInt16BE(h.valueBytes.byteLength, at);
      at += h.valueBytes.copy(out, at);
    }
  }
  out.set(response.body, at);
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
