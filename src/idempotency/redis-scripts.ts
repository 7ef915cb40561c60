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

// Each script is atomic and touches one owner's keys only, both in one slot (redis-keys.ts):
// KEYS[1] the record, KEYS[2] the owner's usage. ARGV[1] is always `now` (ms); a record is live
// while its expiry > now. Expiries and TTLs arrive computed, as strings.
//
// The record is one string, with a native TTL (its expiry + grace), written by one SET:
//   <fingerprint's byte length> ',' <fingerprint>   (the fingerprint part, never rewritten)
//   'p' <expiry> ',' <token>                         (in progress), or
//   'c' <expiry> ',' <status> ',' <base64 body> ',' <headers as JSON>   (completed)
// The usage is a hash: 'n' and 'b' the owner's record count and bytes, one entry per record
// (field ':<key>', the record key after the owner's part; value '<expiry>,<bytes>'), and 'e', at or
// before the earliest expiry of an entry. A record that expires, or vanishes by its TTL, keeps its
// entry: it counts, conservatively, until the key is claimed again or a claim that does not fit
// reclaims every expired entry of the owner (when 'e' <= now). The usage outlives every record of
// the owner (twice the longest TTL; extended rarely), so an owner who never comes back leaves
// nothing behind.
const COMMON = `
local now = tonumber(ARGV[1])
local field = string.sub(KEYS[1], #KEYS[2] - 5)
-- The record's fingerprint part ends at \`fp\`; its state letter follows.
local function parse(v)
  local len, at = string.match(v, '^(%d+),()')
  local fp = at + tonumber(len) - 1
  return fp, string.sub(v, fp + 1, fp + 1), tonumber(string.match(v, '^%a(%d+),', fp + 1))
end
-- 'e' after an entry's expiry becomes \`exp\` (a string): it stays at or before every expiry.
local function earliest(e, exp)
  if e and tonumber(e) <= tonumber(exp) then return e end
  return exp
end
-- Keeps the usage at least as long as a record kept \`ttl\` (a string, ms) from now: when it would
-- go sooner, for twice that, so that the owner's next claims rarely extend it again.
local function outlive(ttl)
  local span = tonumber(ttl)
  if redis.call('PTTL', KEYS[2]) < span then
    redis.call('PEXPIRE', KEYS[2], string.format('%d', 2 * span))
  end
end
`;

// The in-progress record `v` fenced by the token ARGV[2], live: its fingerprint part's end and
// expiry, else a 0 answer.
const OWNED = `${COMMON}
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local fp, state, exp = parse(v)
if state ~= 'p' or exp <= now or string.sub(v, string.find(v, ',', fp + 2, true) + 1) ~= ARGV[2] then
  return 0
end
`;

// ARGV: now, the fingerprint part, token, expiry (now + lease), TTL (lease + grace), bytes. The
// budgets are written into the script (see `claimScript`).
const CLAIM = `${COMMON}
local v = redis.call('GET', KEYS[1])
if v then
  local fp, state, exp = parse(v)
  if exp > now then
    if string.sub(v, 1, fp) ~= ARGV[2] then return {'mismatch'} end
    if state == 'c' then return {'completed', string.sub(v, fp + 2)} end
    return {'in-progress'}
  end
end
local u = redis.call('HMGET', KEYS[2], 'n', 'b', 'e', field)
local n, b, e = tonumber(u[1] or '0'), tonumber(u[2] or '0'), tonumber(u[3])
-- The entry of the record this claim replaces (expired, or gone by its TTL).
if u[4] then n, b = n - 1, b - tonumber(string.match(u[4], ',(%d+)$')) end
local bytes = tonumber(ARGV[6])
if n >= OWNER_MAX_ENTRIES or b + bytes > OWNER_MAX_BYTES then
  if e and e > now then return {'full', string.format('%d', e - now)} end
  -- Reclaim every expired entry of the owner, and recount.
  local all, gone = redis.call('HGETALL', KEYS[2]), {}
  n, b, e = 0, 0, nil
  for i = 1, #all, 2 do
    local f = all[i]
    if string.byte(f) == 58 and f ~= field then
      local exp, size = string.match(all[i + 1], '^(%d+),(%d+)$')
      exp = tonumber(exp)
      if exp <= now then gone[#gone + 1] = f else
        n, b = n + 1, b + tonumber(size)
        if e == nil or exp < e then e = exp end
      end
    end
  end
  if u[4] then gone[#gone + 1] = field end
  if #gone > 0 then redis.call('HDEL', KEYS[2], unpack(gone)) end
  if n >= OWNER_MAX_ENTRIES or b + bytes > OWNER_MAX_BYTES then
    if n == 0 then redis.call('DEL', KEYS[2]); return {'full', '1'} end
    redis.call('HSET', KEYS[2], 'n', n, 'b', b, 'e', string.format('%d', e))
    return {'full', string.format('%d', math.max(1, e - now))}
  end
end
e = math.min(e or tonumber(ARGV[4]), tonumber(ARGV[4]))
redis.call('SET', KEYS[1], ARGV[2] .. 'p' .. ARGV[4] .. ',' .. ARGV[3], 'PX', ARGV[5])
redis.call('HSET', KEYS[2], 'n', n + 1, 'b', b + bytes, 'e', string.format('%d', e),
  field, ARGV[4] .. ',' .. ARGV[6])
outlive(ARGV[5])
-- An integer: the cheapest answer for Redis to make and for the client to read.
return 1
`;

/** The claim script with the owner's budgets written in as Lua numbers. */
export function claimScript(limits: ResolvedStoreLimits): Script {
  const constants: Record<string, string> = {
    OWNER_MAX_ENTRIES: String(limits.ownerMaxEntries),
    OWNER_MAX_BYTES: String(limits.ownerMaxBytes),
  };
  return script(CLAIM.replace(/\b(?:OWNER_MAX_ENTRIES|OWNER_MAX_BYTES)\b/g, (name) => constants[name]!));
}

// ARGV: now, token, the new expiry and TTL.
const RENEW = `${OWNED}
redis.call('SET', KEYS[1], string.sub(v, 1, fp) .. 'p' .. ARGV[3] .. ',' .. ARGV[2], 'PX', ARGV[4])
local u = redis.call('HMGET', KEYS[2], 'e', field)
if u[2] then
  redis.call('HSET', KEYS[2], 'e', earliest(u[1], ARGV[3]), field, ARGV[3] .. string.match(u[2], ',%d+$'))
end
outlive(ARGV[4])
return 1
`;

// ARGV: now, token, the new expiry and TTL, the completed state ('c<expiry>,<status>,<body>,
// <headers>'), the bytes the response adds to the record's count.
const COMPLETE = `${OWNED}
redis.call('SET', KEYS[1], string.sub(v, 1, fp) .. ARGV[5], 'PX', ARGV[4])
local u = redis.call('HMGET', KEYS[2], 'b', 'e', field)
if u[3] then
  local extra = tonumber(ARGV[6])
  redis.call('HSET', KEYS[2], 'b', tonumber(u[1]) + extra, 'e', earliest(u[2], ARGV[3]),
    field, ARGV[3] .. ',' .. string.format('%d', tonumber(string.match(u[3], ',(%d+)$')) + extra))
end
outlive(ARGV[4])
return 1
`;

const RELEASE = `${OWNED}
redis.call('DEL', KEYS[1])
local u = redis.call('HMGET', KEYS[2], 'n', 'b', field)
if u[3] then
  local n = tonumber(u[1]) - 1
  if n <= 0 then redis.call('DEL', KEYS[2]) else
    redis.call('HSET', KEYS[2], 'n', n, 'b', tonumber(u[2]) - tonumber(string.match(u[3], ',(%d+)$')))
    redis.call('HDEL', KEYS[2], field)
  end
end
return 1
`;

export const scripts = {
  renew: script(RENEW),
  complete: script(COMPLETE),
  release: script(RELEASE),
};
