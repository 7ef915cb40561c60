import type { ServerResponse } from 'node:http';
import { JSON_API } from '../core/media-types.js';
import { ApiError } from '../errors/api-error.js';
import { errorDocument } from '../errors/error-document.js';

// The generic 500 document, built once by the same code as every other error document.
const BODY = JSON.stringify(errorDocument(new ApiError(500)));

/** Last resort when writing a response itself failed: a bare 500, or just close a half-sent one. */
export function writeFallback500(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'content-type': JSON_API, 'cache-control': 'no-store' });
  res.end(BODY);
}
