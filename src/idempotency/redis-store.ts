import { createHash } from 'node:crypto';
import { isRedisScriptClient, type RedisScriptClient, runRedisScript } from '../core/redis-client.js';
import {
  ANONYMOUS_OWNER,
  RECORD_OVERHEAD_BYTES,
  readStoreLimits,
  recordBytes,
  type StoreLimits,
} from './limits.js';
import { type ClaimOutcome, type IdempotencyStore, newToken, type StoredResponse } from './store.js';

export const DEFAULT_REDIS_MAX_ENTRIES = 1_000_000;
export const DEFAULT_REDIS_MAX_BYTES = 1024 * 1024 * 1024;
/** Expired records reclaimed per claim (when the store is full: up to 1 000 more). */
const SWEEP_PER_CLAIM = 16;

/** Options of {@link redisStore}: the client, a key prefix and the budgets ({@link StoreLimits}). */
export interface RedisStoreOptions extends StoreLimits {
  /**
   * An ioredis `Redis` or `Cluster` the application created (any client with the `evalsha`/`eval`
   * of {@link RedisScriptClient}); the store never closes it.
   */
  readonly client: RedisScriptClient;
  /**
   * Prefix of every key this store writes (default `idempotency:`). Each call touches the record and
   * two keys of accounting under the prefix; with Redis Cluster put a hash tag in it
   * (`{idempotency}:`) so they share a slot.
   */
  readonly prefix?: string;
  /** Clock in milliseconds (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
}

/**
 * How long past its logical expiry a record physically lingers: expiry is decided against the
 * clock passed in (so every store obeys the same `now`), and Redis' own TTL only garbage-collects.
 */
const GRACE_MS = 60_000;

// Each script is atomic. KEYS[1] is the record (a hash), KEYS[2] a sorted set of every record's
// key by expiry, KEYS[3] a hash of accounting: 'r:<key>' = '<bytes>\n<owner>', 'o:<owner>:n|b|e'
// (entries, bytes, a lower bound of the earliest expiry) and '#n', '#b' (totals). A record is live
// while its expiry (ms) > now; ARGV[1] is always `now`.
const ACCOUNTING = `
local now = tonumber(ARGV[1])
local function forget(member)
  local info = redis.call('HGET', KEYS[3], 'r:' .. member)
  redis.call('ZREM', KEYS[2], member)
  if not info then return end
  local sep = string.find(info, '\\n', 1, true)
  local bytes = tonumber(string.sub(info, 1, sep - 1))
  local owner = 'o:' .. string.sub(info, sep + 1)
  redis.call('HDEL', KEYS[3], 'r:' .. member)
  redis.call('HINCRBY', KEYS[3], '#n', -1)
  redis.call('HINCRBY', KEYS[3], '#b', -bytes)
  if redis.call('HINCRBY', KEYS[3], owner .. ':n', -1) <= 0 then
    redis.call('HDEL', KEYS[3], owner .. ':n', owner .. ':b', owner .. ':e')
  else
    redis.call('HINCRBY', KEYS[3], owner .. ':b', -bytes)
  end
end
local function reclaim(limit)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
  for _, member in ipairs(expired) do
    forget(member)
    redis.call('DEL', member)
  end
end
local function field(name)
  return tonumber(redis.call('HGET', KEYS[3], name) or '0')
end
`;

// ARGV: now, fingerprint, token, lease, owner, bytes, maxEntries, maxBytes, ownerMaxEntries,
// ownerMaxBytes, sweep (expired records reclaimed per claim).
const CLAIM = `${ACCOUNTING}
local r = redis.call('HMGET', KEYS[1], 'state', 'fp', 'exp', 'status', 'headers', 'body')
if r[1] and tonumber(r[3]) > now then
  if r[2] ~= ARGV[2] then return {'mismatch'} end
  if r[1] == 'completed' then return {'completed', r[4], r[5], r[6]} end
  return {'in-progress'}
end
forget(KEYS[1])
redis.call('DEL', KEYS[1])
reclaim(tonumber(ARGV[11]))
local owner = 'o:' .. ARGV[5]
local bytes = tonumber(ARGV[6])
local function over()
  if field(owner .. ':n') >= tonumber(ARGV[9]) or field(owner .. ':b') + bytes > tonumber(ARGV[10]) then
    return 'owner'
  end
  if bytes > tonumber(ARGV[10]) then return 'owner' end
  if field('#n') >= tonumber(ARGV[7]) or field('#b') + bytes > tonumber(ARGV[8]) then return 'store' end
  return nil
end
local scope = over()
if scope then
  reclaim(1000)
  scope = over()
end
if scope then
  local earliest = nil
  if scope == 'owner' then earliest = tonumber(redis.call('HGET', KEYS[3], owner .. ':e') or '') end
  if earliest == nil or earliest <= now then
    local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    earliest = tonumber(head[2] or '') or (now + 1)
  end
  return {'full', scope, string.format('%d', math.max(1, earliest - now))}
end
local exp = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'state', 'in-progress', 'fp', ARGV[2], 'token', ARGV[3], 'exp', string.format('%d', exp))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) + ${GRACE_MS})
redis.call('ZADD', KEYS[2], exp, KEYS[1])
redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], ARGV[6] .. '\\n' .. ARGV[5])
redis.call('HINCRBY', KEYS[3], '#n', 1)
redis.call('HINCRBY', KEYS[3], '#b', bytes)
redis.call('HINCRBY', KEYS[3], owner .. ':n', 1)
redis.call('HINCRBY', KEYS[3], owner .. ':b', bytes)
local earliest = tonumber(redis.call('HGET', KEYS[3], owner .. ':e') or '')
if earliest == nil or earliest <= now or exp < earliest then
  redis.call('HSET', KEYS[3], owner .. ':e', string.format('%d', exp))
end
return {'claimed'}
`;

const OWNED = `${ACCOUNTING}
local r = redis.call('HMGET', KEYS[1], 'state', 'token', 'exp')
if r[1] ~= 'in-progress' or r[2] ~= ARGV[2] or tonumber(r[3]) <= now then return 0 end
`;

const RENEW = `${OWNED}
local exp = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'exp', string.format('%d', exp))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + ${GRACE_MS})
redis.call('ZADD', KEYS[2], exp, KEYS[1])
return 1
`;

// ARGV[7]: the bytes the response adds to the record's count.
const COMPLETE = `${OWNED}
local exp = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'state', 'completed', 'exp', string.format('%d', exp),
  'status', ARGV[4], 'headers', ARGV[5], 'body', ARGV[6])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + ${GRACE_MS})
redis.call('ZADD', KEYS[2], exp, KEYS[1])
local info = redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])
if info then
  local sep = string.find(info, '\\n', 1, true)
  local added = tonumber(ARGV[7])
  local owner = string.sub(info, sep + 1)
  redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], (tonumber(string.sub(info, 1, sep - 1)) + added) .. '\\n' .. owner)
  redis.call('HINCRBY', KEYS[3], '#b', added)
  redis.call('HINCRBY', KEYS[3], 'o:' .. owner .. ':b', added)
end
return 1
`;

const RELEASE = `${OWNED}
forget(KEYS[1])
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
 * Bounded like every store (defaults: 10^6 records, 1 GiB, and per owner 1 000 records, 4 MiB): a
 * sorted set of keys by expiry and a hash of counts per owner are kept in the same scripts, each
 * claim reclaims a few expired records, and a claim that does not fit is refused (`full`) after up
 * to 1 000 more are reclaimed, never by dropping a live record.
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
  const limits = readStoreLimits('redisStore', options, {
    maxEntries: DEFAULT_REDIS_MAX_ENTRIES,
    maxBytes: DEFAULT_REDIS_MAX_BYTES,
  });
  const expiryKey = `${prefix}#expiry`;
  const accountingKey = `${prefix}#accounting`;

  const run = async (script: Script, key: string, args: readonly (string | number)[]): Promise<Reply> =>
    (await runRedisScript(
      client,
      script,
      [prefix + key, expiryKey, accountingKey],
      [Math.floor(now()), ...args],
    )) as Reply;

  return {
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER): Promise<ClaimOutcome> {
      const token = newToken();
      const reply = (await run(scripts.claim, key, [
        fingerprint,
        token,
        Math.ceil(leaseMs),
        owner,
        recordBytes(key, fingerprint),
        limits.maxEntries,
        limits.maxBytes,
        limits.ownerMaxEntries,
        limits.ownerMaxBytes,
        SWEEP_PER_CLAIM,
      ])) as string[];
      switch (reply[0]) {
        case 'full':
          return {
            kind: 'full',
            scope: reply[1] === 'owner' ? 'owner' : 'store',
            retryAfterMs: Number(reply[2]),
          };
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
      return (await run(scripts.renew, key, [token, Math.ceil(leaseMs)])) === 1;
    },
    async complete(key, token, response: StoredResponse, retentionMs) {
      const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
      const args = [
        token,
        Math.ceil(retentionMs),
        response.status,
        JSON.stringify(response.headers),
        body.toString('base64'),
        recordBytes('', '', response) - RECORD_OVERHEAD_BYTES,
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
