import { createHash } from 'node:crypto';
import { BRIEF_BYTES, type ResolvedStoreLimits } from '../limits.js';

/** A Lua script and its SHA-1, for `EVALSHA`. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Each script is atomic and touches one key, the owner's hash KEYS[1], in one slot
// (keys.ts). ARGV[1] is always `now` (ms), ARGV[2] the record's field; a record is live while
// its expiry > now. Expiries and TTLs arrive computed, as strings.
//
// The hash holds 'n' and 'b', the owner's record count and bytes; 'e', at or before the earliest
// expiry of its records; and each record, the field ':<key>', as one string:
//   <expiry> ',' <bytes> ',' <fingerprint's byte length> ',' <fingerprint>, then
//   'p' <token> (in progress) or 'c' <status> ',' <base64 body> ',' <headers as JSON> (completed).
// An expired record stays, and counts, until its key is claimed again or a claim that does not fit
// reclaims every expired record of the owner. The hash itself lives twice
// the longest TTL a record was given (extended rarely), so an owner who never comes back leaves
// nothing behind.
const COMMON = `
local now = tonumber(ARGV[1])
-- A record's expiry and bytes (numbers), and where its fingerprint starts and ends.
local function parse(v)
  local exp, size, len, at = string.match(v, '^(%d+),(%d+),(%d+),()')
  return tonumber(exp), tonumber(size), at, at + tonumber(len) - 1
end
-- The hash's 'e' once a record's expiry becomes \`exp\` (a string): at or before every expiry.
local function earliest(e, exp)
  if e and tonumber(e) <= tonumber(exp) then return e end
  return exp
end
-- Keeps the hash at least as long as a record kept \`ttl\` (a string, ms) from now: when it would
-- go sooner, for twice that, so that the owner's next claims rarely extend it again.
local function outlive(ttl)
  local span = tonumber(ttl)
  if redis.call('PTTL', KEYS[1]) < span then
    redis.call('PEXPIRE', KEYS[1], string.format('%d', 2 * span))
  end
end
`;

// The live in-progress record `v` fenced by the token ARGV[3] (the hash's `fields` read into `u`,
// the record last), else a 0 answer.
const owned = (fields: string) => `${COMMON}
local u = redis.call('HMGET', KEYS[1], ${fields}, ARGV[2])
local v = u[#u]
if not v then return 0 end
local exp, size, at, fp = parse(v)
if exp <= now or string.sub(v, fp + 1, fp + 1) ~= 'p' or string.sub(v, fp + 2) ~= ARGV[3] then
  return 0
end
`;

// ARGV: now, field, fingerprint, token, expiry (now + lease), TTL (lease + grace), bytes. The
// budgets are written into the script (see `claimScript`).
const CLAIM = `${COMMON}
local u = redis.call('HMGET', KEYS[1], 'n', 'b', 'e', ARGV[2])
local n, b, e, earliestNow = tonumber(u[1] or '0'), tonumber(u[2] or '0'), tonumber(u[3]), u[3]
local v = u[4]
if v then
  local exp, size, at, fp = parse(v)
  if exp > now then
    if string.sub(v, at, fp) ~= ARGV[3] then return {'mismatch'} end
    if string.sub(v, fp + 1, fp + 1) == 'c' then return {'completed', string.sub(v, fp + 1)} end
    return {'in-progress'}
  end
  -- The expired record this claim replaces.
  n, b = n - 1, b - size
end
local bytes = tonumber(ARGV[7])
if n >= OWNER_MAX_ENTRIES or b + bytes > OWNER_MAX_BYTES then
  -- Reclaim every expired record of the owner, recount, and read when its own live records leave
  -- room (docs/idempotency.md, "Budgets": the same answer as untilOwnerRoom).
  local all, gone, live = redis.call('HGETALL', KEYS[1]), {}, {}
  n, b, e = 0, 0, nil
  for i = 1, #all, 2 do
    local f = all[i]
    if string.byte(f) == 58 and f ~= ARGV[2] then
      local exp, size = parse(all[i + 1])
      if exp <= now then gone[#gone + 1] = f else
        n, b = n + 1, b + size
        live[#live + 1] = {exp, size}
        if e == nil or exp < e then e = exp end
      end
    end
  end
  if v then gone[#gone + 1] = ARGV[2] end
  if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
  if n >= OWNER_MAX_ENTRIES or b + bytes > OWNER_MAX_BYTES then
    if n == 0 then redis.call('DEL', KEYS[1]); return {'full'} end
    redis.call('HSET', KEYS[1], 'n', n, 'b', b, 'e', string.format('%d', e))
    if bytes > OWNER_MAX_BYTES then return {'full'} end
    table.sort(live, function(x, y) return x[1] < y[1] end)
    for _, r in ipairs(live) do
      n, b = n - 1, b - r[2]
      if n < OWNER_MAX_ENTRIES and b + bytes <= OWNER_MAX_BYTES then
        return {'full', string.format('%d', r[1] - now)}
      end
    end
    return {'full'}
  end
  earliestNow = e and string.format('%d', e)
end
redis.call('HSET', KEYS[1], 'n', n + 1, 'b', b + bytes, 'e', earliest(earliestNow, ARGV[5]),
  ARGV[2], ARGV[5] .. ',' .. ARGV[7] .. ',' .. #ARGV[3] .. ',' .. ARGV[3] .. 'p' .. ARGV[4])
outlive(ARGV[6])
CLAIMED
`;

/**
 * A Lua function counting the replicas an `INFO replication` text shows online with a `lag` of at
 * most MAX_LAG seconds. `lag` is the seconds since a replica's last acknowledgement, which it sends
 * every second (on a loaded machine, a few seconds late). One that stopped (hung, or cut off by a
 * partition) stays `state=online` until `repl-timeout`, 60 s by default: past MAX_LAG it is not
 * counted, so completions stop queueing WAITs that can only time out. `lag` is -1 for the few
 * milliseconds after a second begins in which an acknowledgement has just come: Redis stamps it with
 * its cached clock and subtracts it from `time()`, which can still read the second before (a coarse
 * clock), so a sign is allowed wherever a number is.
 */
export const ONLINE_REPLICAS_FUNCTION = `local function onlineReplicas(info)
  local online = 0
  for lag in string.gmatch(info, 'state=online,offset=%-?%d+,lag=(%-?%d+)') do
    if tonumber(lag) <= MAX_LAG then online = online + 1 end
  end
  return online
end`;

// An integer: the cheapest answer for Redis to make and for the client to read.
const CLAIMED = 'return 1';
// With the replicas this master has online and acknowledging (its INFO is local, cheap, and
// allowed in a script), so that the completion knows whether a WAIT for them could be answered.
const CLAIMED_WITH_REPLICAS = `${ONLINE_REPLICAS_FUNCTION}
return {'claimed', onlineReplicas(redis.call('INFO', 'replication'))}`;

/** `source` with the owner's budgets (and `more`) written in as Lua values. */
function withBudgets(source: string, limits: ResolvedStoreLimits, more: Record<string, string> = {}): Script {
  const constants: Record<string, string> = {
    OWNER_MAX_ENTRIES: String(limits.ownerMaxEntries),
    OWNER_MAX_BYTES: String(limits.ownerMaxBytes),
    BRIEF_BYTES: String(BRIEF_BYTES),
    ...more,
  };
  const names = new RegExp(`\\b(?:${Object.keys(constants).join('|')})\\b`, 'g');
  return script(source.replace(names, (name) => constants[name]!));
}

/**
 * The claim script with the owner's budgets written in as Lua numbers. With `replicaMaxLagSeconds`,
 * a claim answers `{'claimed', <replicas online, acknowledged within that many seconds>}` instead of 1.
 */
export function claimScript(limits: ResolvedStoreLimits, replicaMaxLagSeconds?: number): Script {
  return withBudgets(CLAIM, limits, {
    CLAIMED:
      replicaMaxLagSeconds === undefined
        ? CLAIMED
        : CLAIMED_WITH_REPLICAS.replace('MAX_LAG', String(replicaMaxLagSeconds)),
  });
}

/** The completion script with the owner's budgets written in. */
export function completeScript(limits: ResolvedStoreLimits): Script {
  return withBudgets(COMPLETE, limits);
}

// ARGV: now, field, token, the new expiry and TTL.
const RENEW = `${owned("'e'")}
redis.call('HSET', KEYS[1], 'e', earliest(u[1], ARGV[4]),
  ARGV[2], ARGV[4] .. string.sub(v, string.find(v, ',', 1, true), -1))
outlive(ARGV[5])
return 1
`;

// ARGV: now, field, token, the new expiry and TTL, then the whole response's completed state
// ('c<status>,<body>,<headers>') and the bytes it adds to the record's count past its brief
// room, then the same for its brief (the budgets are written in: see `completeScript`). The whole
// response is kept when the owner's bytes then still leave each record it may yet claim the room of
// a claim like this one (keepsWhole), else the brief.
const COMPLETE = `${owned("'n', 'b', 'e'")}
local n, b = tonumber(u[1]), tonumber(u[2])
local kept, state = size - BRIEF_BYTES + tonumber(ARGV[7]), ARGV[6]
local later = math.max(0, OWNER_MAX_ENTRIES - n)
if b - size + kept + later * size > OWNER_MAX_BYTES then
  kept, state = size - BRIEF_BYTES + tonumber(ARGV[9]), ARGV[8]
end
redis.call('HSET', KEYS[1], 'b', b - size + kept, 'e', earliest(u[3], ARGV[4]), ARGV[2],
  ARGV[4] .. ',' .. string.format('%d', kept) .. string.sub(v, string.match(v, '^%d+,%d+()'), fp) .. state)
outlive(ARGV[5])
return 1
`;

const RELEASE = `${owned("'n', 'b'")}
local n = tonumber(u[1]) - 1
if n <= 0 then redis.call('DEL', KEYS[1]) else
  redis.call('HSET', KEYS[1], 'n', n, 'b', tonumber(u[2]) - size)
  redis.call('HDEL', KEYS[1], ARGV[2])
end
return 1
`;

export const scripts = {
  renew: script(RENEW),
  release: script(RELEASE),
};
