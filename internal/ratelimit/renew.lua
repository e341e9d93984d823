-- renew extends the lease of a request still in progress, unless the lease
-- has already expired or been released: a lease never comes back to life.
--
-- KEYS[1] in-flight slots; ARGV token, slot TTL (us), now (us, or "server"
-- to use the server's TIME). Returns 1 if the lease was extended, else 0.

local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then -- "server"
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', now + ttl), ARGV[1])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(ttl / 1000)))
return 1
