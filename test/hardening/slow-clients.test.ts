import type http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeServer, type NodeServerOptions, nodeServerLimits } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { readBody } from '../../src/core/body.js';
import { listen } from './raw-http.js';

/** Small timeouts, so that every case ends in well under a second. */
const FAST: NodeServerOptions = {
  headersTimeoutMs: 200,
  requestTimeoutMs: 400,
  keepAliveTimeoutMs: 200,
  idleTimeoutMs: 400,
  maxConnections: 2,
  maxConnectionsPerAddress: 2,
};

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of running.splice(0)) await close();
});

function echoApp() {
  const app = createApp();
  app.route({
    method: 'POST',
    path: '/echo',
    handler: async (ctx) => ({ status: 200, headers: {}, raw: await readBody(ctx) }),
  });
  app.route({ method: 'GET', path: '/ping', handler: () => ({ status: 200, headers: {}, raw: 'pong' }) });
  return app;
}

async function serve(options: NodeServerOptions = FAST): Promise<{ port: number; server: http.Server }> {
  const app = echoApp();
  const { port, server, close } = await listen(app, createNodeServer(app, options));
  running.push(close);
  return { port, server };
}

interface Outcome {
  readonly text: string;
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closedAfterMs: number;
}

/**
 * Connect, write `first`, then one byte of `drip` every `everyMs` while the connection lives, and
 * resolve when the server closes it. The drip is the slow client, not a synchronization.
 */
function slowClient(port: number, first: string, drip = '', everyMs = 50): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let at = 0;
    const timer =
      drip === ''
        ? undefined
        : setInterval(() => {
            if (!socket.destroyed && socket.writable) socket.write(drip[at++ % drip.length]!);
          }, everyMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: Date.now() - started });
    });
    if (first !== '') socket.write(first);
  });
}

describe('createNodeServer bounds slow clients (issue 18, item 4)', () => {
  it('closes a connection whose headers arrive one byte at a time, with 408', async () => {
    const { port } = await serve();
    const outcome = await slowClient(
      port,
      'GET /ping HTTP/1.1\r\n',
      'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n',
    );
    expect(outcome.closedAfterMs).toBeLessThan(2000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(outcome.text).toMatch(/\r\n\r\n\{"errors":\[\{"status":"408"/);
  });

  it('closes a connection whose body arrives one byte at a time, with 408', async () => {
    const { port } = await serve();
    const outcome = await slowClient(
      port,
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n',
      'a',
    );
    expect(outcome.closedAfterMs).toBeLessThan(2000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(outcome.text).toMatch(/\r\n\r\n\{"errors":\[\{"status":"408"/);
  });

  it('closes a silent connection', async () => {
    const { port } = await serve();
    const outcome = await slowClient(port, '');
    expect(outcome.closedAfterMs).toBeLessThan(2000);
  });

  it('closes an idle keep-alive connection after its response', async () => {
    const { port } = await serve();
    const outcome = await slowClient(port, 'GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(outcome.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.closedAfterMs).toBeLessThan(2000);
  });

  it('holds the connection cap: a connection past it is closed at once, unanswered', async () => {
    const { port, server } = await serve({
      ...FAST,
      headersTimeoutMs: 5000,
      requestTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
    });
    const held: net.Socket[] = [];
    const accepted = new Promise<void>((resolve) => {
      let count = 0;
      server.on('connection', () => {
        if (++count === 2) resolve();
      });
    });
    for (let i = 0; i < 2; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write('GET /ping HTTP/1.1\r\n');
      held.push(socket);
    }
    await accepted;
    const third = await slowClient(port, 'GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(third.text).toBe('');
    expect(held.every((s) => !s.destroyed)).toBe(true);
    for (const socket of held) socket.destroy();
  });
});

describe('unwanted large bodies are not read (issue 18, item 4)', () => {
  for (const [name, request] of [
    [
      '404',
      'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 200000000\r\n\r\n',
    ],
    ['405', 'PUT /ping HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 200000000\r\n\r\n'],
  ] as const) {
    it(`answers ${name} with Connection: close and closes without reading the 200 MB body`, async () => {
      const { port, server } = await serve({
        ...FAST,
        requestTimeoutMs: 60_000,
        headersTimeoutMs: 5000,
        idleTimeoutMs: 60_000,
      });
      let serverSocket: net.Socket | undefined;
      server.on('connection', (socket) => {
        serverSocket = socket;
      });
      // The client keeps sending as fast as the server takes it, until the server closes.
      const outcome = await new Promise<{ text: string; sent: number }>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        const block = Buffer.alloc(64 * 1024, 97);
        let sent = 0;
        const pump = () => {
          while (!socket.destroyed && sent < 200_000_000) {
            sent += block.length;
            if (!socket.write(block)) return;
          }
        };
        socket.on('drain', pump);
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('error', () => {});
        socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), sent }));
        socket.write(request, pump);
      });
      expect(outcome.text).toMatch(new RegExp(`^HTTP/1\\.1 ${name} `));
      expect(outcome.text.toLowerCase()).toContain('connection: close');
      // Far less than the declared body was read: the socket buffers at most a few MB.
      expect(serverSocket!.bytesRead).toBeLessThan(16 * 1024 * 1024);
    });
  }
});

describe('nodeServerLimits', () => {
  it('scales the default request timeout with the body limit', () => {
    const small = nodeServerLimits({ bodyLimit: 100 * 1024 });
    const large = nodeServerLimits({ bodyLimit: 1024 * 1024 });
    expect(small.headersTimeoutMs).toBe(15_000);
    expect(small.requestTimeoutMs).toBe(15_000 + 12_500);
    expect(large.requestTimeoutMs).toBe(15_000 + 128_000);
  });

  it.each([
    [{ headersTimeoutMs: 0 }, /headersTimeoutMs/],
    [{ maxConnections: 1.5 }, /maxConnections/],
    [{ keepAliveTimeoutMs: Number.NaN }, /keepAliveTimeoutMs/],
    [{ headersTimeoutMs: 2000, requestTimeoutMs: 1000 }, /requestTimeoutMs/],
  ])('throws a TypeError naming the bad option %j', (options, name) => {
    expect(() => nodeServerLimits(options)).toThrow(name);
  });
});
