import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors/api-error.js';
import { errorDocument } from '../errors/error-document.js';
import { JSON_API } from '../http/media-types.js';

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

/**
 * What node's parser refused before the app saw a request: a malformed request line, target or
 * field (400), a header section over the size limit (431, RFC 6585 section 5), a request not
 * received in time (408, RFC 9110 section 15.5.9). Node's own answer has no body; this one is the
 * same JSON:API error document as every other error, and closes the connection.
 */
const CLIENT_ERRORS: ReadonlyMap<string, number> = new Map([
  ['HPE_HEADER_OVERFLOW', 431],
  ['ERR_HTTP_REQUEST_TIMEOUT', 408],
]);
const clientErrorResponses = new Map<number, Buffer>();

function clientErrorResponse(status: number): Buffer {
  let bytes = clientErrorResponses.get(status);
  if (bytes === undefined) {
    const body = JSON.stringify(errorDocument(new ApiError(status)));
    const reason =
      status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
    bytes = Buffer.from(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_API}\r\nCache-Control: no-store\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    clientErrorResponses.set(status, bytes);
  }
  return bytes;
}

/**
 * How long a connection answered for a parser error or a timeout may stay open after its answer:
 * long enough for the client to read it, then the socket is destroyed whatever the client does.
 */
export const CLIENT_ERROR_LINGER_MS = 1000;

/**
 * A `clientError` listener for a node:http server: answer with an error document, then close. A
 * client that keeps sending (one header byte a second) and never ends its side keeps a socket that
 * is only ended open: it is destroyed after {@link CLIENT_ERROR_LINGER_MS}, as node destroys it
 * when it answers a timeout itself.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection, or one whose response has begun (node keeps it on the socket): nothing can
  // be written.
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(CLIENT_ERRORS.get(error.code ?? '') ?? 400));
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
