import { describe, expect, it } from 'vitest';
import { idempotency } from '../../src/idempotency/middleware.js';
import { requestView } from '../support/request.js';
import { orderApp } from './order-app.js';

const ORDER = JSON.stringify({ bookId: 7, quantity: 2 });

function post(path: string, key: string, body: string, contentType = 'application/json') {
  return requestView('POST', path, {
    headers: { 'content-type': contentType, 'idempotency-key': key, 'x-user': 'u1' },
    body,
  });
}

describe('idempotency on a declared route', () => {
  describe('when the route allows a body larger than the library default', () => {
    it('fingerprints a 200 KB body instead of refusing it with 413', async () => {
      const { app, runs } = orderApp({ idempotency: idempotency(), bodyLimit: 1024 * 1024 });
      const large = JSON.stringify({ bookId: 7, quantity: 2, note: 'x'.repeat(200 * 1024) });
      const first = await app.handle(post('/orders', 'k-large', large));
      expect(first.status).toBe(201);
      const again = await app.handle(post('/orders', 'k-large', large));
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(runs.count).toBe(1);
    });

    it('still refuses a body past the route limit with 413, nothing executed', async () => {
      const { app, runs } = orderApp({ idempotency: idempotency(), bodyLimit: 1024 });
      const response = await app.handle(post('/orders', 'k-over', JSON.stringify({ pad: 'x'.repeat(2000) })));
      expect(response.status).toBe(413);
      expect(runs.count).toBe(0);
    });
  });

  describe('when the same key is sent to /orders and then /orders/', () => {
    it('replays: both paths name the same resource', async () => {
      const { app, runs } = orderApp({ idempotency: idempotency() });
      expect((await app.handle(post('/orders', 'k-slash', ORDER))).status).toBe(201);
      const retry = await app.handle(post('/orders/', 'k-slash', ORDER));
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(runs.count).toBe(1);
    });
  });

  describe('when the same bytes come back under another media type', () => {
    it('does not replay a bare JSON 201 for a JSON:API request: 422', async () => {
      const { app, runs } = orderApp({ idempotency: idempotency() });
      expect((await app.handle(post('/orders', 'k-media', ORDER))).status).toBe(201);
      const retry = await app.handle(post('/orders', 'k-media', ORDER, 'application/vnd.api+json'));
      expect(retry.status).toBe(422);
      expect(runs.count).toBe(1);
    });

    it('replays when only media type parameters or case differ', async () => {
      const { app, runs } = orderApp({ idempotency: idempotency() });
      expect((await app.handle(post('/orders', 'k-param', ORDER))).status).toBe(201);
      const retry = await app.handle(post('/orders', 'k-param', ORDER, 'Application/JSON; charset=utf-8'));
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(runs.count).toBe(1);
    });
  });
});
