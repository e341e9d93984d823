-- forget withdraws the call of a token whose acquire failed in this
-- process (a timeout, a dropped connection) but may yet run in Redis: the
-- acquire may have been delayed rather than lost, as behind a stalled
-- server, and then run after this. So a tombstone is left for it, which
-- the acquire checks first, as well as its slot removed should it have
-- run already; whichever of the two runs first, no slot is left behind.
--
-- KEYS[1] in-flight slots, KEYS[2] the token's tombstone; ARGV token,
-- tombstone TTL (ms). Returns 1 if a slot was removed, else 0.

redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return redis.call('ZREM', KEYS[1], ARGV[1])
