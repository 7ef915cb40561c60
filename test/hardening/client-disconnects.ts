import type http from 'node:http';
import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { vi } from 'vitest';

/**
 * The ways a client leaves a connection that a server must not log (issue 41, finding 1), over raw
 * sockets, for test/hardening/client-resets.test.ts and the adopter apps of docs/adapters.md.
 */

/** What reaches stderr meanwhile: console.error (Koa's default listener) and direct writes. */
export function stderrLines() {
  const lines: string[] = [];
  const consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  const write = process.stderr.write.bind(process.stderr);
  const stderrWrite = vi.spyOn(process.stderr, 'write').mockImplementation((chunk, ...rest) => {
    lines.push(String(chunk));
    return write(chunk, ...(rest as []));
  });
  return {
    lines,
    restore: () => {
      consoleError.mockRestore();
      stderrWrite.mockRestore();
    },
  };
}

/** The server side of the next connection: its first request dispatched, and its close. */
function nextConnection(server: http.Server) {
  const socket = new Promise<net.Socket>((resolve) => server.prependOnceListener('connection', resolve));
  const dispatched = new Promise<void>((resolve) => server.prependOnceListener('request', () => resolve()));
  return {
    // Once every 'request' listener has run (Koa's attaches its own on the response there).
    dispatched: dispatched.then(() => nextTurn()),
    // `once` would reject on the socket's 'error' (the reset itself): wait for 'close' alone.
    closed: socket.then((s) => (s.closed ? undefined : new Promise((resolve) => s.once('close', resolve)))),
  };
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
  });
}

const openApi = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n';

/** The ways a client leaves: each ends once the server has closed its side of the connection. */
export function scenarios(token: () => string) {
  return {
    'half a body, then a reset': async (served: { server: http.Server; port: number }) => {
      const seen = nextConnection(served.server);
      const socket = await connect(served.port);
      socket.write(
        `POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${token()}\r\nIdempotency-Key: "${Math.random()}"\r\n` +
          'Content-Type: application/vnd.api+json\r\nContent-Length: 1000\r\n\r\n{"data":',
      );
      await seen.dispatched;
      socket.resetAndDestroy();
      await seen.closed;
    },
    'pipelined GETs of the OpenAPI document, never read, then a reset': async (served: {
      server: http.Server;
      port: number;
    }) => {
      const seen = nextConnection(served.server);
      const socket = await connect(served.port);
      socket.pause();
      socket.write(openApi.repeat(40));
      await seen.dispatched;
      socket.resetAndDestroy();
      await seen.closed;
    },
    'a request, then the client closes before the answer (broken pipe)': async (served: {
      server: http.Server;
      port: number;
    }) => {
      const seen = nextConnection(served.server);
      const socket = await connect(served.port);
      socket.write(openApi);
      await seen.dispatched;
      socket.destroy();
      await seen.closed;
    },
  };
}
