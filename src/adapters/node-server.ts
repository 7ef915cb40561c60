/**
 * A node:http server with bounds against slow, idle and greedy clients, for any request listener:
 * the node adapter's own (`createNodeServer`), or an Express app, Koa's `callback()`, Fastify's
 * handler (`serverFactory`), `@hono/node-server`'s listener. Only node:http is imported here.
 */

import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_BODY_LIMIT } from '../core/body.js';
import { positiveInteger, positiveNumber } from '../errors/option-checks.js';
import { DEFAULT_IPV6_PREFIX } from '../ratelimit/key.js';
import { shareConnections } from './connection-shares.js';
import { answerClientError } from './fallback.js';
import {
  DEFAULT_MAX_PIPELINED_REQUESTS,
  oneAtATime,
  type RequestListener,
  responseInProgress,
} from './pipelining.js';

/** Options of `createNodeServer` and {@link boundedServer}. Every time is in milliseconds. */
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
  /**
   * Connections one client address group holds at once (an IPv4 address; an IPv6 network of
   * `ipv6Prefix` bits); further ones from it are closed at once, unanswered, so one site cannot take
   * every slot. Default `maxConnections / 8` (128). Behind a reverse proxy every connection comes
   * from the proxy: raise it to `maxConnections` and `reservedConnections` to 0 there, and bound
   * clients at the proxy.
   */
  readonly maxConnectionsPerAddress?: number;
  /**
   * Slots kept for address groups holding fewer than 4 connections: groups holding more may not
   * take them, so a new client gets a connection unless at least `reservedConnections / 4` groups
   * together hold the reserve. Default `maxConnections / 8` (128); 0 keeps none.
   */
  readonly reservedConnections?: number;
  /** IPv6 clients are grouped by this prefix length, as the rate limiter groups them (default 56). */
  readonly ipv6Prefix?: number;
  /**
   * Requests a connection may have waiting while the response before them is written: a client that
   * pipelines (RFC 9112 section 9.3.2) has its requests handled one at a time, each once the previous
   * response is flushed to the socket, and a connection with more waiting is closed. Default 32.
   */
  readonly maxPipelinedRequests?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 8 * 1024;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** The share of `maxConnections` one address may hold by default: one eighth. */
export const DEFAULT_ADDRESS_SHARE = 8;

const OWNER = 'createNodeServer';

/**
 * The timeouts and connection cap a node server needs against slow or idle clients, resolved from
 * the options with their defaults (a `TypeError` names a bad option).
 */
export function nodeServerLimits(
  options: NodeServerOptions = {},
): Required<Omit<NodeServerOptions, 'bodyLimit' | 'minBodyBytesPerSecond'>> {
  const headersTimeoutMs = positiveNumber(
    OWNER,
    'headersTimeoutMs',
    options.headersTimeoutMs,
    DEFAULT_HEADERS_TIMEOUT_MS,
  );
  const bodyLimit = positiveNumber(OWNER, 'bodyLimit', options.bodyLimit, DEFAULT_BODY_LIMIT);
  const rate = positiveNumber(
    OWNER,
    'minBodyBytesPerSecond',
    options.minBodyBytesPerSecond,
    DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  );
  const requestTimeoutMs = positiveNumber(
    OWNER,
    'requestTimeoutMs',
    options.requestTimeoutMs,
    headersTimeoutMs + Math.ceil((bodyLimit / rate) * 1000),
  );
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new TypeError('createNodeServer: requestTimeoutMs must be at least headersTimeoutMs');
  }
  const maxConnections = positiveInteger(
    OWNER,
    'maxConnections',
    options.maxConnections,
    DEFAULT_MAX_CONNECTIONS,
  );
  const maxConnectionsPerAddress = positiveNumber(
    OWNER,
    'maxConnectionsPerAddress',
    options.maxConnectionsPerAddress,
    Math.max(1, Math.floor(maxConnections / DEFAULT_ADDRESS_SHARE)),
  );
  if (!Number.isSafeInteger(maxConnectionsPerAddress) || maxConnectionsPerAddress > maxConnections) {
    throw new TypeError(
      `createNodeServer: maxConnectionsPerAddress must be an integer of at most maxConnections, got ${maxConnectionsPerAddress}`,
    );
  }
  const reservedConnections =
    options.reservedConnections ?? Math.floor(maxConnections / DEFAULT_ADDRESS_SHARE);
  if (
    !Number.isSafeInteger(reservedConnections) ||
    reservedConnections < 0 ||
    reservedConnections >= maxConnections
  ) {
    throw new TypeError(
      `createNodeServer: reservedConnections must be an integer from 0 to below maxConnections, got ${String(options.reservedConnections)}`,
    );
  }
  const ipv6Prefix = options.ipv6Prefix ?? DEFAULT_IPV6_PREFIX;
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) {
    throw new TypeError(
      `createNodeServer: ipv6Prefix must be an integer 1..128, got ${String(options.ipv6Prefix)}`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: positiveNumber(
      OWNER,
      'keepAliveTimeoutMs',
      options.keepAliveTimeoutMs,
      DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    ),
    idleTimeoutMs: positiveNumber(OWNER, 'idleTimeoutMs', options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS),
    maxConnections,
    maxConnectionsPerAddress,
    reservedConnections,
    ipv6Prefix,
    maxPipelinedRequests: positiveNumber(
      OWNER,
      'maxPipelinedRequests',
      options.maxPipelinedRequests,
      DEFAULT_MAX_PIPELINED_REQUESTS,
    ),
  };
}

/** A bounded server's shutdown state: whether it drains, and its open connections. */
interface Drain {
  draining: boolean;
  readonly sockets: Set<Socket>;
}

const drains = new WeakMap<Server, Drain>();

/**
 * Once the server drains, every response whose head is not written yet ends its keep-alive
 * connection (RFC 9112 section 9.6), whatever listener writes it: those of requests that arrive
 * meanwhile at once, and those in flight when the drain starts, found through their connection
 * (`responseInProgress`). Per request: no listener, lookup or allocation.
 */
function trackedListener(drain: Drain, listener: RequestListener): RequestListener {
  return function drainAware(req, res) {
    if (drain.draining) res.shouldKeepAlive = false;
    listener(req, res);
  };
}

/** Marks the responses in flight on `drain`'s connections to end their connection. */
function startDraining(drain: Drain): void {
  drain.draining = true;
  for (const socket of drain.sockets) {
    const res = responseInProgress(socket);
    if (res !== undefined && !res.headersSent) res.shouldKeepAlive = false;
  }
}

/**
 * A node:http server for `listener` with the bounds of `options` (see `docs/security.md`): headers
 * within `headersTimeoutMs`, the whole request within `requestTimeoutMs` (both answered 408, and the
 * socket destroyed a moment later even if the client keeps sending), idle keep-alive connections
 * closed after `keepAliveTimeoutMs`, silent sockets destroyed after `idleTimeoutMs`, at most
 * `maxConnections` at once and `maxConnectionsPerAddress` from one address group, with
 * `reservedConnections` kept for groups holding few. Not listening yet;
 * `closeGracefully` stops it.
 *
 * @example boundedServer(expressApp).listen(3000)
 */
export function boundedServer(listener: RequestListener, options: NodeServerOptions = {}): Server {
  const limits = nodeServerLimits(options);
  const drain: Drain = { draining: false, sockets: new Set() };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // node checks both timeouts on this period (30 s by default): check often enough to hold them.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    oneAtATime(trackedListener(drain, listener), limits.maxPipelinedRequests),
  );
  server.timeout = limits.idleTimeoutMs;
  // A request node's parser refuses gets an error document too, not a bare status line.
  server.on('clientError', answerClientError);
  server.maxConnections = limits.maxConnections;
  shareConnections(server, limits, limits.ipv6Prefix);
  server.on('connection', (socket: Socket) => {
    drain.sockets.add(socket);
    socket.once('close', () => drain.sockets.delete(socket));
  });
  drains.set(server, drain);
  return server;
}

/** Default bound on a graceful shutdown: 10 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Shut a server made by `createNodeServer` or {@link boundedServer} down gracefully: stop accepting connections, close
 * the idle keep-alive ones at once, let requests in flight finish (each response then says
 * `Connection: close` and its connection ends), and after `timeoutMs` close whatever is still open.
 * Resolves `drained` when every connection ended by itself, `timed-out` when some had to be cut.
 *
 * @example process.once('SIGTERM', () => closeGracefully(server).then(() => process.exit(0)))
 */
export function closeGracefully(
  server: Server,
  options: { readonly timeoutMs?: number } = {},
): Promise<'drained' | 'timed-out'> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new TypeError(`closeGracefully: timeoutMs must be a non-negative number, got ${String(timeoutMs)}`);
  }
  const drain = drains.get(server);
  if (drain === undefined) {
    throw new TypeError('closeGracefully: give a server made by createNodeServer or boundedServer');
  }
  startDraining(drain);
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
