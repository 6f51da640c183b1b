-- Tells whether a holder still owns a lock, without changing it.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder prefix "<holder id>|"
--
-- Returns 1 when the holder owns the lock, 0 when it does not (expired, deleted or taken by another).
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then
  return 1
end
return 0
