import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { readBody } from '../../src/core/body.js';
import { defineMiddleware } from '../../src/core/compose.js';
import type { ApiResponse } from '../../src/http/types.js';
import { recordingLogger } from '../core/send.js';
import { listen } from './raw-http.js';

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of running.splice(0)) await close();
});

describe('a client that aborts mid-body (issue 18, item 8)', () => {
  it('is not logged as a server error, and no response is written to the dead socket', async () => {
    const logger = recordingLogger();
    let answered!: (response: ApiResponse) => void;
    const done = new Promise<ApiResponse>((resolve) => {
      answered = resolve;
    });
    const app = createApp({
      logger,
      use: [
        defineMiddleware({
          after: (_ctx, response) => {
            answered(response);
            return response;
          },
        }),
      ],
    });
    let bodyStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      bodyStarted = resolve;
    });
    app.route({
      method: 'POST',
      path: '/upload',
      handler: async (ctx) => {
        bodyStarted();
        return { status: 200, headers: {}, raw: await readBody(ctx) };
      },
    });
    const server = http.createServer(toNodeHandler(app));
    let response: http.ServerResponse | undefined;
    server.prependListener('request', (_req, res) => {
      response = res;
    });
    const { port, close } = await listen(app, server);
    running.push(close);

    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nabc',
    );
    await started;
    socket.destroy();

    const sent = await done;
    // The app's answer is a client error, not a 500 ...
    expect(sent.status).toBeLessThan(500);
    // ... nothing is logged at error level, and nothing carries a stack ...
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([]);
    expect(JSON.stringify(logger.entries)).not.toContain('stack');
    // ... and once the adapter had its turn, it had written nothing to the closed connection.
    await new Promise((resolve) => setImmediate(resolve));
    expect(response!.headersSent).toBe(false);
  });
});
