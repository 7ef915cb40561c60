import { parseItem, parseList } from 'structured-headers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { json } from '../../src/core/response.js';
import type { Logger, Middleware } from '../../src/http/types.js';
import {
  memoryRateLimitStore,
  type RateLimitOptions,
  type RateLimitStore,
  rateLimit,
} from '../../src/ratelimit/index.js';
import { STORE_RECOVERY_MS } from '../../src/ratelimit/middleware.js';
import { requestView, type TestRequest } from '../support/request.js';

const T0 = 1_760_000_000_000;

function recordingLogger() {
  const warnings: { message: string; fields: Record<string, unknown> }[] = [];
  const errors: string[] = [];
  const logger: Logger = {
    warn: (fields, message) => warnings.push({ message, fields }),
    error: (_fields, message) => errors.push(message),
  };
  return { logger, warnings, errors };
}

function appWith(options: RateLimitOptions, logger?: Logger, use: Middleware[] = []) {
  const app = createApp({ use: [...use, rateLimit(options)], ...(logger ? { logger } : {}) });
  app.route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) });
  return app;
}

const get = (app: ReturnType<typeof appWith>, init: TestRequest = {}, path = '/books') =>
  app.handle(requestView('GET', path, init));

describe('when a request is within quota', () => {
  it('passes it on and adds RateLimit-Policy and RateLimit, parseable as Structured Fields', async () => {
    const app = appWith({
      policies: [
        { name: 'burst', quota: 3, windowSeconds: 60 },
        { name: 'daily', quota: 1000, windowSeconds: 86400 },
      ],
      now: () => T0,
    });
    const response = await get(app);
    expect(response.status).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe('"burst";q=3;w=60, "daily";q=1000;w=86400');
    expect(response.headers.ratelimit).toBe('"burst";r=2;t=20');
    const [[name, params]] = parseList(response.headers.ratelimit!) as [[string, Map<string, unknown>]];
    expect([name, Object.fromEntries(params)]).toEqual(['burst', { r: 2, t: 20 }]);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('decorates error responses from inner layers too', async () => {
    const app = appWith({ policies: [{ name: 'p', quota: 5, windowSeconds: 60 }], now: () => T0 });
    const response = await get(app, {}, '/nowhere');
    expect(response.status).toBe(404);
    expect(response.headers.ratelimit).toBe('"p";r=4;t=12');
  });

  it('adds the legacy X-RateLimit trio when asked', async () => {
    const app = appWith({
      policies: [{ name: 'p', quota: 5, windowSeconds: 60 }],
      legacyHeaders: true,
      now: () => T0,
    });
    expect((await get(app)).headers).toMatchObject({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset': '12',
    });
  });
});

describe('when the quota is exhausted', () => {
  const make = () =>
    appWith({ policies: [{ name: 'burst', quota: 2, windowSeconds: 60 }], now: () => T0 + 1 });

  it('answers 429 with an error document, Retry-After not earlier than t, and the RateLimit fields', async () => {
    const app = make();
    await get(app);
    await get(app);
    const refused = await get(app);
    expect(refused.status).toBe(429);
    const retryAfter = refused.headers['retry-after']!;
    expect(retryAfter).toMatch(/^\d+$/);
    const [, params] = parseItem(refused.headers.ratelimit!);
    expect(params.get('r')).toBe(0);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(params.get('t') as number);
    expect(refused.headers['ratelimit-policy']).toBe('"burst";q=2;w=60');
    expect(refused.json).toMatchObject({ errors: [{ status: '429', code: 'quota-exceeded' }] });
  });

  it('renders a problem document when the client prefers it', async () => {
    const app = make();
    await get(app);
    await get(app);
    const refused = await get(app, { headers: { accept: 'application/problem+json' } });
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.json).toMatchObject({ status: 429, code: 'quota-exceeded' });
  });

  it('admits again once Retry-After has passed', async () => {
    let now = T0;
    const app = appWith({ policies: [{ name: 'burst', quota: 2, windowSeconds: 60 }], now: () => now });
    await get(app);
    await get(app);
    const refused = await get(app);
    now += Number(refused.headers['retry-after']) * 1000;
    expect((await get(app)).status).toBe(200);
  });
});

describe('when clients are told apart', () => {
  const options = { policies: [{ name: 'p', quota: 1, windowSeconds: 60 }], now: () => T0 };

  it('a spoofed X-Forwarded-For does not change the bucket by default', async () => {
    const app = appWith(options);
    expect((await get(app, { remoteAddress: '203.0.113.5' })).status).toBe(200);
    const spoofed = await get(app, {
      remoteAddress: '203.0.113.5',
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    expect(spoofed.status).toBe(429);
  });

  it('a trusted proxy’s X-Forwarded-For does select the bucket', async () => {
    const app = appWith({ ...options, trustProxy: ['10.0.0.0/8'] });
    const viaProxy = (client: string) =>
      get(app, { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } });
    expect((await viaProxy('198.51.100.1')).status).toBe(200);
    expect((await viaProxy('198.51.100.2')).status).toBe(200);
    expect((await viaProxy('198.51.100.1')).status).toBe(429);
    // A client cannot escape by prepending addresses: the proxy-appended element decides.
    expect((await viaProxy('192.0.2.99, 198.51.100.1')).status).toBe(429);
  });

  it('rotating addresses inside one IPv6 /56 shares one bucket', async () => {
    const app = appWith(options);
    expect((await get(app, { remoteAddress: '2001:db8:1:200::1' })).status).toBe(200);
    expect((await get(app, { remoteAddress: '2001:db8:1:2ff::abcd' })).status).toBe(429);
    expect((await get(app, { remoteAddress: '2001:db8:1:300::1' })).status).toBe(200);
  });

  it('authenticated callers are limited per user, wherever they come from', async () => {
    const authenticate: Middleware = (ctx, next) => {
      const user = ctx.request.headers.get('x-test-user');
      if (user) ctx.var.principal = { sub: user, scopes: new Set(), claims: {} };
      return next();
    };
    const app = appWith(options, undefined, [authenticate]);
    expect(
      (await get(app, { remoteAddress: '203.0.113.5', headers: { 'x-test-user': 'alice' } })).status,
    ).toBe(200);
    expect(
      (await get(app, { remoteAddress: '198.51.100.7', headers: { 'x-test-user': 'alice' } })).status,
    ).toBe(429);
    expect((await get(app, { remoteAddress: '203.0.113.5', headers: { 'x-test-user': 'bob' } })).status).toBe(
      200,
    );
  });

  it('a custom key replaces the default', async () => {
    const app = appWith({ ...options, key: (ctx) => ctx.request.headers.get('x-api-key') ?? 'anonymous' });
    expect((await get(app, { headers: { 'x-api-key': 'k1' } })).status).toBe(200);
    expect((await get(app, { headers: { 'x-api-key': 'k2' } })).status).toBe(200);
    expect((await get(app, { headers: { 'x-api-key': 'k1' } })).status).toBe(429);
  });
});

describe('when the store fails', () => {
  const failing: RateLimitStore = { consume: () => Promise.reject(new Error('connection refused')) };
  const throwing: RateLimitStore = {
    consume: () => {
      throw new Error('sync failure');
    },
  };
  const hanging: RateLimitStore = { consume: () => new Promise(() => {}) };
  const policies = [{ name: 'p', quota: 1, windowSeconds: 60 }];

  it.each([
    ['rejects', failing],
    ['throws', throwing],
    ['never answers', hanging],
  ])('fails open by default when the store %s: 200, no RateLimit fields, one warning', async (_, store) => {
    const { logger, warnings } = recordingLogger();
    const app = appWith({ policies, store, timeoutMs: 20 }, logger);
    const response = await get(app);
    expect(response.status).toBe(200);
    expect(response.headers.ratelimit).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ requestId: expect.any(String) });
  });

  it.each([
    ['rejects', failing],
    ['never answers', hanging],
  ])('fails closed when asked and the store %s: 503 with Retry-After, never 429', async (_, store) => {
    const { logger, errors } = recordingLogger();
    const app = appWith({ policies, store, timeoutMs: 20, onStoreError: 'closed' }, logger);
    const response = await get(app);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    expect(response.json).toMatchObject({ errors: [{ status: '503', code: 'rate-limit-unavailable' }] });
    expect(errors).toHaveLength(1);
  });
});

describe('its contract (the OpenAPI document of the routes it runs on)', () => {
  const policies = [{ name: 'p', quota: 1, windowSeconds: 60 }];
  const down: RateLimitStore = { consume: () => Promise.reject(new Error('connection refused')) };

  it('declares 503 when a store that can fail is there and it fails closed, and only then', async () => {
    const { contractOf } = await import('../../src/core/contract.js');
    const statuses = (options: RateLimitOptions) =>
      contractOf(rateLimit(options)).flatMap((c) => Object.keys(c.responses ?? {}));
    expect(statuses({ policies })).toEqual(['429']);
    expect(statuses({ policies, onStoreError: 'closed' })).toEqual(['429']);
    expect(statuses({ policies, store: down })).toEqual(['429']);
    expect(statuses({ policies, store: down, onStoreError: 'open' })).toEqual(['429']);
    expect(statuses({ policies, store: down, onStoreError: 'closed' })).toEqual(['429', '503']);
  });

  it.each([
    ['memory store', {}, [200, 429]],
    ['store that is down, failing open', { store: down }, [200, 200]],
    ['store that is down, failing closed', { store: down, onStoreError: 'closed' as const }, [503, 503]],
  ])('with a %s, every response is what the document says', async (_, options, statuses) => {
    const { openApiDocument } = await import('../../src/openapi/index.js');
    const { conformanceChecker } = await import('../../src/testing/index.js');
    const { send } = await import('../core/send.js');
    const app = appWith({ policies, ...options }, recordingLogger().logger);
    const conforms = conformanceChecker(openApiDocument(app.routes(), { title: 't', version: '1' }));
    for (const expected of statuses) {
      const response = await send(app, 'GET', '/books');
      expect(response.status).toBe(expected);
      const exchange = { method: 'GET', path: '/books', status: response.status, body: response.text };
      expect(conforms({ ...exchange, headers: response.headers }).problems).toEqual([]);
    }
  });
});

describe('logging store outages', () => {
  // The limiter's clock (performance.now) is a fake one here, moved by the test.
  afterEach(() => {
    vi.useRealTimers();
  });
  const messages = (warnings: { message: string }[]) => warnings.map((w) => w.message.split(';')[0]);

  it('warns once when the store goes away and once when it has answered for a while, not once per request', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    let down = false;
    const store = memoryRateLimitStore();
    const flaky: RateLimitStore = {
      consume: (key, policies) => (down ? Promise.reject(new Error('down')) : store.consume(key, policies)),
    };
    const { logger, warnings } = recordingLogger();
    const app = appWith({ policies: [{ name: 'p', quota: 1000, windowSeconds: 60 }], store: flaky }, logger);
    const statuses: number[] = [];
    const run = async (state: boolean, requests: number) => {
      down = state;
      for (let i = 0; i < requests; i++) statuses.push((await get(app)).status);
    };
    await run(false, 3);
    await run(true, 50);
    await run(false, 5);
    // Answering again, but not yet for STORE_RECOVERY_MS: still the same outage.
    vi.advanceTimersByTime(STORE_RECOVERY_MS - 1);
    await run(false, 5);
    expect(messages(warnings)).toEqual(['rate-limit store unavailable']);
    vi.advanceTimersByTime(1);
    await run(false, 5);
    await run(true, 10);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(messages(warnings)).toEqual([
      'rate-limit store unavailable',
      'rate-limit store answers again',
      'rate-limit store unavailable',
    ]);
    expect(warnings[1]!.fields.failures).toBe(50);
  });

  it('logs a store that fails some keys and answers others (one shard of several down) as one outage', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    // A real memory store behind a wrapper that fails the keys of one "shard": addresses ending in
    // an odd digit; the others are decided as usual.
    const store = memoryRateLimitStore();
    const shardDown = (key: string) => /[13579]$/.test(key);
    let healed = false;
    const partial: RateLimitStore = {
      consume: (key, policies) =>
        shardDown(key) && !healed ? Promise.reject(new Error('shard down')) : store.consume(key, policies),
    };
    const { logger, warnings } = recordingLogger();
    const app = appWith(
      { policies: [{ name: 'p', quota: 1000, windowSeconds: 60 }], store: partial },
      logger,
    );
    const from = (n: number) => get(app, { remoteAddress: `192.0.2.${n}` });
    // 30 s of requests from 20 clients, 10 on the dead shard, interleaved: 600 alternations
    // between a failing and an answering call, 100 ms apart.
    for (let round = 0; round < 30; round++) {
      for (let n = 0; n < 20; n++) {
        const response = await from(n);
        expect(response.status).toBe(200);
        expect(response.headers.ratelimit === undefined).toBe(shardDown(`${n}`));
      }
      vi.advanceTimersByTime(1_000);
    }
    expect(messages(warnings)).toEqual(['rate-limit store unavailable']);
    // The shard is back: the first decision STORE_RECOVERY_MS after the last failure says so, with
    // the count of the failed calls.
    healed = true;
    vi.advanceTimersByTime(STORE_RECOVERY_MS - 1_000);
    await from(2);
    expect(messages(warnings)).toEqual(['rate-limit store unavailable', 'rate-limit store answers again']);
    expect(warnings[1]!.fields.failures).toBe(300);
  });
});

describe('when nesting limiters (application-wide and per route)', () => {
  it('lists both limiters’ fields', async () => {
    const app = createApp({
      use: [rateLimit({ policies: [{ name: 'global', quota: 100, windowSeconds: 60 }], now: () => T0 })],
    });
    app.route({
      method: 'GET',
      path: '/books',
      use: [rateLimit({ policies: [{ name: 'books', quota: 10, windowSeconds: 60 }], now: () => T0 })],
      handler: () => json(200, { data: [] }),
    });
    const response = await app.handle(requestView('GET', '/books'));
    expect(parseList(response.headers['ratelimit-policy']!).map(([name]) => name)).toEqual([
      'books',
      'global',
    ]);
    expect(parseList(response.headers.ratelimit!).map(([name]) => name)).toEqual(['books', 'global']);
  });
});

describe('when one limiter instance is used at two layers', () => {
  it('each layer reports its own decision', async () => {
    const shared = rateLimit({ policies: [{ name: 'p', quota: 10, windowSeconds: 60 }], now: () => T0 });
    const app = createApp({ use: [shared] });
    app.route({ method: 'GET', path: '/books', use: [shared], handler: () => json(200, { data: [] }) });
    const response = await app.handle(requestView('GET', '/books'));
    // One request consumed twice from one bucket: the outer layer first (9 left), then the inner
    // (8 left), whose fields are listed first, as the inner layer adds them first.
    expect(parseList(response.headers.ratelimit!).map(([, params]) => params.get('r'))).toEqual([8, 9]);
  });
});

describe('when the options are wrong', () => {
  const policies = [{ name: 'p', quota: 1, windowSeconds: 1 }];
  it.each<[string, Partial<RateLimitOptions>]>([
    ['no policies', { policies: [] }],
    ['a bad failure policy', { onStoreError: 'maybe' as 'open' }],
    ['a zero timeout', { timeoutMs: 0 }],
    ['a bad trustProxy entry', { trustProxy: ['not-an-ip'] }],
    ['a bad IPv6 prefix', { ipv6Prefix: 200 }],
    ['a clock alongside a store', { now: () => 0, store: { consume: () => Promise.reject(new Error()) } }],
  ])('throws a TypeError at start-up (%s)', (_, overrides) => {
    expect(() => rateLimit({ policies, ...overrides })).toThrow(TypeError);
  });
});
