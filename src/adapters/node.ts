/**
 * node:http adapter: `createNodeServer(app, options)`, or `http.createServer(toNodeHandler(app))`.
 * The core never sees IncomingMessage.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { App } from '../app/app.js';
import { bodyBytes, fieldsOf } from '../core/response.js';
import { originForm } from '../http/request-target.js';
import type { ApiResponse, HeaderBag, RequestView } from '../http/types.js';
import { writeFallback500 } from './fallback.js';

export { CLIENT_ERROR_LINGER_MS } from './fallback.js';
export { DEFAULT_MAX_PIPELINED_REQUESTS, type RequestListener } from './pipelining.js';

import { nodeHeaders } from './node-headers.js';
import { boundedServer, type NodeServerOptions } from './node-server.js';

export {
  boundedServer,
  closeGracefully,
  DEFAULT_ADDRESS_SHARE,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type NodeServerOptions,
  nodeServerLimits,
} from './node-server.js';

/** A neutral request view over a node:http request. */
class NodeRequestView implements RequestView {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly headers: HeaderBag;
  // Read now: once the client resets the connection the socket no longer knows its peer.
  readonly remoteAddress: string | undefined;

  constructor(private readonly req: IncomingMessage) {
    const url = originForm(req.url ?? '/');
    const query = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = query === -1 ? url : url.slice(0, query);
    this.search = query === -1 ? '' : url.slice(query + 1);
    this.headers = nodeHeaders(req);
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
  // A body nobody read (413, 404, 405, an early error) is not drained: close the connection instead.
  if (req !== undefined && !req.complete) closeUnreadBody(res, req, headers);
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

/** How long a connection whose body went unread may stay open after its response: 1 s. */
export const UNREAD_BODY_LINGER_MS = 1000;

/**
 * Answer, then close, a request whose body the app did not read, instead of letting node read and
 * discard the rest of it (a 404 for a request declaring 200 MB would read all 200 MB). The response
 * says `Connection: close` (RFC 9112 section 9.6); once it is flushed the socket stops reading, and is
 * destroyed after a short linger that lets the client read the response before the reset.
 */
function closeUnreadBody(res: ServerResponse, req: IncomingMessage, headers: Record<string, string>): void {
  headers.connection = 'close';
  // Taken now: node detaches the socket from the request once the response is finished.
  const { socket } = req;
  if (socket === null) return;
  res.once('finish', () => {
    req.removeAllListeners('data');
    req.pause();
    socket.pause();
    const linger = setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  });
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
    const fallback = () => {
      if (!res.destroyed) writeFallback500(res);
    };
    const write = (response: ApiResponse) => {
      // The client is gone (it aborted mid-body, or reset): nobody can read an answer.
      if (res.destroyed) return;
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

/**
 * A node:http server for `app` with bounds against slow, idle and greedy clients (see
 * {@link boundedServer} and `docs/security.md`). Not listening yet; `closeGracefully` stops it.
 *
 * @example createNodeServer(app, { bodyLimit: 1 << 20 }).listen(3000)
 */
export function createNodeServer(app: App, options: NodeServerOptions = {}): Server {
  return boundedServer(toNodeHandler(app), options);
}
