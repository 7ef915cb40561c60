import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeServer } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { assertJsonApi } from '../support/schemas.js';
import { exchange, listen } from './raw-http.js';

/** Requests node's parser refuses before the app sees them still get an error document. */
let port: number;
let close: () => Promise<void>;
beforeAll(async () => {
  const app = createApp();
  app.route({ method: 'GET', path: '/ping', handler: () => ({ status: 200, headers: {}, raw: 'pong' }) });
  ({ port, close } = await listen(app, createNodeServer(app)));
});
afterAll(() => close());

describe('requests the HTTP parser refuses', () => {
  it.each([
    ['a raw non-ASCII byte in the target', 'GET /\u00a1 HTTP/1.1\r\nhost: x\r\n\r\n', 400],
    ['a malformed header line', 'GET /ping HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n', 400],
    ['a bad Content-Length', 'POST /ping HTTP/1.1\r\nhost: x\r\ncontent-length: 1x\r\n\r\n', 400],
    [
      'a header section over 16 KiB',
      `GET /ping HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
  ])('%s: %i with a JSON:API error document, connection closed', async (_, request, status) => {
    const reply = await exchange(port, Buffer.from(request, 'utf8'));
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/vnd.api+json');
    expect(reply.headers.connection).toBe('close');
    const document = JSON.parse(reply.body);
    assertJsonApi(document);
    expect(document.errors[0].status).toBe(String(status));
  });

  it('the server answers the next connection normally', async () => {
    await exchange(port, 'GET /\u00ff HTTP/1.1\r\n\r\n');
    const reply = await exchange(port, 'GET /ping HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('pong');
  });
});
