import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { created } from '../../src/core/response.js';
import {
  type IdempotencyStore,
  idempotency,
  postgresIdempotencyStore,
  redisIdempotencyStore,
} from '../../src/idempotency/index.js';
import { openTelemetry, storeTelemetry } from '../../src/opentelemetry/index.js';
import { redisRateLimitStore } from '../../src/ratelimit/index.js';
import { requestView } from '../support/request.js';
import { DATABASE_URL, REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { inMemoryTelemetry } from '../support/telemetry.js';

const telemetry = inMemoryTelemetry();
const providers = { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider };
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  await telemetry.close();
});

/** A keyed POST through `store`, and the spans of its trace. */
async function keyedWrite(store: IdempotencyStore) {
  const app = createApp({ use: [openTelemetry(providers)], logger: { error: () => {}, warn: () => {} } });
  app.route({
    method: 'POST',
    path: '/orders',
    use: [idempotency({ store })],
    handler: () => created('/orders/1', { data: { type: 'orders', id: '1' } }),
  });
  const key = `"${uniquePrefix('k')}"`;
  const response = await app.handle(
    requestView('POST', '/orders', {
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: '{}',
    }),
  );
  expect(response.status).toBe(201);
  const server = telemetry.spans().findLast((s) => s.kind === SpanKind.SERVER && s.name === 'POST /orders')!;
  const traceId = server.spanContext().traceId;
  return {
    server,
    calls: telemetry.spans().filter((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === traceId),
  };
}

describe.skipIf(!(await serviceAvailable('Redis')))('store spans on Redis', () => {
  const client = new Redis(REDIS_URL);
  closers.push(() => client.quit());
  const prefix = `${uniquePrefix('otel')}:`;

  it('makes each idempotency store call a redis client span inside the request span', async () => {
    const store = storeTelemetry(redisIdempotencyStore({ client, prefix }), {
      ...providers,
      system: 'redis',
      store: 'idempotency',
    });
    const { server, calls } = await keyedWrite(store);
    expect(calls.map((s) => s.attributes['db.operation.name'])).toEqual(
      expect.arrayContaining(['claim', 'complete']),
    );
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(call.attributes['db.system.name']).toBe('redis');
      expect(call.status.code).not.toBe(SpanStatusCode.ERROR);
    }
  });

  it('records a failing Redis call as an error span', async () => {
    const broken = new Redis(REDIS_URL, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const store = storeTelemetry(redisRateLimitStore({ client: broken, prefix }), {
      ...providers,
      system: 'redis',
      store: 'ratelimit',
    });
    await expect(store.consume('k', [{ name: 'p', quota: 1, windowSeconds: 1 }])).rejects.toThrow();
    const span = telemetry.spans().findLast((s) => s.name === 'consume ratelimit')!;
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toEqual(expect.any(String));
  });
});

describe.skipIf(!(await serviceAvailable('PostgreSQL')))('store spans on PostgreSQL', () => {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  const table = `${uniquePrefix('otel').toLowerCase()}_records`;
  closers.push(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  });

  it('makes each idempotency store call a postgresql client span inside the request span', async () => {
    const inner = postgresIdempotencyStore({ pool, table });
    await inner.migrate();
    const store = storeTelemetry(inner, { ...providers, system: 'postgresql', store: 'idempotency' });
    const { server, calls } = await keyedWrite(store);
    expect(calls.map((s) => s.attributes['db.operation.name'])).toEqual(
      expect.arrayContaining(['claim', 'complete']),
    );
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(call.attributes['db.system.name']).toBe('postgresql');
    }
  });

  it("spans the calls in a transactional store's claim transaction too: begin, then its completion", async () => {
    const inner = postgresIdempotencyStore({ pool, table, transactional: true });
    await inner.migrate();
    const store = storeTelemetry(inner, { ...providers, system: 'postgresql', store: 'idempotency' });
    const { server, calls } = await keyedWrite(store);
    const operations = calls.map((s) => s.attributes['db.operation.name']);
    expect(operations).toEqual(expect.arrayContaining(['claim', 'begin']));
    // The transaction completes as one step where the store offers it, else complete then commit.
    const completion = operations.includes('completeAndCommit')
      ? ['completeAndCommit']
      : ['complete', 'commit'];
    expect(operations).toEqual(expect.arrayContaining(completion));
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(call.status.code).not.toBe(SpanStatusCode.ERROR);
    }
  });
});
