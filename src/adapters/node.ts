/**
 * node:http adapter: `http.createServer(toNodeHandler(app))`.
 * Only types are imported from node:http; the core never sees IncomingMessage.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../core/app.js';
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
export function fromNodeRequest(req: IncomingMessage): RequestView {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return {
    method: req.method ?? 'GET',
    path: query === -1 ? url : url.slice(0, query),
    search: query === -1 ? '' : url.slice(query + 1),
    headers: new NodeHeaders(req.headers),
    remoteAddress: req.socket.remoteAddress,
    body: () => req,
  };
}

/** Write a neutral response to a node:http response, streaming with backpressure when needed. */
export async function writeNodeResponse(
  res: ServerResponse,
  response: ApiResponse,
  req?: IncomingMessage,
): Promise<void> {
  const { headers } = response;
  // A refused body (413) is not read: close the connection rather than drain it.
  if (response.status === 413 && req !== undefined && !req.complete) headers.connection = 'close';
  const { raw } = response;
  if (raw === undefined) {
    const body = response.json === undefined ? undefined : JSON.stringify(response.json);
    // Say the length even of an empty body (a redirect, a 201 without one): no chunked framing. Not
    // for HEAD, whose length is that of the GET body when known (RFC 9110 section 8.6), else absent.
    const length =
      body === undefined
        ? response.status === 204 || response.status === 304 || req?.method === 'HEAD'
          ? undefined
          : 0
        : Buffer.byteLength(body);
    if (length !== undefined) headers['content-length'] ??= String(length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    headers['content-length'] ??= String(typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength);
    res.writeHead(response.status, headers);
    res.end(raw);
    return;
  }
  res.writeHead(response.status, headers);
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
    app
      .handle(fromNodeRequest(req))
      .then((response) => writeNodeResponse(res, response, req))
      .catch(() => writeFallback500(res));
  };
}
