import { Redis } from 'ioredis';
import { createClient, createClientPool, RESP_TYPES } from 'redis';
import { createClient as createClient4 } from 'redis-v4';
import { createClient as createClient5 } from 'redis-v5';
import type { RedisScriptClient } from '../../src/idempotency/index.js';
import { REDIS_URL } from './services.js';

/** A connected client of one of the libraries the Redis stores take, and how to let it go. */
export interface ConnectedClient {
  readonly client: RedisScriptClient;
  close(): Promise<unknown>;
}

/** Without a listener, node-redis throws its connection errors as unhandled 'error' events. */
const quiet = <T extends { on(event: 'error', listener: () => void): unknown }>(client: T): T => {
  client.on('error', () => {});
  return client;
};

/**
 * Every client the Redis stores take (docs/idempotency.md, "Stores"), at REDIS_URL (or `url`):
 * ioredis, and node-redis 4, 5 and 6 (`redis-v4`, `redis-v5` are npm aliases of those majors), a node-redis
 * pool, and a node-redis client set up unlike the stores' own defaults (RESP2, bulk strings decoded
 * as Buffers, integers as strings), which the stores must read all the same.
 */
export const REDIS_CLIENTS = {
  ioredis: async (url = REDIS_URL) => {
    const client = new Redis(url, { lazyConnect: true });
    await client.connect();
    return { client, close: () => client.quit() };
  },
  'node-redis 6': async (url = REDIS_URL) => {
    const client = await quiet(createClient({ url })).connect();
    return { client, close: () => client.close() };
  },
  'node-redis 5': async (url = REDIS_URL) => {
    const client = await quiet(createClient5({ url })).connect();
    return { client, close: () => client.close() };
  },
  'node-redis 4': async (url = REDIS_URL) => {
    const client = quiet(createClient4({ url }));
    await client.connect();
    return { client, close: () => client.quit() };
  },
  'node-redis 6 pool': async (url = REDIS_URL) => {
    const pool = quiet(createClientPool({ url }, { minimum: 2 }));
    await pool.connect();
    return { client: pool, close: () => pool.close() };
  },
  'node-redis 6, RESP2, strings as Buffers and integers as strings': async (url = REDIS_URL) => {
    const client = await quiet(createClient({ url, RESP: 2 })).connect();
    return {
      client: client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.NUMBER]: String }),
      close: () => client.close(),
    };
  },
} satisfies Record<string, (url?: string) => Promise<ConnectedClient>>;

export type RedisClientName = keyof typeof REDIS_CLIENTS;
