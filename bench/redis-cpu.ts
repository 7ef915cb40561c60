import { Redis } from 'ioredis';

/**
 * The CPU time (user + system, microseconds) the Redis servers at `urls` have used, from their own
 * `INFO cpu`: what a benchmarked server's requests cost Redis, which shares the machine with the load
 * generator. Each URL is one server (every node of a cluster, for a cluster).
 */
export async function redisCpuMicros(urls: readonly string[]): Promise<number> {
  let total = 0;
  for (const url of urls) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const info = await redis.info('cpu');
      for (const field of ['used_cpu_user', 'used_cpu_sys']) {
        total += Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0) * 1e6;
      }
    } finally {
      redis.disconnect();
    }
  }
  return total;
}
