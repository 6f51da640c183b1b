-- Releases a lock if, and only if, the given holder still owns it.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder prefix "<holder id>|"
-- ARGV[2]  the channel that announces releases to waiters
--
-- Returns 1 when released, 0 when the lock is no longer this holder's (expired, deleted or taken by another).
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if string.sub(current, -2) == '|w' then
  redis.call('PUBLISH', ARGV[2], KEYS[1])
end
return 1
