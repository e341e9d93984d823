-- peek reads one window of an account without changing it: how many
-- accepted calls it counts at now, and when the oldest of them leaves.
--
-- KEYS[1] the window: a sorted set of the accepted calls' tokens scored by
--         their stamps (see acquire.lua).
-- ARGV    window length (us), now (us since the epoch, or "server" to use
--         the server's TIME).
--
-- Returns {count, reset (us); 0 when nothing is counted}.

local length = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if not now then -- "server"
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function num(x) return string.format('%.0f', x) end

-- A call stamped s is counted while s > now - length.
local from = '(' .. num(now - length)
local count = redis.call('ZCOUNT', KEYS[1], from, '+inf')
local reset = 0
if count > 0 then
  local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  reset = tonumber(oldest[2]) + length - now
end
return {count, reset}
