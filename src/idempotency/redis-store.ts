import { createHash } from 'node:crypto';
import { isRedisScriptClient, type RedisScriptClient, runRedisScript } from '../stores/redis-client.js';
import {
  ANONYMOUS_OWNER,
  RECORD_OVERHEAD_BYTES,
  type ResolvedStoreLimits,
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
//
// What a script costs Redis goes mostly by the commands it sends, its arguments and the numbers
// Lua converts (callgrind on redis-server 7.0, instructions: about 1,300 per argument, 3,000 to
// 9,000 per command, 2,300 per tonumber() and 3,600 per number formatted, a Lua number passed to
// a command included). So expiries and TTLs arrive computed, as strings, from the application;
// commands get strings; counters move by HINCRBY, which answers a number; and a claim counts
// itself first, taking the counts back in the rare case it is over a budget, instead of reading
// every counter before. A first claim went from about 206,000 instructions to 127,000.
const NOW = `
local now = tonumber(ARGV[1])
`;

const ACCOUNTING = `
-- Drops records and their accounting: \`members\` are keys of records (expired, or the claimed
-- key's own), \`infos\` their entries 'r:<key>' (false: none). An entry, a sorted-set member and a
-- record are made and dropped together; the record may go earlier, by its TTL.
local function forget(members, infos)
  local owners, names, entries = {}, {}, {}
  local count, total = 0, 0
  for i, member in ipairs(members) do
    local info = infos[i]
    if info then
      local sep = string.find(info, '\\n', 1, true)
      local bytes = tonumber(string.sub(info, 1, sep - 1))
      local name = 'o:' .. string.sub(info, sep + 1)
      local o = owners[name]
      if o == nil then
        o = {n = 0, b = 0}
        owners[name] = o
        names[#names + 1] = name
      end
      o.n = o.n + 1
      o.b = o.b + bytes
      count = count + 1
      total = total + bytes
      entries[#entries + 1] = 'r:' .. member
    end
  end
  redis.call('ZREM', KEYS[2], unpack(members))
  redis.call('DEL', unpack(members))
  if count == 0 then return end
  redis.call('HDEL', KEYS[3], unpack(entries))
  redis.call('HINCRBY', KEYS[3], '#n', -count)
  redis.call('HINCRBY', KEYS[3], '#b', -total)
  for _, name in ipairs(names) do
    local o = owners[name]
    if redis.call('HINCRBY', KEYS[3], name .. ':n', -o.n) <= 0 then
      redis.call('HDEL', KEYS[3], name .. ':n', name .. ':b', name .. ':e')
    else
      redis.call('HINCRBY', KEYS[3], name .. ':b', -o.b)
    end
  end
end
-- Reclaims up to \`limit\` (a string) records past their expiry.
local function reclaim(limit)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', '0', limit)
  if #expired == 0 then return end
  local fields = {}
  for i, member in ipairs(expired) do fields[i] = 'r:' .. member end
  forget(expired, redis.call('HMGET', KEYS[3], unpack(fields)))
end
`;

// ARGV: now, fingerprint, token, expiry (now + lease), TTL (lease + grace), owner, bytes. The
// budgets are written into the script (see `claimScript`).
const CLAIM = `${NOW}${ACCOUNTING}
local r = redis.call('HMGET', KEYS[1], 'state', 'fp', 'exp', 'status', 'headers', 'body')
if r[1] and tonumber(r[3]) > now then
  if r[2] ~= ARGV[2] then return {'mismatch'} end
  if r[1] == 'completed' then return {'completed', r[4], r[5], r[6]} end
  return {'in-progress'}
end
-- The record this claim replaces: expired, or gone by its TTL while its accounting stayed.
local info = redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])
if info or r[1] then forget({KEYS[1]}, {info}) end
reclaim(SWEEP)
local owner = 'o:' .. ARGV[6]
local bytes = tonumber(ARGV[7])
-- Counts this record, or answers the budget it would exceed and counts nothing.
local function count()
  local n = redis.call('HINCRBY', KEYS[3], owner .. ':n', '1')
  local b = redis.call('HINCRBY', KEYS[3], owner .. ':b', ARGV[7])
  local totalN = redis.call('HINCRBY', KEYS[3], '#n', '1')
  local totalB = redis.call('HINCRBY', KEYS[3], '#b', ARGV[7])
  local scope = nil
  if n > OWNER_MAX_ENTRIES or b > OWNER_MAX_BYTES then
    scope = 'owner'
  elseif totalN > MAX_ENTRIES or totalB > MAX_BYTES then
    scope = 'store'
  end
  if scope then
    redis.call('HINCRBY', KEYS[3], '#n', '-1')
    redis.call('HINCRBY', KEYS[3], '#b', '-' .. ARGV[7])
    if n <= 1 then
      redis.call('HDEL', KEYS[3], owner .. ':n', owner .. ':b', owner .. ':e')
    else
      redis.call('HINCRBY', KEYS[3], owner .. ':n', '-1')
      redis.call('HINCRBY', KEYS[3], owner .. ':b', '-' .. ARGV[7])
    end
  end
  return scope
end
local scope = count()
if scope then
  reclaim('1000')
  scope = count()
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
redis.call('HSET', KEYS[1], 'state', 'in-progress', 'fp', ARGV[2], 'token', ARGV[3], 'exp', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], KEYS[1])
redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], ARGV[7] .. '\\n' .. ARGV[6])
local earliest = tonumber(redis.call('HGET', KEYS[3], owner .. ':e') or '')
if earliest == nil or earliest <= now or tonumber(ARGV[4]) < earliest then
  redis.call('HSET', KEYS[3], owner .. ':e', ARGV[4])
end
-- An integer: the cheapest answer for Redis to make and for the client to read.
return 1
`;

/** The claim script with the store's budgets and sweep written in as Lua numbers. */
function claimScript(limits: ResolvedStoreLimits): Script {
  const constants: Record<string, string> = {
    MAX_ENTRIES: String(limits.maxEntries),
    MAX_BYTES: String(limits.maxBytes),
    OWNER_MAX_ENTRIES: String(limits.ownerMaxEntries),
    OWNER_MAX_BYTES: String(limits.ownerMaxBytes),
    SWEEP: `'${SWEEP_PER_CLAIM}'`,
  };
  return script(
    CLAIM.replace(
      /\b(?:MAX_ENTRIES|MAX_BYTES|OWNER_MAX_ENTRIES|OWNER_MAX_BYTES|SWEEP)\b/g,
      (name) => constants[name]!,
    ),
  );
}

// ARGV: now, token, then per script below.
const OWNED = `${NOW}
local r = redis.call('HMGET', KEYS[1], 'state', 'token', 'exp')
if r[1] ~= 'in-progress' or r[2] ~= ARGV[2] or tonumber(r[3]) <= now then return 0 end
`;

// ARGV[3], ARGV[4]: the new expiry and TTL.
const RENEW = `${OWNED}
redis.call('HSET', KEYS[1], 'exp', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
return 1
`;

// ARGV[3], ARGV[4]: the new expiry and TTL; ARGV[5..7]: status, headers, body; ARGV[8]: the bytes
// the response adds to the record's count.
const COMPLETE = `${OWNED}
redis.call('HSET', KEYS[1], 'state', 'completed', 'exp', ARGV[3],
  'status', ARGV[5], 'headers', ARGV[6], 'body', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
local info = redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])
if info then
  local sep = string.find(info, '\\n', 1, true)
  local owner = string.sub(info, sep + 1)
  local bytes = tonumber(string.sub(info, 1, sep - 1)) + tonumber(ARGV[8])
  redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], string.format('%d', bytes) .. '\\n' .. owner)
  redis.call('HINCRBY', KEYS[3], '#b', ARGV[8])
  redis.call('HINCRBY', KEYS[3], 'o:' .. owner .. ':b', ARGV[8])
end
return 1
`;

const RELEASE = `${OWNED}${ACCOUNTING}
forget({KEYS[1]}, {redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])})
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
 * With many requests at once, create the client with `enableAutoPipelining: true`: the calls of
 * one event-loop turn then share one write (docs/idempotency.md, "Stores").
 *
 * @example
 * const store = redisStore({ client: new Redis(process.env.REDIS_URL, { enableAutoPipelining: true }) });
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

  const keys = (key: string) => [prefix + key, expiryKey, accountingKey];
  const run = async (script: Script, key: string, args: readonly string[]): Promise<Reply> =>
    (await runRedisScript(client, script, keys(key), args)) as Reply;
  /** `now` and, for a record kept `ms` from now, its expiry and its Redis TTL (grace included). */
  const clock = (ms: number): [now: string, expiry: string, ttl: string] => {
    const t = Math.floor(now());
    const span = Math.ceil(ms);
    return [String(t), String(t + span), String(span + GRACE_MS)];
  };
  const claimer = claimScript(limits);

  return {
    async claim(key, fingerprint, leaseMs, owner = ANONYMOUS_OWNER): Promise<ClaimOutcome> {
      const token = newToken();
      const [t, expiry, ttl] = clock(leaseMs);
      const bytes = String(recordBytes(key, fingerprint));
      const reply = await run(claimer, key, [t, fingerprint, token, expiry, ttl, owner, bytes]);
      if (reply === 1) return { kind: 'claimed', token };
      const answer = reply as string[];
      switch (answer[0]) {
        case 'full':
          return {
            kind: 'full',
            scope: answer[1] === 'owner' ? 'owner' : 'store',
            retryAfterMs: Number(answer[2]),
          };
        case 'completed':
          return {
            kind: 'completed',
            response: {
              status: Number(answer[1]),
              headers: JSON.parse(answer[2] ?? '{}') as Record<string, string>,
              body: new Uint8Array(Buffer.from(answer[3] ?? '', 'base64')),
            },
          };
        case 'mismatch':
          return { kind: 'mismatch' };
        default:
          return { kind: 'in-progress' };
      }
    },
    async renew(key, token, leaseMs) {
      const [t, expiry, ttl] = clock(leaseMs);
      return (await run(scripts.renew, key, [t, token, expiry, ttl])) === 1;
    },
    async complete(key, token, response: StoredResponse, retentionMs) {
      const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
      const [t, expiry, ttl] = clock(retentionMs);
      const args = [
        t,
        token,
        expiry,
        ttl,
        String(response.status),
        JSON.stringify(response.headers),
        body.toString('base64'),
        String(recordBytes('', '', response) - RECORD_OVERHEAD_BYTES),
      ];
      return (await run(scripts.complete, key, args)) === 1;
    },
    async release(key, token) {
      return (await run(scripts.release, key, [String(Math.floor(now())), token])) === 1;
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
  renew: script(RENEW),
  complete: script(COMPLETE),
  release: script(RELEASE),
};
