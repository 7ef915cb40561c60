import { ApiError } from '../errors/api-error.js';
import type { Context } from './types.js';

/** Default request body limit: 100 KiB. */
export const DEFAULT_BODY_LIMIT = 100 * 1024;

/**
 * Read the request body into memory, refusing more than `limit` bytes with 413 as soon as the limit
 * is crossed: a declared `Content-Length` over the limit is refused before reading anything, and a
 * chunked body stops being read at the first chunk past the limit.
 */
export async function readBody(ctx: Context, limit: number = DEFAULT_BODY_LIMIT): Promise<Uint8Array> {
  const declared = ctx.request.headers.get('content-length');
  if (declared !== undefined) {
    if (!/^\d+$/.test(declared)) {
      throw new ApiError(400, {
        code: 'invalid-header',
        detail: 'Content-Length must be a non-negative integer.',
        source: { header: 'Content-Length' },
      });
    }
    if (Number(declared) > limit) throw tooLarge(limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of ctx.request.body()) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

function tooLarge(limit: number): ApiError {
  return new ApiError(413, {
    code: 'body-too-large',
    detail: `The request body exceeds the limit of ${limit} bytes.`,
  });
}
