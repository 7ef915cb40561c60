import { createHash } from 'node:crypto';
import type { ResolvedStoreLimits } from './limits.js';

/** A Lua script and its SHA-1, for `EVALSHA`. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Expired records of the owner reclaimed per claim (when its quota is full: all of them). */
const SWEEP_PER_CLAIM = 16;

// Each script is atomic and touches one owner's keys only, all in one slot (redis-keys.ts):
// KEYS[1] the record (a hash), KEYS[2] the owner's record keys by expiry (a sorted set), KEYS[3]
// the owner's usage (a hash: 'b' its bytes, 'r:<record key>' each record's bytes). The owner's
// record count is the size of KEYS[2]. A record is live while its expiry (ms) > now; ARGV[1] is
// always `now`. Expiries and TTLs arrive computed, as strings, so Lua converts few numbers.
//
// The owner's two keys outlive its longest-lived record (by at most as long again; TTLs only ever
// extended), so an owner who never comes back leaves nothing behind.
const NOW = `
local now = tonumber(ARGV[1])
`;

const USAGE = `
-- Drops records (expired, or the claimed key's own) and their usage: \`members\` are record keys,
-- \`sizes\` their entries 'r:<key>' (false: none). An entry, a sorted-set member and a record are
-- made and dropped together; the record may go earlier, by its TTL.
local function forget(members, sizes)
  local fields, total = {}, 0
  for i, member in ipairs(members) do
    if sizes[i] then
      fields[#fields + 1] = 'r:' .. member
      total = total + tonumber(sizes[i])
    end
  end
  redis.call('ZREM', KEYS[2], unpack(members))
  redis.call('DEL', unpack(members))
  if #fields == 0 then return end
  redis.call('HDEL', KEYS[3], unpack(fields))
  if redis.call('HINCRBY', KEYS[3], 'b', -total) <= 0 then redis.call('HDEL', KEYS[3], 'b') end
end
-- Reclaims up to \`limit\` (a string) of the owner's records past their expiry.
local function reclaim(limit)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', '0', limit)
  if #expired == 0 then return end
  local fields = {}
  for i, member in ipairs(expired) do fields[i] = 'r:' .. member end
  forget(expired, redis.call('HMGET', KEYS[3], unpack(fields)))
end
-- Keeps the owner's keys at least as long as a record kept \`ttl\` (a string, ms) from now: when
-- they would go sooner, for twice that, so that the owner's next claims rarely extend them again.
local function outlive(ttl)
  local span = tonumber(ttl)
  if redis.call('PTTL', KEYS[2]) < span then
    local twice = string.format('%d', 2 * span)
    redis.call('PEXPIRE', KEYS[2], twice)
    redis.call('PEXPIRE', KEYS[3], twice)
  end
end
`;

// ARGV: now, fingerprint, token, expiry (now + lease), TTL (lease + grace), bytes. The budgets are
// written into the script (see `claimScript`).
const CLAIM = `${NOW}${USAGE}
local r = redis.call('HMGET', KEYS[1], 'state', 'fp', 'exp', 'status', 'headers', 'body')
if r[1] and tonumber(r[3]) > now then
  if r[2] ~= ARGV[2] then return {'mismatch'} end
  if r[1] == 'completed' then return {'completed', r[4], r[5], r[6]} end
  return {'in-progress'}
end
-- The record this claim replaces: expired, or gone by its TTL while its usage stayed.
local size = redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])
if size or r[1] then forget({KEYS[1]}, {size}) end
reclaim(SWEEP)
local bytes = tonumber(ARGV[6])
local function fits()
  return redis.call('ZCARD', KEYS[2]) < OWNER_MAX_ENTRIES
    and tonumber(redis.call('HGET', KEYS[3], 'b') or '0') + bytes <= OWNER_MAX_BYTES
end
if not fits() then
  reclaim('OWNER_MAX_ENTRIES')
  if not fits() then
    local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    local earliest = tonumber(head[2] or '') or (now + 1)
    return {'full', 'owner', string.format('%d', math.max(1, earliest - now))}
  end
end
redis.call('HSET', KEYS[1], 'state', 'in-progress', 'fp', ARGV[2], 'token', ARGV[3], 'exp', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], KEYS[1])
redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], ARGV[6])
redis.call('HINCRBY', KEYS[3], 'b', ARGV[6])
outlive(ARGV[5])
-- An integer: the cheapest answer for Redis to make and for the client to read.
return 1
`;

/** The claim script with the owner's budgets and the sweep written in as Lua numbers. */
export function claimScript(limits: ResolvedStoreLimits): Script {
  const constants: Record<string, string> = {
    OWNER_MAX_ENTRIES: String(limits.ownerMaxEntries),
    OWNER_MAX_BYTES: String(limits.ownerMaxBytes),
    SWEEP: `'${SWEEP_PER_CLAIM}'`,
  };
  return script(
    CLAIM.replace(/\b(?:OWNER_MAX_ENTRIES|OWNER_MAX_BYTES|SWEEP)\b/g, (name) => constants[name]!),
  );
}

// ARGV: now, token, then per script below.
const OWNED = `${NOW}
local r = redis.call('HMGET', KEYS[1], 'state', 'token', 'exp')
if r[1] ~= 'in-progress' or r[2] ~= ARGV[2] or tonumber(r[3]) <= now then return 0 end
`;

// ARGV[3], ARGV[4]: the new expiry and TTL.
const RENEW = `${OWNED}${USAGE}
redis.call('HSET', KEYS[1], 'exp', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
outlive(ARGV[4])
return 1
`;

// ARGV[3], ARGV[4]: the new expiry and TTL; ARGV[5..7]: status, headers, body; ARGV[8]: the bytes
// the response adds to the record's count.
const COMPLETE = `${OWNED}${USAGE}
redis.call('HSET', KEYS[1], 'state', 'completed', 'exp', ARGV[3],
  'status', ARGV[5], 'headers', ARGV[6], 'body', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
local size = redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])
if size then
  redis.call('HSET', KEYS[3], 'r:' .. KEYS[1], string.format('%d', tonumber(size) + tonumber(ARGV[8])))
  redis.call('HINCRBY', KEYS[3], 'b', ARGV[8])
end
outlive(ARGV[4])
return 1
`;

const RELEASE = `${OWNED}${USAGE}
forget({KEYS[1]}, {redis.call('HGET', KEYS[3], 'r:' .. KEYS[1])})
return 1
`;

export const scripts = {
  renew: script(RENEW),
  complete: script(COMPLETE),
  release: script(RELEASE),
};
