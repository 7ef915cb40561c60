/**
 * node:http adapter: `createNodeServer(app, options)`, or `http.createServer(toNodeHandler(app))`.
 * The core never sees IncomingMessage.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app/app.js';
import { DEFAULT_BODY_LIMIT } from '../core/body.js';
import { bodyBytes, fieldsOf } from '../core/response.js';
import type { ApiResponse, HeaderBag, RequestView } from '../http/types.js';
import { answerClientError, writeFallback500 } from './fallback.js';
import { nodeHeaders } from './node-headers.js';

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
  return nodeHandlerFor(app, NEVER_DRAINING);
}

/** Whether the server is shutting down; read when each response is written. */
interface DrainState {
  draining: boolean;
}

const NEVER_DRAINING: DrainState = Object.freeze({ draining: false });
const drainStates = new WeakMap<http.Server, DrainState>();

function nodeHandlerFor(app: App, state: DrainState): (req: IncomingMessage, res: ServerResponse) => void {
  return function nodeHandler(req, res) {
    const fallback = () => {
      if (!res.destroyed) writeFallback500(res);
    };
    const write = (response: ApiResponse) => {
      // The client is gone (it aborted mid-body, or reset): nobody can read an answer.
      if (res.destroyed) return;
      // Shutting down: this keep-alive connection ends with this response (RFC 9112 section 9.6).
      if (state.draining) res.shouldKeepAlive = false;
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

/** Options of {@link createNodeServer}. Every time is in milliseconds. */
export interface NodeServerOptions {
  /** Time to receive a request's whole header section (node `headersTimeout`). Default 15 s. */
  readonly headersTimeoutMs?: number;
  /**
   * Time to receive a whole request, body included (node `requestTimeout`). Default: the headers
   * timeout plus the body limit at the minimum body rate, so a bigger limit allows a longer request.
   */
  readonly requestTimeoutMs?: number;
  /** The largest body the app accepts, to derive the request timeout (default 100 KiB, as `readBody`). */
  readonly bodyLimit?: number;
  /** Slowest body upload accepted within the default request timeout, bytes per second (default 8 KiB/s). */
  readonly minBodyBytesPerSecond?: number;
  /** How long an idle keep-alive connection stays open between requests (node `keepAliveTimeout`). Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /** A socket with no traffic at all for this long is destroyed (node `server.timeout`). Default 60 s. */
  readonly idleTimeoutMs?: number;
  /** Connections open at once; further ones are closed at once, unanswered (node `maxConnections`). Default 1024. */
  readonly maxConnections?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 8 * 1024;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CONNECTIONS = 1024;

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen <= 0) {
    throw new TypeError(`createNodeServer: ${name} must be a positive number, got ${String(value)}`);
  }
  return chosen;
}

/**
 * The timeouts and connection cap a node server needs against slow or idle clients, resolved from
 * the options with their defaults (a `TypeError` names a bad option).
 */
export function nodeServerLimits(
  options: NodeServerOptions = {},
): Required<Omit<NodeServerOptions, 'bodyLimit' | 'minBodyBytesPerSecond'>> {
  const headersTimeoutMs = positive('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS);
  const bodyLimit = positive('bodyLimit', options.bodyLimit, DEFAULT_BODY_LIMIT);
  const rate = positive(
    'minBodyBytesPerSecond',
    options.minBodyBytesPerSecond,
    DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  );
  const requestTimeoutMs = positive(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    headersTimeoutMs + Math.ceil((bodyLimit / rate) * 1000),
  );
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new TypeError('createNodeServer: requestTimeoutMs must be at least headersTimeoutMs');
  }
  const maxConnections = positive('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS);
  if (!Number.isSafeInteger(maxConnections)) {
    throw new TypeError(`createNodeServer: maxConnections must be an integer, got ${maxConnections}`);
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: positive(
      'keepAliveTimeoutMs',
      options.keepAliveTimeoutMs,
      DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    ),
    idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS),
    maxConnections,
  };
}

/**
 * A node:http server for `app` with bounds against slow and idle clients (see `docs/security.md`):
 * headers within `headersTimeoutMs`, the whole request within `requestTimeoutMs` (both answered
 * 408 and closed by node), idle keep-alive connections closed after `keepAliveTimeoutMs`, silent
 * sockets destroyed after `idleTimeoutMs`, and at most `maxConnections` at once. Not listening yet.
 *
 * @example createNodeServer(app, { bodyLimit: 1 << 20 }).listen(3000)
 */
export function createNodeServer(app: App, options: NodeServerOptions = {}): http.Server {
  const limits = nodeServerLimits(options);
  const state: DrainState = { draining: false };
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // node checks both timeouts on this period (30 s by default): check often enough to hold them.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    nodeHandlerFor(app, state),
  );
  server.timeout = limits.idleTimeoutMs;
  // A request node's parser refuses gets an error document too, not a bare status line.
  server.on('clientError', answerClientError);
  server.maxConnections = limits.maxConnections;
  drainStates.set(server, state);
  return server;
}

/** Default bound on a graceful shutdown: 10 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Shut a server made by {@link createNodeServer} down gracefully: stop accepting connections, close
 * the idle keep-alive ones at once, let requests in flight finish (each response then says
 * `Connection: close` and its connection ends), and after `timeoutMs` close whatever is still open.
 * Resolves `drained` when every connection ended by itself, `timed-out` when some had to be cut.
 *
 * @example process.once('SIGTERM', () => closeGracefully(server).then(() => process.exit(0)))
 */
export function closeGracefully(
  server: http.Server,
  options: { readonly timeoutMs?: number } = {},
): Promise<'drained' | 'timed-out'> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new TypeError(`closeGracefully: timeoutMs must be a non-negative number, got ${String(timeoutMs)}`);
  }
  const state = drainStates.get(server);
  if (state === undefined) throw new TypeError('closeGracefully: give a server made by createNodeServer');
  state.draining = true;
  return new Promise((resolve) => {
    const cut = setTimeout(() => {
      server.closeAllConnections();
      resolve('timed-out');
    }, timeoutMs);
    server.close(() => {
      clearTimeout(cut);
      resolve('drained');
    });
    server.closeIdleConnections();
  });
}
