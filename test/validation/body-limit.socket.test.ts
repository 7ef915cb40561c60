import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/adapters/node.js';
import { nodeClient, type TestClient } from '../support/clients.js';
import { assertJsonApi } from '../support/schemas.js';
import { orderApp } from './order-app.js';

const LIMIT = 1024;

describe('body limits over a real socket', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await nodeClient(orderApp({ limit: LIMIT }));
  });
  afterAll(() => client.close());

  describe('when Content-Length exceeds the limit', () => {
    it('answers 413', async () => {
      const body = JSON.stringify({ bookId: 1, quantity: 2, note: 'x'.repeat(2 * LIMIT) });
      const res = await client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(413);
      expect(res.body.errors[0]).toMatchObject({ status: '413', code: 'body-too-large' });
    });
  });

  describe('when a chunked body exceeds the limit', () => {
    it('answers 413', async () => {
      const body = JSON.stringify({ bookId: 1, quantity: 2, note: 'x'.repeat(2 * LIMIT) });
      const res = await client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body,
      });
      expect(res.status).toBe(413);
    });

    it('answers before the client has finished sending, and closes the connection instead of reading on', async () => {
      const server = http.createServer(toNodeHandler(orderApp({ limit: LIMIT })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const { status, headers, text, sentBytes } = await new Promise<{
          status: number;
          headers: http.IncomingHttpHeaders;
          text: string;
          sentBytes: number;
        }>((resolve, reject) => {
          let sentBytes = 0;
          const req = http.request({
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/orders',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
            agent: false,
          });
          req.on('response', (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              // The request body was never ended: the server answered on what it had.
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString(),
                sentBytes,
              });
              req.destroy();
            });
          });
          req.on('error', (error: NodeJS.ErrnoException) => {
            if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
          });
          // Send just past the limit, then stop: a server that buffered the whole body would never answer.
          const chunk = Buffer.alloc(LIMIT / 4, 0x20);
          for (let i = 0; i < 5; i++) {
            req.write(chunk);
            sentBytes += chunk.length;
          }
        });
        expect(sentBytes).toBe(LIMIT + LIMIT / 4);
        expect(status).toBe(413);
        expect(headers.connection).toBe('close');
        const body = JSON.parse(text);
        assertJsonApi(body);
        expect(body.errors[0].code).toBe('body-too-large');
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('when a body is within the limit', () => {
    it('is decoded', async () => {
      const res = await client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: '{"bookId": 3, "quantity": 4}',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.attributes).toEqual({ bookId: 3, quantity: 4 });
    });
  });
});
