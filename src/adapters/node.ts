/**
 * node:http adapter: `http.createServer(toNodeHandler(app))`.
 * Only types are imported from node:http; the core never sees IncomingMessage.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../core/app.js';
import { bodyBytes, fieldsOf } from '../core/response.js';
import type { ApiResponse, HeaderBag, RequestView } from '../core/types.js';
import { writeFallback500 } from './fallback.js';

class NodeHeaders implements HeaderBag {
  constructor(private readonly headers: IncomingHttpHeaders) {}
  get(name: string): string | undefined {
    const value = this.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** A neutral request view over a node:http request. */
class NodeRequestView implements RequestView {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: HeaderBag;
  // Read now: once the client resets the connection the socket no longer knows its peer.
  readonly remoteAddress: string | undefined;

  constructor(private readonly req: IncomingMessage) {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = query === -1 ? url : url.slice(0, query);
    this.search = query === -1 ? '' : url.slice(query + 1);
    this.headers = new NodeHeaders(req.headers);
    this.remoteAddress = req.socket.remoteAddress;
  }

  body(): AsyncIterable<Uint8Array> {
    return this.req;
  }
}

/** A neutral request view over a node:http request. */
export function fromNodeRequest(req: IncomingMessage): RequestView {
  return new NodeRequestView(req);
}

const WRITTEN: Promise<void> = Promise.resolve();

/**
 * Write a neutral response to a node:http response, streaming with backpressure when needed. The
 * promise settles once the body is handed to node (at once for a whole body) and rejects if writing
 * fails.
 */
export function writeNodeResponse(
  res: ServerResponse,
  response: ApiResponse,
  req?: IncomingMessage,
): Promise<void> {
  try {
    return writeResponse(res, response, req) ?? WRITTEN;
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Whole bodies are written at once (no promise); a stream returns the promise of its piping. */
function writeResponse(
  res: ServerResponse,
  response: ApiResponse,
  req: IncomingMessage | undefined,
): Promise<void> | undefined {
  const { headers } = response;
  // A refused body (413) is not read: close the connection rather than drain it.
  if (response.status === 413 && req !== undefined && !req.complete) headers.connection = 'close';
  const { raw } = response;
  if (raw !== undefined && typeof raw !== 'string' && !(raw instanceof Uint8Array)) {
    return pipeStream(res, response, raw);
  }
  // Encoded once (JSON or text to bytes): measuring the text and then writing it would walk it twice.
  const body = bodyBytes(response);
  // Say the length even of an empty body (a redirect, a 201 without one): no chunked framing. Not
  // for HEAD, whose length is that of the GET body when known (RFC 9110 section 8.6), else absent.
  if (body !== undefined) headers['content-length'] ??= String(body.byteLength);
  else if (!(response.status === 204 || response.status === 304 || req?.method === 'HEAD')) {
    headers['content-length'] ??= '0';
  }
  res.writeHead(response.status, fieldsOf(response));
  res.end(body);
  return undefined;
}

async function pipeStream(res: ServerResponse, response: ApiResponse, raw: AsyncIterable<Uint8Array>) {
  res.writeHead(response.status, fieldsOf(response));
  for await (const chunk of raw) {
    // Leaving the loop ends the source (its `finally` runs): a client that went away releases
    // whatever the stream holds (a cursor, a file) instead of leaving it waiting for 'drain'.
    if (res.destroyed) break;
    if (!res.write(chunk) && !(await drainedOrClosed(res))) break;
  }
  if (!res.destroyed) res.end();
}

/** Resolves true once the socket can take more, false if the response closed first. */
function drainedOrClosed(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = () => {
      res.off('close', onClose);
      resolve(true);
    };
    const onClose = () => {
      res.off('drain', onDrain);
      resolve(false);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * A `(req, res)` handler for `http.createServer`, Express-free.
 * @example http.createServer(toNodeHandler(app)).listen(3000)
 */
export function toNodeHandler(app: App): (req: IncomingMessage, res: ServerResponse) => void {
  return function nodeHandler(req, res) {
    const fallback = () => writeFallback500(res);
    const write = (response: ApiResponse) => {
      try {
        writeResponse(res, response, req)?.catch(fallback);
      } catch {
        fallback();
      }
    };
    try {
      app.handle(new NodeRequestView(req)).then(write, fallback);
    } catch {
      fallback();
    }
  };
}
