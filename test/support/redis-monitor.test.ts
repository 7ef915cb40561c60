/**
 * The MONITOR helper the command-count tests rely on (test/support/redis-monitor.ts), on the shared
 * Redis while another client keeps it busy, as other test files do in a run: MONITOR's OK then
 * arrives with other clients' command lines in the same read. `redis.monitor()` rejected with a
 * "Command queue state error" for such a line and left the next unhandled, failing whichever test
 * had just started a monitor.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitored } from './redis-monitor.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from './services.js';

const available = await serviceAvailable('Redis');

describe.skipIf(!available)('monitored(), while other clients keep Redis busy', () => {
  let redis: Redis;
  let busy: Redis;
  let writing = true;
  let writer: Promise<void>;
  const prefix = uniquePrefix('monitor');

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    busy = new Redis(REDIS_URL);
    writer = (async () => {
      while (writing)
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => busy.set(`${prefix}:busy:${i}`, '1', 'PX', 10_000)),
        );
    })();
  });
  afterAll(async () => {
    writing = false;
    await writer;
    await Promise.all([redis.quit(), busy.quit()]);
  });

  it('starts every time, and sees each command sent after it started', async () => {
    for (let round = 0; round < 30; round++) {
      const { seen, settle, stop } = await monitored(redis, `${prefix}:mine:`);
      try {
        await redis.set(`${prefix}:mine:${round}`, '1', 'PX', 10_000);
        await settle();
        expect(seen.map(({ args }) => args.slice(0, 2))).toEqual([['set', `${prefix}:mine:${round}`]]);
      } finally {
        await stop();
      }
    }
  });
});
