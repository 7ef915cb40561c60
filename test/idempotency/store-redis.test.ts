import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisStore } from '../../src/idempotency/index.js';
import { REDIS_URL, serviceAvailable, uniquePrefix } from '../support/services.js';
import { describeStoreContract } from './store-contract.js';

const available = await serviceAvailable('Redis');
let client: Redis | undefined;
const prefix = `${uniquePrefix('idem')}:`;
let limited = 0;

describeStoreContract(
  'Redis',
  {
    before: async () => {
      client = new Redis(REDIS_URL, { lazyConnect: true });
      await client.connect();
    },
    make: (now) => redisStore({ client: client!, prefix, now }),
    makeLimited: async (now, limits) =>
      redisStore({ client: client!, prefix: `${prefix}limited-${++limited}:`, now, ...limits }),
    after: async () => {
      if (client === undefined) return;
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
      await client.quit();
    },
  },
  available,
);

describe('the Redis store, when configured', () => {
  it('rejects something that is not an ioredis client at start-up', () => {
    expect(() => redisStore({ client: {} as Redis })).toThrow(TypeError);
  });
});
