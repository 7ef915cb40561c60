import { createHash } from 'node:crypto';
import { HTTP_TOKEN } from '../http/field-syntax.js';

export interface BodyEtagOptions {
  /** A weak tag (`W/"..."`): semantically equivalent, not byte-identical (RFC 9110 section 8.8.1). */
  readonly weak?: boolean;
  /**
   * The response's `Content-Encoding`. Different encodings of one body are different bytes, so they
   * never share a strong tag (RFC 9110 section 8.8.3.3): the coding is appended to the tag.
   */
  readonly contentEncoding?: string;
}

/**
 * An ETag from the bytes of a representation: the byte length in hex and 27 characters of the
 * base64 SHA-1 of the bytes, the tag jshttp `etag` (Express, `send`) computes for the same bytes.
 * Strong unless `weak` is asked for (RFC 9110 section 8.8.1). Bytes sent with a content coding get the coding in the tag
 * (`"1c-abc...-gzip"`), so a gzip body and an identity body never compare equal.
 *
 * @example bodyEtag(Buffer.from('{"data":[]}')) // '"b-..."'
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-8.8.3
 */
export function bodyEtag(bytes: Uint8Array, options: BodyEtagOptions = {}): string {
  const opaque = `"${bytes.byteLength.toString(16)}-${sha1Base64(bytes).slice(0, 27)}"`;
  const tag = options.weak === true ? `W/${opaque}` : opaque;
  const coding = codingSuffix(options.contentEncoding);
  return coding === '' ? tag : `${tag.slice(0, -1)}-${coding}"`;
}

/** The SHA-1 of the bytes, base64 (28 characters, the last one `=`). */
function sha1Base64(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('base64');
}

/** `gzip, br` → `gzip+br`; `identity` and absent → `''`. */
function codingSuffix(contentEncoding: string | undefined): string {
  if (contentEncoding === undefined) return '';
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  for (const coding of codings) {
    if (!HTTP_TOKEN.test(coding))
      throw new TypeError(`Not a content coding: ${JSON.stringify(contentEncoding)}`);
  }
  return codings.join('+');
}
