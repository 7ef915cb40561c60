import { Redis } from 'ioredis';
import { REDIS_URL } from '../test/support/services.js';

/** Deletes what an `app+redis` server left in Redis: every key under its STORE_PREFIX. */
export async function deleteRedisKeysUnder(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1_000 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}
