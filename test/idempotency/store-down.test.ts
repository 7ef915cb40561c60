import net from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotency, postgresIdempotencyStore, redisIdempotencyStore } from '../../src/idempotency/index.js';
import { requestView } from '../support/request.js';
import { bodyOf, orderApp } from './order-app.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const post = () =>
  requestView('POST', '/orders', {
    headers: { 'content-type': 'application/json', 'idempotency-key': 'k' },
    body: '{"bookId":1,"quantity":1}',
  });

describe('when the store cannot be reached', () => {
  let port = 0;
  const clients: Redis[] = [];
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    port = await closedPort();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('answers 503 with Retry-After for a Redis client that fails fast, nothing executed', async () => {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    client.on('error', () => {});
    clients.push(client);
    const { app, runs } = orderApp({
      idempotency: idempotency({ store: redisIdempotencyStore({ client }) }),
    });
    const response = await app.handle(post());
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(runs.count).toBe(0);
  });

  it('answers 503 instead of hanging for a Redis client that keeps retrying', async () => {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      retryStrategy: () => 50,
      maxRetriesPerRequest: null,
    });
    client.on('error', () => {});
    clients.push(client);
    const { app, runs } = orderApp({
      idempotency: idempotency({ store: redisIdempotencyStore({ client }), storeTimeoutMs: 100 }),
    });
    const response = await app.handle(post());
    expect(response.status).toBe(503);
    expect(JSON.parse((await bodyOf(response)).toString()).errors[0].code).toBe(
      'idempotency-store-unavailable',
    );
    expect(runs.count).toBe(0);
  });

  it('answers 503 for a PostgreSQL pool that cannot connect', async () => {
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      database: 'test',
      connectionTimeoutMillis: 200,
    });
    pools.push(pool);
    const { app, runs } = orderApp({
      idempotency: idempotency({
        store: postgresIdempotencyStore({ pool, transactional: true }),
        storeTimeoutMs: 500,
      }),
    });
    const response = await app.handle(post());
    expect(response.status).toBe(503);
    expect(runs.count).toBe(0);
  });
});
