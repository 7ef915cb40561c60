import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import type { ApiResponse } from '../../src/http/types.js';
import {
  type IdempotencyStore,
  idempotency,
  memoryIdempotencyStore,
  REPLAYED_HEADER,
} from '../../src/idempotency/index.js';
import { gate } from '../support/gate.js';
import { memoryLogger } from '../support/reference-app.js';
import { requestView } from '../support/request.js';
import { bodyOf, orderApp } from './order-app.js';

const ORDER = JSON.stringify({ bookId: 7, quantity: 2 });

function post(key: string | undefined, body = ORDER, headers: Record<string, string> = {}) {
  return requestView('POST', '/orders', {
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
      ...headers,
    },
    body,
  });
}

async function errorCode(response: ApiResponse): Promise<string> {
  return JSON.parse((await bodyOf(response)).toString()).errors[0].code;
}

describe('when a POST carries no Idempotency-Key', () => {
  it('runs normally each time on an optional route', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    expect((await app.handle(post(undefined))).status).toBe(201);
    expect((await app.handle(post(undefined))).status).toBe(201);
    expect(orders).toHaveLength(2);
  });

  it('is refused with 400 naming the header on a route that requires a key, nothing executed', async () => {
    const { app, runs } = orderApp({ idempotency: idempotency({ required: true }) });
    const response = await app.handle(post(undefined));
    expect(response.status).toBe(400);
    const document = JSON.parse((await bodyOf(response)).toString());
    expect(document.errors[0]).toMatchObject({
      code: 'idempotency-key-missing',
      source: { header: 'Idempotency-Key' },
    });
    expect(runs.count).toBe(0);
  });
});

describe('when a request is retried with the same key', () => {
  it('runs the handler once and replays status, headers and body byte for byte', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    const first = await app.handle(post('k-1'));
    const firstBody = await bodyOf(first);
    const retry = await app.handle(post('k-1'));
    expect(orders).toHaveLength(1);
    expect(retry.status).toBe(201);
    expect((await bodyOf(retry)).equals(firstBody)).toBe(true);
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(first.headers[REPLAYED_HEADER]).toBeUndefined();
    for (const name of ['location', 'etag', 'content-type'])
      expect(retry.headers[name]).toBe(first.headers[name]);
  });

  it('never stores or replays Set-Cookie, nor headers outside the allow-list', async () => {
    const { app } = orderApp({
      idempotency: idempotency(),
      respond: (order) => ({
        status: 201,
        headers: { location: `/orders/${order.id}`, 'set-cookie': 's=1', 'x-internal': 'yes' },
        raw: 'created',
      }),
    });
    const first = await app.handle(post('k-cookie'));
    expect(first.headers['set-cookie']).toBe('s=1');
    const retry = await app.handle(post('k-cookie'));
    expect(retry.headers['set-cookie']).toBeUndefined();
    expect(retry.headers['x-internal']).toBeUndefined();
    expect(retry.headers.location).toBe('/orders/1');
  });

  it('replays when the key is quoted once and bare the other time', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    await app.handle(post('"8e03978e-40d5"'));
    const retry = await app.handle(post('8e03978e-40d5'));
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(orders).toHaveLength(1);
  });

  it('treats a JSON body that differs only in key order and whitespace as the same request', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    await app.handle(post('k-2', '{"bookId":7,"quantity":2}'));
    const retry = await app.handle(post('k-2', '{ "quantity": 2,\n  "bookId": 7 }'));
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(orders).toHaveLength(1);
  });

  it('captures a streamed response whole and replays the same bytes', async () => {
    const { app } = orderApp({
      idempotency: idempotency(),
      respond: (order) => ({
        status: 201,
        headers: { 'content-type': 'text/plain' },
        raw: (async function* () {
          yield Buffer.from('order ');
          yield Buffer.from(String(order.id));
        })(),
      }),
    });
    const first = await bodyOf(await app.handle(post('k-stream')));
    const retry = await bodyOf(await app.handle(post('k-stream')));
    expect(first.toString()).toBe('order 1');
    expect(retry.equals(first)).toBe(true);
  });
});

describe('when the same key comes with a different request', () => {
  it('answers 422 without executing for another body', async () => {
    const { app, orders, runs } = orderApp({ idempotency: idempotency() });
    await app.handle(post('k-3'));
    const response = await app.handle(post('k-3', JSON.stringify({ bookId: 8, quantity: 1 })));
    expect(response.status).toBe(422);
    expect(await errorCode(response)).toBe('idempotency-key-reused');
    expect(orders).toHaveLength(1);
    expect(runs.count).toBe(1);
  });

  it('answers 422 for another query string', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    await app.handle(post('k-4'));
    const other = requestView('POST', '/orders?express=1', {
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-4' },
      body: ORDER,
    });
    expect((await app.handle(other)).status).toBe(422);
    expect(orders).toHaveLength(1);
  });
});

describe('when different callers use the same key', () => {
  it('keeps their records apart, anonymous callers included', async () => {
    const { app, orders } = orderApp({ idempotency: idempotency() });
    await app.handle(post('shared', ORDER, { 'x-user': 'alice' }));
    await app.handle(post('shared', ORDER, { 'x-user': 'bob' }));
    await app.handle(post('shared', ORDER));
    expect(orders.map((o) => o.sub)).toEqual(['alice', 'bob', undefined]);
    const replay = await app.handle(post('shared', ORDER, { 'x-user': 'bob' }));
    expect(JSON.parse((await bodyOf(replay)).toString()).data.id).toBe('2');
  });
});

describe('when the method is not POST or PATCH', () => {
  it('passes the request through untouched', async () => {
    const { app } = orderApp({ idempotency: idempotency({ required: true }) });
    const response = await app.handle(requestView('GET', '/orders', { headers: { 'idempotency-key': '' } }));
    expect(response.status).toBe(200);
  });
});

describe('when a retry arrives while the first request is still running', () => {
  it('answers 409 with Retry-After and never runs the handler twice', async () => {
    const hold = gate();
    const { app, orders, runs } = orderApp({ idempotency: idempotency(), beforeCreate: () => hold.promise });
    const first = app.handle(post('k-5'));
    await waitUntil(() => runs.count === 1);
    const retry = await app.handle(post('k-5'));
    expect(retry.status).toBe(409);
    expect(retry.headers['retry-after']).toBe('1');
    expect(await errorCode(retry)).toBe('idempotency-request-in-progress');
    hold.open();
    expect((await first).status).toBe(201);
    expect(runs.count).toBe(1);
    expect(orders).toHaveLength(1);
  });

  it('with a bounded wait, replays the first response once it completes', async () => {
    const hold = gate();
    const { app, orders, runs } = orderApp({
      idempotency: idempotency({ wait: { timeoutMs: 60_000 } }),
      beforeCreate: () => hold.promise,
    });
    const first = app.handle(post('k-6'));
    await waitUntil(() => runs.count === 1);
    const retry = app.handle(post('k-6'));
    hold.open();
    const [a, b] = await Promise.all([first, retry]);
    expect(b.headers[REPLAYED_HEADER]).toBe('true');
    expect((await bodyOf(b)).equals(await bodyOf(a))).toBe(true);
    expect(orders).toHaveLength(1);
  });

  it('with a bounded wait, answers 409 once the wait is over', async () => {
    // Fake timers and clock: the retry's polling pauses and its deadline pass without waiting.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const hold = gate();
    const { app, runs } = orderApp({
      idempotency: idempotency({ wait: { timeoutMs: 5_000 }, leaseMs: 1e9 }),
      beforeCreate: () => hold.promise,
    });
    const first = app.handle(post('k-7'));
    await waitUntil(() => runs.count === 1);
    let settled = false;
    const retry = app.handle(post('k-7')).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(4_900);
    expect(settled).toBe(false); // still within its wait
    await vi.advanceTimersByTimeAsync(400); // past the deadline and the longest poll pause
    expect(settled).toBe(true);
    expect((await retry).status).toBe(409);
    expect(runs.count).toBe(1);
    hold.open();
    await first;
  });
});

describe('when the handler fails or refuses', () => {
  it('releases the claim after a 5xx so a retry runs again', async () => {
    let fail = true;
    const { app, orders } = orderApp({
      idempotency: idempotency(),
      beforeCreate: () => {
        if (fail) throw new Error('database down');
      },
    });
    expect((await app.handle(post('k-8'))).status).toBe(500);
    fail = false;
    const retry = await app.handle(post('k-8'));
    expect(retry.status).toBe(201);
    expect(retry.headers[REPLAYED_HEADER]).toBeUndefined();
    expect(orders).toHaveLength(1);
  });

  it.each([401, 429])('never stores a %i', async (status) => {
    const { app, runs } = orderApp({
      idempotency: idempotency(),
      respond: () => ({ status, headers: {}, json: { errors: [{ status: String(status) }] } }),
    });
    await app.handle(post('k-9'));
    await app.handle(post('k-9'));
    expect(runs.count).toBe(2);
  });

  it('stores and replays other client errors by default', async () => {
    const { app, runs } = orderApp({ idempotency: idempotency() });
    const invalid = JSON.stringify({ bookId: 'x' });
    const first = await app.handle(post('k-10', invalid));
    const retry = await app.handle(post('k-10', invalid));
    expect(first.status).toBe(422);
    expect(retry.status).toBe(422);
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(runs.count).toBe(1);
  });

  it('stores a 4xx ApiError the handler throws as its answer, and replays it', async () => {
    const { app, runs } = orderApp({
      idempotency: idempotency(),
      beforeCreate: () => {
        throw new ApiError(409, { code: 'out-of-stock', detail: 'Book 7 is out of stock.' });
      },
    });
    const first = await app.handle(post('k-thrown'));
    const retry = await app.handle(post('k-thrown'));
    expect(first.status).toBe(409);
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect((await bodyOf(retry)).equals(await bodyOf(first))).toBe(true);
    expect(runs.count).toBe(1);
  });

  it('keeps a stored client error for clientErrorRetentionMs, a success for retentionMs', async () => {
    const clock = { t: 0 };
    const store = memoryIdempotencyStore({ now: () => clock.t });
    const middleware = idempotency({
      store,
      now: () => clock.t,
      retentionMs: 10_000,
      clientErrorRetentionMs: 1_000,
    });
    const { app, runs } = orderApp({ idempotency: middleware });
    const invalid = JSON.stringify({ bookId: 'x' });
    await app.handle(post('k-12', invalid));
    await app.handle(post('k-13'));
    clock.t = 999;
    expect((await app.handle(post('k-12', invalid))).headers[REPLAYED_HEADER]).toBe('true');
    clock.t = 1_000;
    expect((await app.handle(post('k-12', invalid))).headers[REPLAYED_HEADER]).toBeUndefined();
    expect(runs.count).toBe(3);
    clock.t = 9_999;
    expect((await app.handle(post('k-13'))).headers[REPLAYED_HEADER]).toBe('true');
    expect(runs.count).toBe(3);
  });

  it('does not store client errors when storeClientErrors is false', async () => {
    const { app, runs } = orderApp({ idempotency: idempotency({ storeClientErrors: false }) });
    const invalid = JSON.stringify({ bookId: 'x' });
    await app.handle(post('k-11', invalid));
    await app.handle(post('k-11', invalid));
    expect(runs.count).toBe(2);
  });
});

describe('when the owner of a claim stops renewing it', () => {
  it('lets a retry take over after the lease, and fences the late owner out', async () => {
    const clock = { t: 0 };
    const store = memoryIdempotencyStore({ now: () => clock.t });
    const hold = gate();
    let call = 0;
    const { app, orders } = orderApp({
      idempotency: idempotency({ store, leaseMs: 60_000 }),
      beforeCreate: () => (++call === 1 ? hold.promise : undefined),
    });
    const stale = app.handle(post('k-12'));
    await waitUntil(() => call === 1);
    expect((await app.handle(post('k-12'))).status).toBe(409);
    clock.t += 60_000;
    const takeover = await app.handle(post('k-12'));
    expect(takeover.status).toBe(201);
    hold.open();
    await stale;
    const replay = await app.handle(post('k-12'));
    expect((await bodyOf(replay)).equals(await bodyOf(takeover))).toBe(true);
    expect(orders).toHaveLength(2);
  });
});

describe('when the handler runs longer than the lease', () => {
  it('renews the lease while it runs, so a retry is still told 409', async () => {
    const clock = { t: 0 };
    const base = memoryIdempotencyStore({ now: () => clock.t });
    let renewals = 0;
    const store: IdempotencyStore = {
      ...base,
      renew: async (key, token, leaseMs) => {
        const renewed = await base.renew(key, token, leaseMs);
        if (renewed) renewals++;
        return renewed;
      },
    };
    // Fake timers: the renewal (at most a third of the lease after the claim) fires when the test
    // says, not after a sleep.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const hold = gate();
    const { app, runs } = orderApp({
      idempotency: idempotency({ store, leaseMs: 30 }),
      beforeCreate: () => hold.promise,
    });
    const first = app.handle(post('k-renew'));
    await waitUntil(() => runs.count === 1);
    clock.t = 20;
    const seen = renewals;
    await vi.advanceTimersByTimeAsync(10); // a third of the lease
    await waitUntil(() => renewals > seen);
    clock.t = 45; // past the first lease (30), within the renewed one (20 + 30)
    expect((await app.handle(post('k-renew'))).status).toBe(409);
    hold.open();
    expect((await first).status).toBe(201);
    expect(runs.count).toBe(1);
  });
});

describe('when the route is a PATCH', () => {
  it('is guarded the same way', async () => {
    const { app } = orderApp();
    let patches = 0;
    app.route({
      method: 'PATCH',
      path: '/orders/{id}',
      use: [idempotency()],
      handler: () => ({
        status: 200,
        headers: {},
        json: { data: { type: 'orders', id: '1', n: ++patches } },
      }),
    });
    const patch = () =>
      requestView('PATCH', '/orders/1', {
        headers: { 'content-type': 'application/json', 'idempotency-key': 'p-1' },
        body: '{"quantity":3}',
      });
    await app.handle(patch());
    const retry = await app.handle(patch());
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(patches).toBe(1);
  });
});

describe('when the store is full', () => {
  it("answers 429 with Retry-After when the caller's own quota is full, nothing executed", async () => {
    const store = memoryIdempotencyStore({ ownerMaxEntries: 1, now: () => 0 });
    const { app, runs } = orderApp({ idempotency: idempotency({ store, now: () => 0 }) });
    expect((await app.handle(post('q-1', ORDER, { 'x-user': 'u1' }))).status).toBe(201);
    const refused = await app.handle(post('q-2', ORDER, { 'x-user': 'u1' }));
    expect(refused.status).toBe(429);
    // When the caller's own first record expires: its retention, a day, and the detail says so.
    expect(refused.headers['retry-after']).toBe(String(24 * 60 * 60));
    expect(await errorCode(refused)).toBe('idempotency-quota-exceeded');
    expect(String(await bodyOf(refused))).toMatch(/Room frees in 24 h, .*retrying sooner is refused/);
    expect((await app.handle(post('q-2', ORDER, { 'x-user': 'u2' }))).status).toBe(201);
    expect(runs.count).toBe(2);
  });

  it('answers 503 without Retry-After when the whole store is full, and still replays', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 1, now: () => 0 });
    const { app, runs } = orderApp({ idempotency: idempotency({ store, now: () => 0 }) });
    const first = await app.handle(post('s-1', ORDER, { 'x-user': 'u1' }));
    const refused = await app.handle(post('s-2', ORDER, { 'x-user': 'u2' }));
    expect(refused.status).toBe(503);
    // When room frees depends on u1's record: nothing in u2's answer may tell it.
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(await errorCode(refused)).toBe('idempotency-store-full');
    expect(JSON.stringify(await bodyOf(refused).then(String))).not.toMatch(/u2|sub:|stack/);
    const retry = await app.handle(post('s-1', ORDER, { 'x-user': 'u1' }));
    expect(retry.headers[REPLAYED_HEADER]).toBe('true');
    expect(retry.headers.location).toBe(first.headers.location);
    expect(runs.count).toBe(1);
  });
});

describe('when the store fails', () => {
  const broken: IdempotencyStore = {
    claim: () => Promise.reject(new Error('ECONNREFUSED')),
    renew: () => Promise.reject(new Error('ECONNREFUSED')),
    complete: () => Promise.reject(new Error('ECONNREFUSED')),
    release: () => Promise.reject(new Error('ECONNREFUSED')),
  };
  const hanging: IdempotencyStore = {
    claim: () => new Promise(() => {}),
    renew: () => new Promise(() => {}),
    complete: () => new Promise(() => {}),
    release: () => new Promise(() => {}),
  };

  const throwing: IdempotencyStore = {
    inProcess: true,
    claim: () => {
      throw new RangeError('corrupt');
    },
    renew: () => Promise.resolve(false),
    complete: () => Promise.resolve(false),
    release: () => Promise.resolve(false),
  };

  it.each([
    ['errors', broken],
    ['never answers', hanging],
    ['is in-process (untimed) and errors', { ...broken, inProcess: true }],
    ['is in-process (untimed) and throws', throwing],
  ])('answers 503 with Retry-After when it %s, nothing executed', async (_, store) => {
    const { app, runs } = orderApp({ idempotency: idempotency({ store, storeTimeoutMs: 20 }) });
    const response = await app.handle(post('k-13'));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(await errorCode(response)).toBe('idempotency-store-unavailable');
    expect(runs.count).toBe(0);
  });

  const failure = new Error('READONLY You cannot write against a read only replica.');
  it.each([
    ['errors', false, () => Promise.reject(failure)],
    ['is in-process (untimed) and errors', true, () => Promise.reject(failure)],
    [
      'is in-process and throws at once',
      true,
      () => {
        throw failure;
      },
    ],
  ])(
    "sends the real result when only the completion %s, and logs the store's own error, not a 503 that says nothing ran",
    async (_, inProcess, complete: IdempotencyStore['complete']) => {
      const memory = memoryIdempotencyStore();
      const store: IdempotencyStore = { ...memory, inProcess, complete };
      const logger = memoryLogger();
      const { app, runs } = orderApp({ idempotency: idempotency({ store }), logger });
      const response = await app.handle(post('k-14'));
      expect(response.status).toBe(201);
      expect(runs.count).toBe(1);
      expect(logger.entries).toEqual([
        {
          level: 'error',
          message: 'idempotency: response could not be stored',
          fields: { requestId: expect.any(String), err: failure },
        },
      ]);
    },
  );
});

describe('when the completion outlasts storeTimeoutMs', () => {
  it('sends the real result and logs that the outcome is unknown, not that it was not stored', async () => {
    const memory = memoryIdempotencyStore();
    // The record lands, but after the bound (a WAIT queued behind others, a slow network).
    let landed = false;
    const store: IdempotencyStore = {
      ...memory,
      inProcess: false,
      complete: (...args) =>
        new Promise((resolve) =>
          setTimeout(() => {
            landed = true;
            resolve(memory.complete(...args));
          }, 60),
        ),
    };
    const logger = memoryLogger();
    const { app, runs } = orderApp({ idempotency: idempotency({ store, storeTimeoutMs: 20 }), logger });
    const response = await app.handle(post('k-15'));
    expect(response.status).toBe(201);
    expect(landed).toBe(false);
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message:
          'idempotency: storing the response did not answer within storeTimeoutMs: a retry is replayed if it was stored, else runs again after the lease',
        fields: { requestId: expect.any(String), timeoutMs: 20 },
      },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    // It was stored after all: the retry is replayed, the handler not run again.
    expect((await app.handle(post('k-15'))).status).toBe(201);
    expect(runs.count).toBe(1);
  });
});

describe('when the body is larger than the route allows', () => {
  it('answers 413 without executing', async () => {
    const { app, runs } = orderApp({ idempotency: idempotency(), bodyLimit: 10 });
    expect((await app.handle(post('k-14'))).status).toBe(413);
    expect(runs.count).toBe(0);
  });
});

describe('when the key is malformed', () => {
  it.each([
    ['empty', ''],
    ['empty quoted', '""'],
    ['too long', 'k'.repeat(256)],
    ['a control character', 'a\tb'],
    ['non-ASCII', 'clé'],
    ['several values', '"a", "b"'],
    ['a bare comma', 'a,b'],
    ['an unterminated string', '"abc'],
  ])('answers 400 naming the header for %s, nothing executed', async (_, key) => {
    const { app, runs } = orderApp({ idempotency: idempotency() });
    const response = await app.handle(post(key));
    expect(response.status).toBe(400);
    const document = JSON.parse((await bodyOf(response)).toString());
    expect(document.errors[0]).toMatchObject({
      code: 'invalid-idempotency-key',
      source: { header: 'Idempotency-Key' },
    });
    expect(runs.count).toBe(0);
  });

  it('accepts a key of exactly 255 characters', async () => {
    const { app } = orderApp({ idempotency: idempotency() });
    expect((await app.handle(post('k'.repeat(255)))).status).toBe(201);
  });
});

describe('when the middleware is configured', () => {
  it.each([
    ['Set-Cookie in replayHeaders', { replayHeaders: ['Set-Cookie'] }],
    ['a negative lease', { leaseMs: -1 }],
    ['a zero retention', { retentionMs: 0 }],
    ['a wait without a bound', { wait: { timeoutMs: Number.NaN } }],
  ])('throws a TypeError at start-up for %s', (_, options) => {
    expect(() => idempotency(options)).toThrow(TypeError);
  });
});

/** Let the event loop run until `condition` holds (bounded, so a broken test fails rather than hangs). */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}
