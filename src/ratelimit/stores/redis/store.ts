import { createHash } from 'node:crypto';
import { functionOption } from '../../../errors/option-checks.js';
import {
  isRedisScriptClient,
  type RedisScriptClient,
  redisScriptRunner,
} from '../../../stores/redis-client.js';
import { checkPrefix, hashTag } from '../../../stores/redis-hash-tag.js';
import { gcraDecisionFromDebts } from '../../gcra.js';
import { policyStorageId, type RateLimitPolicy } from '../../policy.js';
import type { RateLimitStore } from '../store.js';
import { GCRA_SCRIPT } from './script.js';

/** Options of {@link redisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /**
   * The application's client, which it owns: an ioredis `Redis` or `Cluster`, or a node-redis
   * `createClient()` or `createCluster()` (see {@link RedisScriptClient}).
   */
  readonly client: RedisScriptClient;
  /**
   * Prefix of every key (default `ratelimit:`), without `{` or `}`: the store puts a Redis Cluster
   * hash tag per client after it, so clients spread over the cluster's masters.
   */
  readonly prefix?: string;
  /**
   * Clock in ms since the epoch, sent with each decision. Default: none, Redis `TIME` decides, so app
   * instances with skewed clocks agree. Tests pass a fake one; keys still expire in Redis' real time
   * (only garbage collection: a state past its time counts as fresh whatever is stored).
   */
  readonly now?: () => number;
}

const SCRIPT = { source: GCRA_SCRIPT, sha: createHash('sha1').update(GCRA_SCRIPT).digest('hex') };

/**
 * A store shared by every app instance: one atomic Lua script per decision covering all the
 * request's policies, the time taken from Redis `TIME`, keys expiring with their state. A client's
 * keys share a hash tag (the whole client key, `%`, `{` and `}` percent-encoded), so the script
 * also runs on Redis Cluster.
 *
 * @example
 * import { Redis } from 'ioredis';
 * rateLimit({ policies, store: redisRateLimitStore({ client: new Redis(process.env.REDIS_URL) }) });
 */
export function redisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  const { client } = options;
  if (!isRedisScriptClient(client)) {
    throw new TypeError('redisRateLimitStore: client must be an ioredis or node-redis client');
  }
  const prefix = checkPrefix('redisRateLimitStore', options.prefix ?? 'ratelimit:');
  const { now } = options;
  const runScript = redisScriptRunner(client);
  if (now !== undefined)
    functionOption('redisRateLimitStore', 'now', now, 'a function returning milliseconds');

  return {
    async consume(key: string, policies: readonly RateLimitPolicy[]) {
      const tagged = `${prefix}{${hashTag(key)}}:`;
      const keys = policies.map((policy) => tagged + policyStorageId(policy));
      const args = policies.flatMap((policy) => [policy.quota, policy.windowSeconds * 1000]);
      if (now !== undefined) args.push(Math.floor(now()));
      const reply = await runScript(SCRIPT, keys, args);
      // Integers, whether the client read them as numbers or as strings.
      const integers = Array.isArray(reply) ? reply.map(Number) : [];
      if (integers.length !== policies.length + 1 || !integers.every(Number.isSafeInteger)) {
        throw new Error('redisRateLimitStore: unexpected reply from the rate-limit script');
      }
      const [allowed, ...debts] = integers;
      const decision = gcraDecisionFromDebts(policies, debts);
      // Same arithmetic on both sides; a mismatch means a script and library of different versions.
      if (decision.allowed !== (allowed === 1))
        throw new Error('redisRateLimitStore: script and library disagree');
      return decision;
    },
  };
}
