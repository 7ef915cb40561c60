import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { recordingLogger, send } from '../core/send.js';

function app(options: Parameters<typeof createApp>[0] = {}) {
  return createApp({ logger: recordingLogger(), ...options })
    .route({
      method: 'GET',
      path: '/books',
      handler: (ctx) => json(200, { meta: { requestId: ctx.requestId } }),
    })
    .route({
      method: 'GET',
      path: '/orders',
      handler: () => {
        throw new Error('boom');
      },
    });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  describe('when the client sends a sane id', () => {
    it('echoes it on the response and exposes it to handlers', async () => {
      const res = await send(app(), 'GET', '/books', { headers: { 'x-request-id': 'abc-123_/+=:.@' } });
      expect(res.headers['x-request-id']).toBe('abc-123_/+=:.@');
      expect(res.body.meta.requestId).toBe('abc-123_/+=:.@');
    });

    it('echoes it on errors, 404s and 405s too', async () => {
      for (const [method, path] of [
        ['GET', '/orders'],
        ['GET', '/nothing'],
        ['POST', '/books'],
      ] as const) {
        const res = await send(app(), method, path, { headers: { 'x-request-id': 'r-1' } });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.headers['x-request-id']).toBe('r-1');
      }
    });
  });

  describe('when the id is absent or not sane', () => {
    it.each([
      ['absent', undefined],
      ['empty', ''],
      ['with CRLF', 'abc\r\nSet-Cookie: x=1'],
      ['too long', 'a'.repeat(201)],
      ['non-ASCII', 'zürich'],
      ['with spaces', 'a b'],
      ['with quotes', '"x"'],
    ])('generates a fresh one when %s', async (_case, sent) => {
      const res = await send(
        app(),
        'GET',
        '/books',
        sent === undefined ? {} : { headers: { 'x-request-id': sent } },
      );
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['x-request-id']).not.toBe(sent);
    });

    it('never echoes a value with characters outside the safe set (property)', async () => {
      const a = app();
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 300 }), async (sent) => {
          const res = await send(a, 'GET', '/books', { headers: { 'x-request-id': sent } });
          const id = res.headers['x-request-id']!;
          expect(id).toMatch(/^[A-Za-z0-9._:@/+=-]{1,200}$/);
          if (id === sent) expect(sent.length).toBeLessThanOrEqual(200);
        }),
      );
    });

    it('uses the configured generator and header name', async () => {
      let n = 0;
      const custom = app({ requestId: { header: 'X-Correlation-Id', generate: () => `gen-${++n}` } });
      const first = await send(custom, 'GET', '/books');
      expect(first.headers['x-correlation-id']).toBe('gen-1');
      expect(first.headers['x-request-id']).toBeUndefined();
      const echoed = await send(custom, 'GET', '/books', { headers: { 'x-correlation-id': 'mine' } });
      expect(echoed.headers['x-correlation-id']).toBe('mine');
    });
  });

  describe('when the server fails', () => {
    it('logs with the same id it sends', async () => {
      const logger = recordingLogger();
      const res = await send(app({ logger }), 'GET', '/orders');
      expect(res.status).toBe(500);
      expect(logger.entries[0]?.fields.requestId).toBe(res.headers['x-request-id']);
    });
  });

  it('puts a Date on every response', async () => {
    const res = await send(app(), 'GET', '/nothing');
    expect(Number.isNaN(Date.parse(res.headers.date!))).toBe(false);
    expect(res.headers.date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  });
});
