import type { ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS, type ServedServer, serve } from '../../examples/reference-app/serve.js';
import { DEFAULT_MAX_PIPELINED_REQUESTS } from '../../src/adapters/pipelining.js';
import type { App } from '../../src/app/app.js';
import { referenceApp } from '../support/reference-app.js';

/**
 * Bounded work per connection for a client that pipelines and does not read (issue 41, finding 3):
 * 57 KiB of pipelined `GET /openapi.json` (a 249 KB document) made every adapter build every
 * response at once and hold them for node to send in order, 125 MB to 400-475 MB. Now a connection's
 * requests are handled one at a time, each once the response before it is flushed to the socket,
 * and at most 32 may wait. Measured in bytes and handlers, over a real socket: no timing.
 */
const OPENAPI = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n';

/** The reference app, counting the requests it has begun to answer. */
function countingApp(): { app: App; started: () => number } {
  const { app } = referenceApp();
  let started = 0;
  return {
    app: {
      ...app,
      handle: (request) => {
        started++;
        return app.handle(request);
      },
    },
    started: () => started,
  };
}

describe.each(ADAPTERS.map((adapter) => ({ adapter })))(
  'pipelined requests through $adapter',
  ({ adapter }) => {
    let served: ServedServer;
    let started: () => number;
    /** Responses the server has flushed whole to a socket. */
    let finished = 0;
    /** The most requests of the test's connection ever being answered or buffered at once. */
    let mostAtOnce = 0;
    /** The server's side of the test's connection, and its responses. */
    let serverSocket: net.Socket | undefined;
    const responses: ServerResponse[] = [];
    const clients: net.Socket[] = [];

    beforeEach(async () => {
      const counting = countingApp();
      started = counting.started;
      finished = 0;
      mostAtOnce = 0;
      responses.length = 0;
      served = await serve(adapter, counting.app, 0);
      served.server.prependListener('connection', (socket: net.Socket) => {
        serverSocket = socket;
      });
      served.server.prependListener('request', (_req, res: ServerResponse) => {
        responses.push(res);
        res.once('finish', () => finished++);
      });
      // Measured each time the app begins a request: how many are begun and not yet flushed.
      const handle = counting.app.handle;
      counting.app.handle = (request) => {
        const answer = handle(request);
        mostAtOnce = Math.max(mostAtOnce, started() - finished);
        return answer;
      };
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) client.destroy();
      await served.close(0);
    });

    function pipeline(count: number): { socket: net.Socket; received: () => Buffer } {
      const socket = net.connect(served.port, '127.0.0.1');
      clients.push(socket);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.write(OPENAPI.repeat(count));
      return { socket, received: () => Buffer.concat(chunks) };
    }

    it('answers pipelined requests one at a time, in order, and all of them', async () => {
      const count = DEFAULT_MAX_PIPELINED_REQUESTS;
      const { received } = pipeline(count);
      await vi.waitFor(() => expect(countResponses(received())).toBe(count), {
        timeout: 60_000,
        interval: 20,
      });
      expect(started()).toBe(count);
      // Never more than one request begun and not flushed (before: all of them at once).
      expect(mostAtOnce).toBe(1);
    });

    it('holds at most one response in memory for a connection that never reads', async () => {
      const document = await (await fetch(`http://127.0.0.1:${served.port}/openapi.json`)).arrayBuffer();
      await vi.waitFor(() => expect(finished).toBe(1), { interval: 5 });
      const { socket, received } = pipeline(DEFAULT_MAX_PIPELINED_REQUESTS);
      socket.pause();
      // The kernel's buffers fill, then the server's socket holds what it could not send.
      await vi.waitFor(() => expect(serverSocket?.writableNeedDrain).toBe(true), {
        timeout: 60_000,
        interval: 20,
      });
      const waiting = responses.filter((res) => !res.writableFinished);
      const inProgress = waiting.filter((res) => res.headersSent);
      // One response being written; the requests behind it not begun, so nothing of theirs built.
      expect(inProgress).toHaveLength(1);
      expect(started() - finished).toBe(1);
      expect(waiting.filter((res) => !res.headersSent).every((res) => res.writableLength === 0)).toBe(true);
      // What the process holds for this connection: at most the one document (249 KB) and its head.
      expect(serverSocket!.writableLength).toBeLessThanOrEqual(document.byteLength + 2048);
      // Reading resumes the rest: nothing was lost.
      socket.resume();
      await vi.waitFor(() => expect(countResponses(received())).toBe(DEFAULT_MAX_PIPELINED_REQUESTS), {
        timeout: 60_000,
        interval: 20,
      });
      expect(mostAtOnce).toBe(1);
    });

    it(`closes a connection with more than ${DEFAULT_MAX_PIPELINED_REQUESTS} requests waiting, and serves others`, async () => {
      const { socket } = pipeline(1400);
      socket.pause();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(started()).toBeLessThanOrEqual(1);
      expect((await fetch(`http://127.0.0.1:${served.port}/books/1`)).status).toBe(200);
    });
  },
);

/** Complete `HTTP/1.1 200` responses in `bytes` (each has a Content-Length). */
function countResponses(bytes: Buffer): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const head = bytes.indexOf('\r\n\r\n', at);
    if (head === -1) return count;
    const length = /content-length: (\d+)/i.exec(bytes.subarray(at, head).toString('latin1'));
    const end = head + 4 + Number(length?.[1] ?? 0);
    if (end > bytes.length) return count;
    count++;
    at = end;
  }
}
