-- Tells whether a shared holder (a reader or a permit holder; see shared_lib.lua) still holds its lock, and, when
-- ARGV[2] is above 0, makes it live at least that many milliseconds more, never shortening it.
--
-- KEYS[1]  the shared holders
-- ARGV[1]  the holder's member "<holder id>|<token>"
-- ARGV[2]  the time to live the grant must have at least, in milliseconds, or 0 to only look
--
-- Returns 1 when the holder holds it, 0 when it does not (expired, or removed).
local now = redis.call('TIME')
local nowMillis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= nowMillis then
  return 0
end
local ttl = tonumber(ARGV[2])
if ttl > 0 and tonumber(expiry) < nowMillis + ttl then
  redis.call('ZADD', KEYS[1], 'XX', nowMillis + ttl, ARGV[1])
  if redis.call('PTTL', KEYS[1]) < ttl then
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
end
return 1
