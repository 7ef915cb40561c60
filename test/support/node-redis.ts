import { createClient } from 'redis';
import { REDIS_URL } from './services.js';

/** A node-redis client (`redis` package) at REDIS_URL, connected; the one library the stores take besides ioredis. */
export async function connectNodeRedis() {
  const client = createClient({ url: REDIS_URL });
  // Without a listener, node-redis throws its connection errors as unhandled 'error' events.
  client.on('error', () => {});
  await client.connect();
  return client;
}

export type NodeRedisClient = Awaited<ReturnType<typeof connectNodeRedis>>;
