import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { connectInfrastructure } from '../../examples/reference-app/infrastructure.js';
import { memoryIdempotencyStore } from '../../src/idempotency/index.js';
import { memoryRateLimitStore } from '../../src/ratelimit/index.js';
import { nodeClient } from '../support/clients.js';
import { bearer, memoryLogger } from '../support/reference-app.js';

describe('the reference app’s data store settings', () => {
  it('keeps the data in memory with a pool of 10 unless told otherwise', () => {
    const config = configFromEnv({});
    expect(config.dataStore).toBe('memory');
    expect(config.databasePoolSize).toBe(10);
  });

  it('reads DATA_STORE=postgres and DATABASE_POOL_SIZE', () => {
    const config = configFromEnv({ DATA_STORE: 'postgres', DATABASE_POOL_SIZE: '25' });
    expect(config.dataStore).toBe('postgres');
    expect(config.databasePoolSize).toBe(25);
  });

  it.each([
    [{ DATA_STORE: 'mysql' }, /DATA_STORE must be one of memory\|postgres, got mysql/],
    [{ DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE must be a positive integer/],
    [{ DATABASE_POOL_SIZE: 'many' }, /DATABASE_POOL_SIZE must be a positive integer/],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(TypeError);
    expect(() => configFromEnv(env)).toThrow(message);
  });
});

describe('the reference app’s server and logging settings', () => {
  it('serves with the node adapter and logs from info up unless told otherwise', () => {
    const config = configFromEnv({});
    expect(config.adapter).toBe('node');
    expect(config.logLevel).toBe('info');
    expect(configFromEnv({ ADAPTER: 'koa', LOG_LEVEL: 'silent' })).toMatchObject({
      adapter: 'koa',
      logLevel: 'silent',
    });
  });

  it.each([
    [{ ADAPTER: 'nest' }, /ADAPTER must be one of node\|fetch\|express\|fastify\|koa\|hono, got nest/],
    [
      { LOG_LEVEL: 'loud' },
      /LOG_LEVEL must be one of fatal\|error\|warn\|info\|debug\|trace\|silent, got loud/,
    ],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(TypeError);
    expect(() => configFromEnv(env)).toThrow(message);
  });
});

describe('the reference app’s Redis settings', () => {
  it('uses one Redis (REDIS_URL) without WAIT unless REDIS_CLUSTER_NODES names a cluster', () => {
    const config = configFromEnv({});
    expect(config.redisClusterNodes).toBeUndefined();
    expect(config.redisWaitReplicas).toBe(0);
  });

  it('reads REDIS_CLUSTER_NODES, waiting for one replica by default, or REDIS_WAIT_REPLICAS', () => {
    const config = configFromEnv({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001,[::1]:7002' });
    expect(config.redisClusterNodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(config.redisWaitReplicas).toBe(1);
    expect(configFromEnv({ REDIS_CLUSTER_NODES: 'a:1', REDIS_WAIT_REPLICAS: '0' }).redisWaitReplicas).toBe(0);
  });

  it.each([
    [{ REDIS_CLUSTER_NODES: 'redis-a' }, /REDIS_CLUSTER_NODES must be host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:7000,' }, /REDIS_CLUSTER_NODES must be host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:70000' }, /REDIS_CLUSTER_NODES must be host:port/],
    [{ REDIS_WAIT_REPLICAS: '-1' }, /REDIS_WAIT_REPLICAS must be a non-negative integer/],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(TypeError);
    expect(() => configFromEnv(env)).toThrow(message);
  });
});

describe('the reference app’s idempotency store budgets', () => {
  it('leaves the budgets to the store unless IDEMPOTENCY_MAX_ENTRIES or IDEMPOTENCY_MAX_BYTES is set', () => {
    expect(configFromEnv({}).idempotencyLimits).toEqual({});
    expect(
      configFromEnv({ IDEMPOTENCY_MAX_ENTRIES: '500000', IDEMPOTENCY_MAX_BYTES: '1048576' })
        .idempotencyLimits,
    ).toEqual({ maxEntries: 500_000, maxBytes: 1_048_576 });
  });

  it.each([
    [{ IDEMPOTENCY_MAX_ENTRIES: '0' }, /IDEMPOTENCY_MAX_ENTRIES must be a positive integer/],
    [{ IDEMPOTENCY_MAX_BYTES: 'lots' }, /IDEMPOTENCY_MAX_BYTES must be a positive integer/],
    [{ IDEMPOTENCY_STORE: 'redis', IDEMPOTENCY_MAX_ENTRIES: '10' }, /size the memory store only/],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(message);
  });

  it('sizes the memory store: with IDEMPOTENCY_MAX_ENTRIES=2 a third key is refused with 503', async () => {
    const config = configFromEnv({ RATE_LIMIT_MAX: '1000', IDEMPOTENCY_MAX_ENTRIES: '2' });
    const infrastructure = await connectInfrastructure(config);
    const client = await nodeClient(createReferenceApp(config, memoryLogger(), infrastructure));
    try {
      const post = async (sub: string, key: string) =>
        client.request('POST', '/orders', {
          headers: {
            'content-type': 'application/json',
            authorization: await bearer(sub),
            'idempotency-key': key,
          },
          body: JSON.stringify({ bookId: 1, quantity: 1 }),
        });
      expect((await post('1', '"a"')).status).toBe(201);
      expect((await post('2', '"b"')).status).toBe(201);
      const refused = await post('3', '"c"');
      expect(refused.status).toBe(503);
      expect(refused.body.errors[0].code).toBe('idempotency-store-full');
    } finally {
      await client.close();
      await infrastructure.close();
    }
  });
});

describe('the reference app’s store call bounds', () => {
  it('bounds idempotency store calls at 2 s and rate-limit store calls at 200 ms unless told otherwise', () => {
    const config = configFromEnv({});
    expect(config.idempotencyStoreTimeoutMs).toBe(2_000);
    expect(config.rateLimit.storeTimeoutMs).toBe(200);
    const set = configFromEnv({ IDEMPOTENCY_STORE_TIMEOUT_MS: '30000', RATE_LIMIT_TIMEOUT_MS: '1500' });
    expect(set.idempotencyStoreTimeoutMs).toBe(30_000);
    expect(set.rateLimit.storeTimeoutMs).toBe(1_500);
  });

  it.each([
    [{ IDEMPOTENCY_STORE_TIMEOUT_MS: '0' }, /IDEMPOTENCY_STORE_TIMEOUT_MS must be a positive integer/],
    [{ RATE_LIMIT_TIMEOUT_MS: 'soon' }, /RATE_LIMIT_TIMEOUT_MS must be a positive integer/],
  ])('refuses %o at start-up with a TypeError naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(TypeError);
    expect(() => configFromEnv(env)).toThrow(message);
  });

  it('bounds each store call as told: a keyed write behind a 300 ms claim is refused at 50 ms, a read behind a 300 ms decision is decided within 5 s', async () => {
    // Timers fire in the order of their ends, whatever the machine's load: 50 ms before 300 ms, and
    // 300 ms before the defaults would have (200 ms for the limiter would have failed this read open).
    const slow =
      <A extends unknown[], R>(call: (...args: A) => R | Promise<R>) =>
      async (...args: A) => {
        await sleep(300);
        return call(...args);
      };
    const idempotencyStore = memoryIdempotencyStore();
    const rateLimitStore = memoryRateLimitStore();
    const config = configFromEnv({ IDEMPOTENCY_STORE_TIMEOUT_MS: '50', RATE_LIMIT_TIMEOUT_MS: '5000' });
    const client = await nodeClient(
      createReferenceApp(config, memoryLogger(), {
        // Not `inProcess`: stores that answer from memory and cannot hang are not bounded.
        idempotencyStore: {
          ...idempotencyStore,
          inProcess: false,
          claim: slow(idempotencyStore.claim.bind(idempotencyStore)),
        },
        rateLimitStore: { consume: slow(rateLimitStore.consume.bind(rateLimitStore)) },
      }),
    );
    try {
      const authorization = await bearer('1');
      const read = await client.request('GET', '/books', { headers: { authorization } });
      expect(read.status).toBe(200);
      expect(read.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
      const write = await client.request('POST', '/orders', {
        headers: { 'content-type': 'application/json', authorization, 'idempotency-key': '"k"' },
        body: JSON.stringify({ bookId: 1, quantity: 1 }),
      });
      expect(write.status).toBe(503);
      expect(write.body.errors[0].code).toBe('idempotency-store-unavailable');
    } finally {
      await client.close();
    }
  });
});

describe('the reference app’s telemetry settings', () => {
  it('wires no telemetry unless METRICS_PORT or an OTEL_* variable asks', () => {
    expect(configFromEnv({}).telemetry).toEqual({ enabled: false, metricsPort: undefined });
    expect(configFromEnv({ METRICS_PORT: '9464' }).telemetry).toEqual({ enabled: true, metricsPort: 9464 });
    expect(configFromEnv({ OTEL_SERVICE_NAME: 'books' }).telemetry).toEqual({
      enabled: true,
      metricsPort: undefined,
    });
  });

  it.each(['0', '65536', 'http', '9464.5'])('refuses METRICS_PORT=%s at start-up, naming it', (port) => {
    expect(() => configFromEnv({ METRICS_PORT: port })).toThrow(`METRICS_PORT must be 1..65535, got ${port}`);
  });
});
