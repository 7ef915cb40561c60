import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../examples/reference-app/serve.js';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import { idempotency, memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { send } from '../core/send.js';
import { bearer, referenceAppOnEveryAdapter } from '../support/reference-app.js';

/** The tokens of a `Vary` value, lower-cased, as a cache compares them (RFC 9110 section 12.5.5). */
function varyTokens(value: string | null | undefined): string[] {
  return (value ?? '').split(',').map((token) => token.trim().toLowerCase());
}

describe('Vary: Accept, as JSON:API 1.1 asks of a server that reads ext and profile', () => {
  it('is on a declared route answer, an error document and a replay that varies as its original', async () => {
    const app = createApp();
    app.route({
      method: 'POST',
      path: '/notes',
      use: [idempotency({ store: memoryIdempotencyStore() })],
      // A representation that also depends on the language: the replay must say so as well.
      handler: () => json(201, { meta: { made: true } }, { vary: 'Accept-Language' }),
    });
    app.route({ method: 'GET', path: '/notes', handler: () => json(200, { meta: {} }) });

    expect((await send(app, 'GET', '/notes')).headers.vary).toBe('Accept');
    expect((await send(app, 'GET', '/nothing-here')).headers.vary).toBe('Accept');
    const problem = await send(app, 'GET', '/nothing-here', {
      headers: { accept: 'application/problem+json' },
    });
    expect(problem.headers['content-type']).toBe('application/problem+json');
    expect(problem.headers.vary).toBe('Accept');

    const keyed = { headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' }, body: '{}' };
    const first = await send(app, 'POST', '/notes', keyed);
    const replay = await send(app, 'POST', '/notes', keyed);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(first.headers.vary).toBe('Accept-Language, Accept');
    expect(replay.headers.vary).toBe(first.headers.vary);
  });
});

describe('Vary: Accept through every adapter', () => {
  const served = referenceAppOnEveryAdapter();
  let token: string;
  beforeAll(async () => {
    token = await bearer('1', 'standards:read standards:write');
  });

  it.each(ADAPTERS)(
    '%s: on 200, 304, 404, 406, a QUERY, and the same on a replay as on its original',
    async (adapter) => {
      const base = served.base(adapter);
      const vary = (answer: Response) => varyTokens(answer.headers.get('vary'));

      const book = await fetch(`${base}/books/1`);
      expect(book.status).toBe(200);
      expect(vary(book)).toContain('accept');
      const asJson = await fetch(`${base}/books/1`, { headers: { accept: 'application/json' } });
      expect(asJson.headers.get('content-type')).toBe('application/json');
      expect(vary(asJson)).toContain('accept');
      const notModified = await fetch(`${base}/books/1`, {
        headers: { 'if-none-match': book.headers.get('etag')! },
      });
      expect(notModified.status).toBe(304);
      expect(vary(notModified)).toEqual(vary(book));
      const missing = await fetch(`${base}/no-such-thing`);
      expect(missing.status).toBe(404);
      expect(vary(missing)).toContain('accept');
      const refused = await fetch(`${base}/books/1`, { headers: { accept: 'text/csv' } });
      expect(refused.status).toBe(406);
      expect(vary(refused)).toContain('accept');
      const query = await fetch(`${base}/api/v1/standards`, {
        method: 'QUERY',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: '{"status":["draft"]}',
      });
      expect(query.status).toBe(200);
      expect(vary(query)).toContain('accept');

      const write = {
        method: 'POST',
        headers: {
          authorization: token,
          'content-type': 'application/json',
          'idempotency-key': `vary-${adapter}`,
        },
        body: '{"code":"VARY-1","name":"Vary"}',
      };
      const created = await fetch(`${base}/api/v1/standards`, write);
      const replayed = await fetch(`${base}/api/v1/standards`, write);
      expect(created.status).toBe(201);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(vary(created)).toContain('accept');
      expect(replayed.headers.get('vary')).toBe(created.headers.get('vary'));

      // A keyed PATCH whose conditional layer, inside the idempotency layer, varies on Authorization.
      const { data } = await created.json();
      const change = {
        method: 'PATCH',
        headers: {
          authorization: token,
          'content-type': 'application/json',
          'idempotency-key': `vary-patch-${adapter}`,
          'if-match': created.headers.get('etag') ?? '"1"',
        },
        body: '{"status":"retired"}',
      };
      const changed = await fetch(`${base}/api/v1/standards/${data.id}`, change);
      const again = await fetch(`${base}/api/v1/standards/${data.id}`, change);
      expect(changed.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(vary(changed)).toEqual(expect.arrayContaining(['accept', 'authorization']));
      expect(again.headers.get('vary')).toBe(changed.headers.get('vary'));
    },
  );
});
