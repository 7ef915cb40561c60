/**
 * The one Lua script a Redis decision runs: GCRA for every policy of the request, all or nothing,
 * atomically (Redis runs a script without interleaving other commands).
 *
 * KEYS[i]: the state of policy i for this client. ARGV[2i-1], ARGV[2i]: quota and window (ms).
 * A state is `"<tatMs>:<tatFraction>"` (see `GcraState`). Time comes from Redis `TIME`, so every app
 * instance agrees whatever its own clock says (Redis 5+ replicates script effects, so TIME is safe),
 * unless ARGV[2n+1] gives the time in ms (the store's `now` option, for tests with a fake clock).
 * Returns `{ allowed (0|1), debt_1, ..., debt_n }`: each policy's debt in ticks before the request;
 * the caller derives remaining/reset/retry-after with the same arithmetic as the memory store.
 * A written key expires when its TAT passes, when it would equal a fresh one anyway.
 */
export const GCRA_SCRIPT = `
local count = #KEYS
local now = tonumber(ARGV[2 * count + 1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local debts = {}
local allowed = 1
for i = 1, count do
  local quota = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local debt = 0
  local stored = redis.call('GET', KEYS[i])
  if stored then
    local sep = string.find(stored, ':', 1, true)
    debt = (tonumber(string.sub(stored, 1, sep - 1)) - now) * quota + tonumber(string.sub(stored, sep + 1))
    if debt < 0 then debt = 0 elseif debt > window * quota then debt = window * quota end
  end
  debts[i] = debt
  if debt + window > window * quota then allowed = 0 end
end
if allowed == 1 then
  for i = 1, count do
    local quota = tonumber(ARGV[2 * i - 1])
    local window = tonumber(ARGV[2 * i])
    local debt = debts[i] + window
    local whole = math.floor(debt / quota)
    if whole * quota > debt then whole = whole - 1 end
    redis.call('SET', KEYS[i], string.format('%d:%d', now + whole, debt - whole * quota), 'PX', whole + 1)
  end
end
local reply = { allowed }
for i = 1, count do reply[i + 1] = debts[i] end
return reply
`;
