import { ApiError } from '../errors/api-error.js';
import { codedError } from '../errors/coded-error.js';
import { type Context, contextKey } from '../http/types.js';
import { checkRequestCodings } from './codings.js';
import { isPromise } from './maybe-promise.js';

/** The bytes of a body already read, so every reader of one request sees the same bytes. */
const BODY_BYTES = contextKey<Uint8Array>('request body bytes');

/** Default request body limit: 100 KiB. */
export const DEFAULT_BODY_LIMIT = 100 * 1024;

/**
 * Read the request body into memory, refusing more than `limit` bytes with 413 as soon as the limit
 * is crossed: a declared `Content-Length` over the limit is refused before reading anything, and a
 * chunked body stops being read at the first chunk past the limit.
 *
 * A transfer coding other than `chunked` is 501 and a content coding other than `identity` is 415,
 * before anything is read (see {@link checkRequestCodings}).
 *
 * The stream can be consumed only once, so the bytes are kept on the context: a middleware that
 * needs the body (an idempotency fingerprint, a signature check) and the handler after it both call
 * `readBody` and get the same bytes.
 */
export async function readBody(
  ctx: Context,
  limit: number = ctx.route?.bodyLimit ?? DEFAULT_BODY_LIMIT,
): Promise<Uint8Array> {
  const cached = ctx.get(BODY_BYTES);
  if (cached !== undefined) {
    if (cached.byteLength > limit) throw bodyTooLargeError(limit);
    return cached;
  }
  checkRequestCodings(ctx.request.headers);
  const declared = ctx.request.headers.get('content-length');
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared)) {
      throw codedError(400, 'invalid-header', {
        detail: 'Content-Length must be a non-negative integer.',
        source: { header: 'Content-Length' },
      });
    }
    if (Number(declared) > limit) throw bodyTooLargeError(limit);
  }
  let bytes: Uint8Array;
  try {
    const source = ctx.request.body();
    if (isPromise(source)) {
      bytes = await source;
      // Framed by its declared length, checked above; measured here when it declared none.
      if (bytes.byteLength > limit) throw bodyTooLargeError(limit);
    } else {
      // Read in place rather than in an async function of its own: one promise less per body on Node.
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > limit) throw bodyTooLargeError(limit);
        chunks.push(chunk);
      }
      bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // The stream failed: the client closed or reset the connection mid-body. Its fault, not the
    // server's: a 400 (not logged, no stack) that the adapter does not write to the dead socket.
    throw codedError(400, 'request-aborted', {
      detail: 'The request body ended before its declared end.',
      cause: error,
    });
  }
  ctx.set(BODY_BYTES, bytes);
  return bytes;
}

/** The bytes {@link readBody} kept for this request, or `undefined` when nothing read the body. */
export function bodyBytesRead(ctx: Context): Uint8Array | undefined {
  return ctx.get(BODY_BYTES);
}

/** The 413 for a body over `limit` bytes (RFC 9110 section 15.5.14). */
export function bodyTooLargeError(limit: number): ApiError {
  return codedError(413, 'body-too-large', {
    detail: `The request body exceeds the limit of ${limit} bytes.`,
  });
}
