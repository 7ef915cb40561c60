import { codedError } from '../errors/coded-error.js';
import { echo } from '../errors/echo.js';
import type { HeaderBag } from '../http/types.js';

/** The content codings a request body may carry: none but `identity` (sent as `Accept-Encoding`). */
const ACCEPTED_CONTENT_CODINGS = 'identity';

/** The members of a comma-separated list field, lower-cased, empty members dropped (RFC 9110 section 5.6.1). */
function listMembers(value: string): string[] {
  return value
    .split(',')
    .map((member) => member.trim().toLowerCase())
    .filter((member) => member !== '');
}

/**
 * Refuse a request body this library cannot decode, before reading it:
 * - `Transfer-Encoding` other than `chunked` alone (the adapter's HTTP parser undoes `chunked`, and
 *   nothing else): 501 `unsupported-transfer-coding` (RFC 9112 section 6.1: a server that does not
 *   understand a transfer coding answers 501);
 * - `Content-Encoding` other than `identity`: 415 `unsupported-content-coding` with
 *   `Accept-Encoding: identity` (RFC 9110 sections 8.4 and 15.5.16), rather than storing compressed
 *   bytes as if they were the representation.
 *
 * @example checkRequestCodings(ctx.request.headers) // throws ApiError(501) for "gzip, chunked"
 */
export function checkRequestCodings(headers: HeaderBag): void {
  const transfer = headers.get('transfer-encoding');
  if (transfer !== undefined) {
    const codings = listMembers(transfer);
    if (codings.length !== 1 || codings[0] !== 'chunked') {
      throw codedError(501, 'unsupported-transfer-coding', {
        detail: `Transfer-Encoding "${echo(transfer)}" is not supported; send the body as is or chunked.`,
        source: { header: 'Transfer-Encoding' },
      });
    }
  }
  const content = headers.get('content-encoding');
  if (content !== undefined && listMembers(content).some((coding) => coding !== 'identity')) {
    throw codedError(415, 'unsupported-content-coding', {
      detail: 'Request bodies are accepted without a content coding (identity) only.',
      source: { header: 'Content-Encoding' },
      headers: { 'accept-encoding': ACCEPTED_CONTENT_CODINGS },
    });
  }
}
