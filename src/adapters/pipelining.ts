/**
 * Pipelined requests (RFC 9112 section 9.3.2), handled one at a time per connection. node emits a
 * request for every one it parses, and a client that sends many in one packet and never reads had
 * them all handled at once: their responses, which node must send in order, waited in memory (57
 * KiB of `GET /openapi.json` grew a server by 280 MB). Here a request waits until the response
 * before it on its connection is flushed to the socket, so a connection holds at most one response
 * the kernel has not taken, and a bounded number of parsed requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A node:http request listener, as `createServer` takes one. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Where a connection keeps its response in progress and the requests waiting behind it. */
const CURRENT = Symbol('response in progress');
const WAITING = Symbol('pipelined requests waiting');
type PipelinedSocket = Socket & { [CURRENT]?: ServerResponse; [WAITING]?: (() => void)[] };

/** Requests one connection may have waiting behind its response in progress: 32. */
export const DEFAULT_MAX_PIPELINED_REQUESTS = 32;

/** The response a connection is writing (or wrote last), if any. */
export function responseInProgress(socket: Socket): ServerResponse | undefined {
  return (socket as PipelinedSocket)[CURRENT];
}

/**
 * `listener`, called for a connection's requests one at a time: a request that arrives while the
 * response before it is not yet flushed to the socket waits for it ('finish'). A connection with
 * more than `maxWaiting` requests waiting is destroyed: a client that pipelines deeper than any
 * client needs and does not read its answers. Per request that does not wait: one property read and
 * one written on its connection.
 */
export function oneAtATime(listener: RequestListener, maxWaiting: number): RequestListener {
  const start = (socket: PipelinedSocket, req: IncomingMessage, res: ServerResponse) => {
    socket[CURRENT] = res;
    if (socket[WAITING]?.length) res.once('finish', () => next(socket));
    listener(req, res);
  };
  return function pipelinedInOrder(req, res) {
    const socket = req.socket as PipelinedSocket;
    const current = socket[CURRENT];
    if (current === undefined || current.writableFinished) {
      start(socket, req, res);
      return;
    }
    socket[WAITING] ??= [];
    const waiting = socket[WAITING];
    if (waiting.length >= maxWaiting) {
      socket.destroy();
      return;
    }
    waiting.push(() => start(socket, req, res));
    if (waiting.length === 1) current.once('finish', () => next(socket));
  };
}

function next(socket: PipelinedSocket): void {
  socket[WAITING]?.shift()?.();
}
