/**
 * What the node-based framework drivers (Express, Koa, Fastify) share: a request view over node's
 * `IncomingMessage`, the client address, and writing a neutral response through node's response.
 * Types only from node:http; no framework is imported here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyBytes } from '../core/response.js';
import type { ApiResponse, RequestView } from '../http/types.js';
import { type RecordedBody, requestView } from './conventions.js';
import { nodeHeaders } from './node-headers.js';

/** Options every node-based driver takes for the client address. */
export interface ClientAddressOption<R> {
  /**
   * The client's address for rate limiting and logs. Default: the socket peer. Return a forwarded
   * address only for requests from proxies you trust (or keep the socket peer and list the proxies
   * in `defaultRateLimitKey({ trustProxy })`, see `docs/ratelimit.md`).
   */
  readonly clientAddress?: (request: R) => string | undefined;
}

/** Checks the `clientAddress` option at start-up. */
export function clientAddressOption<R>(
  option: ((request: R) => string | undefined) | undefined,
  framework: string,
): ((request: R) => string | undefined) | undefined {
  if (option !== undefined && typeof option !== 'function') {
    throw new TypeError(`${framework}: clientAddress must be a function (request) => string | undefined`);
  }
  return option;
}

/** A request view over node's request; `target` is relative to the mount point, if any. */
export function incomingView(
  req: IncomingMessage,
  target: string,
  remoteAddress: string | undefined,
  body: RecordedBody | (() => AsyncIterable<Uint8Array>),
  mountPath?: string,
): RequestView {
  return requestView({
    method: req.method ?? 'GET',
    target,
    headers: nodeHeaders(req),
    remoteAddress,
    mountPath,
    body: typeof body === 'function' ? body : body.read,
  });
}

/** The bytes to send for a neutral response: none for HEAD, 204 and 304 (RFC 9110 sections 9.3.2, 15). */
export function wireBody(response: ApiResponse, method: string | undefined): Uint8Array | undefined {
  if (response.status === 204 || response.status === 304) return undefined;
  const bytes = bodyBytes(response);
  if (bytes !== undefined) response.headers['content-length'] ??= String(bytes.byteLength);
  return method === 'HEAD' ? undefined : bytes;
}

/** Replaces whatever headers the node response holds by the neutral response's, and `Set-Cookie`. */
export function replaceHeaders(
  res: ServerResponse,
  response: ApiResponse,
  setCookie: readonly string[],
): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (setCookie.length > 0) res.setHeader('set-cookie', setCookie);
}
