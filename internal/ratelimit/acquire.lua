-- acquire decides on one call of an account and, if it is allowed, counts
-- it, atomically: Redis runs a script alone, so concurrent replicas cannot
-- interleave between the check and the count.
--
-- KEYS[1] minute window, KEYS[2] day window: sorted sets of the accepted
--         calls' tokens scored by their stamps.
-- KEYS[3] in-flight slots: a sorted set of tokens scored by lease expiry.
-- KEYS[4] the token's tombstone (forget.lua): set if the caller gave up on
--         this call before it ran, so that it counts nothing and takes
--         no slot.
-- ARGV    perMinute, perDay, concurrent, slot TTL (us), now (us since the
--         epoch, or "server" to use the server's TIME), token (unique per call).
-- Times are whole microseconds: exact in a double (they stay below 2^53),
-- and always formatted with %.0f before they reach Redis, since Lua's own
-- number-to-string conversion may print large numbers in exponent form.
--
-- Returns {allowed, hasWindow, limit, remaining, reset (us), retryAfter (us)}.

if redis.call('EXISTS', KEYS[4]) == 1 then
  return {0, 0, 0, 0, 0, 0}
end

local perMinute = tonumber(ARGV[1])
local perDay = tonumber(ARGV[2])
local concurrent = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local token = ARGV[6]
if not now then -- "server"
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function num(x) return string.format('%.0f', x) end

local function score(key, index)
  return tonumber(redis.call('ZRANGE', key, num(index), num(index), 'WITHSCORES')[2])
end

local windows = {
  {key = KEYS[1], limit = perMinute, length = 60000000},
  {key = KEYS[2], limit = perDay, length = 86400000000},
}
local allowed = 1
local retry = 0
local stamp = now -- never older than a stamp already held: time does not run back
for _, w in ipairs(windows) do
  -- A call stamped s is counted while s > now - length.
  redis.call('ZREMRANGEBYSCORE', w.key, '-inf', num(now - w.length))
  w.count = redis.call('ZCARD', w.key)
  if w.count > 0 then
    stamp = math.max(stamp, score(w.key, -1))
  end
  if w.limit > 0 and w.count >= w.limit then
    -- Refused until the stamp w.limit places from the newest leaves.
    allowed = 0
    retry = math.max(retry, score(w.key, w.count - w.limit) + w.length - now)
  end
end

-- Expired leases are the slots of replicas that died holding them.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', num(now))
if concurrent > 0 and redis.call('ZCARD', KEYS[3]) >= concurrent then
  allowed = 0
  retry = math.max(retry, 1000000)
end

if allowed == 1 then
  for _, w in ipairs(windows) do
    if w.limit > 0 then
      redis.call('ZADD', w.key, num(stamp), token)
      redis.call('PEXPIRE', w.key, num(math.ceil((stamp + w.length - now) / 1000)))
      w.count = w.count + 1
    end
  end
  redis.call('ZADD', KEYS[3], num(now + ttl), token)
  redis.call('PEXPIRE', KEYS[3], num(math.ceil(ttl / 1000)))
end

local w
if perMinute > 0 then w = windows[1] elseif perDay > 0 then w = windows[2] end
if not w then
  return {allowed, 0, 0, 0, 0, retry}
end
local reset = 0
if w.count > 0 then
  reset = score(w.key, 0) + w.length - now
end
return {allowed, 1, w.limit, math.max(w.limit - w.count, 0), reset, retry}
