import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler, writeNodeResponse } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server whose `GET /exports` answers with the stream `source()` makes for each request. */
async function serveStream(source: () => AsyncIterable<Uint8Array>): Promise<number> {
  const app = createApp();
  app.route({
    method: 'GET',
    path: '/exports',
    handler: () => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, raw: source() }),
  });
  const server = http.createServer(toNodeHandler(app));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('the node adapter with streamed bodies', () => {
  it('ends the source when the client goes away mid-stream', async () => {
    let released!: () => void;
    const finished = new Promise<void>((resolve) => {
      released = resolve;
    });
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    let pulled = 0;
    const port = await serveStream(async function* endless() {
      try {
        for (;;) {
          // The adapter pulls the next chunk only once the last one is written: a second pull means
          // the response is mid-stream (and a 1 MiB write to a paused socket meets backpressure).
          if (++pulled === 2) streaming();
          yield new Uint8Array(1 << 20);
        }
      } finally {
        released();
      }
    });
    const socket = net.connect(port, '127.0.0.1');
    socket.write('GET /exports HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause(); // read nothing, so the server meets backpressure
    await started; // the response is mid-stream
    socket.destroy();
    await finished; // the test times out if the generator is never closed
  });

  it('sends no Content-Length of 0 to HEAD when the GET body is a stream', async () => {
    const port = await serveStream(async function* tenBytes() {
      yield new TextEncoder().encode('0123456789');
    });
    const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .request({ port, host: '127.0.0.1', method: 'HEAD', path: '/exports' }, resolve)
        .on('error', reject)
        .end();
    });
    head.resume();
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).not.toBe('0');
  });
});

describe('the node adapter when a body cannot be serialized', () => {
  it.each(['GET', 'HEAD'])('answers %s with the fallback 500 and keeps serving', async (method) => {
    const app = createApp({ logger: { error() {}, warn() {} } });
    app.route({
      method: 'GET',
      path: '/counts',
      handler: () => ({ status: 200, headers: {}, json: { n: 1n } }),
    });
    app.route({
      method: 'GET',
      path: '/books',
      handler: () => ({ status: 200, headers: {}, json: { data: [] } }),
    });
    const server = http.createServer(toNodeHandler(app));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const failed = await fetch(`${base}/counts`, { method });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(`${base}/books`)).status).toBe(200);
  });
});

describe('writeNodeResponse', () => {
  it('returns a promise for a whole body too, and rejects (not throws) when writing fails', async () => {
    const server = http.createServer((_req, res) => {
      const written = writeNodeResponse(res, { status: 200, headers: {}, json: { data: [] } });
      expect(written).toBeInstanceOf(Promise);
      const failing = writeNodeResponse(res, { status: 200, headers: {}, json: { n: 1n } });
      expect(failing).toBeInstanceOf(Promise);
      failing.catch(() => undefined);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(res.status).toBe(200);
  });
});
