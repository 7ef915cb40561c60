import { createHash } from 'node:crypto';
import { isRedisScriptClient, type RedisScriptClient, runRedisScript } from '../core/redis-client.js';
import { type ClaimOutcome, type IdempotencyStore, newToken, type StoredResponse } from './store.js';

export interface RedisStoreOptions {
  /**
   * An ioredis `Redis` or `Cluster` the application created (any client with the `evalsha`/`eval`
   * of {@link RedisScriptClient}); the store never closes it.
   */
  readonly client: RedisScriptClient;
  /** Prefix of every key this store writes (default `idempotency:`). */
  readonly prefix?: string;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/**
 * How long past its logical expiry a record physically lingers: expiry is decided against the
 * clock passed in (so every store obeys the same `now`), and Redis' own TTL only garbage-collects.
 */
const GRACE_MS = 60_000;

// Each script reads and writes one hash atomically. A record is live while `exp` (ms) > now.
// ARGV[1] is always `now`.
const CLAIM = `
local r = redis.call('HMGET', KEYS[1], 'state', 'fp', 'exp', 'status', 'headers', 'body')
local now = tonumber(ARGV[1])
if r[1] and tonumber(r[3]) > now then
  if r[2] ~= ARGV[2] then return {'mismatch'} end
  if r[1] == 'completed' then return {'completed', r[4], r[5], r[6]} end
  return {'in-progress'}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'in-progress', 'fp', ARGV[2], 'token', ARGV[3], 'exp', string.format('%d', now + tonumber(ARGV[4])))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) + ${GRACE_MS})
return {'claimed'}
`;

const OWNED = `
local r = redis.call('HMGET', KEYS[1], 'state', 'token', 'exp')
local now = tonumber(ARGV[1])
if r[1] ~= 'in-progress' or r[2] ~= ARGV[2] or tonumber(r[3]) <= now then return 0 end
`;

const RENEW = `${OWNED}
redis.call('HSET', KEYS[1], 'exp', string.format('%d', now + tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + ${GRACE_MS})
return 1
`;

const COMPLETE = `${OWNED}
redis.call('HSET', KEYS[1], 'state', 'completed', 'exp', string.format('%d', now + tonumber(ARGV[3])),
  'status', ARGV[4], 'headers', ARGV[5], 'body', ARGV[6])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + ${GRACE_MS})
return 1
`;

const RELEASE = `${OWNED}
redis.call('DEL', KEYS[1])
return 1
`;

type Reply = string | number | null | Reply[];

/**
 * A Redis {@link IdempotencyStore}, safe with several app instances: each operation is one Lua
 * script, so claim, renew, complete and release are atomic and fenced by the claim's token.
 * The application passes its own ioredis client; no ioredis type is imported.
 *
 * Bodies are stored base64-encoded (Redis strings through ioredis are text).
 *
 * @example
 * const store = redisStore({ client: new Redis(process.env.REDIS_URL) });
 * app.route({ method: 'POST', path: '/orders', use: [idempotency({ store })], handler });
 */
export function redisStore(options: RedisStoreOptions): IdempotencyStore {
  const { client } = options;
  if (!isRedisScriptClient(client)) {
    throw new TypeError('redisStore: `client` must be an ioredis client');
  }
  const prefix = options.prefix ?? 'idempotency:';
  const now = options.now ?? Date.now;

  const run = async (script: Script, key: string, args: readonly (string | number)[]): Promise<Reply> =>
    (await runRedisScript(client, script, [prefix + key], [now(), ...args])) as Reply;

  return {
    async claim(key, fingerprint, leaseMs): Promise<ClaimOutcome> {
      const token = newToken();
      const reply = (await run(scripts.claim, key, [fingerprint, token, leaseMs])) as string[];
      switch (reply[0]) {
        case 'claimed':
          return { kind: 'claimed', token };
        case 'completed':
          return {
            kind: 'completed',
            response: {
              status: Number(reply[1]),
              headers: JSON.parse(reply[2] ?? '{}') as Record<string, string>,
              body: new Uint8Array(Buffer.from(reply[3] ?? '', 'base64')),
            },
          };
        case 'mismatch':
          return { kind: 'mismatch' };
        default:
          return { kind: 'in-progress' };
      }
    },
    async renew(key, token, leaseMs) {
      return (await run(scripts.renew, key, [token, leaseMs])) === 1;
    },
    async complete(key, token, response: StoredResponse, retentionMs) {
      const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
      const args = [
        token,
        retentionMs,
        response.status,
        JSON.stringify(response.headers),
        body.toString('base64'),
      ];
      return (await run(scripts.complete, key, args)) === 1;
    },
    async release(key, token) {
      return (await run(scripts.release, key, [token])) === 1;
    },
  };
}

interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const scripts = {
  claim: script(CLAIM),
  renew: script(RENEW),
  complete: script(COMPLETE),
  release: script(RELEASE),
};
