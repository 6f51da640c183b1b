-- Extends one lock's lease on its holder's request, if and only if that holder still owns it; never shortens it.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder prefix "<holder id>|"
-- ARGV[2]  the time to live the lock must have at least, in milliseconds
--
-- Returns 1 when the holder owns the lock, which now lives at least ARGV[2] ms; 0 when it does not (expired, deleted
-- or taken by another), and then nothing is changed.
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then
  return 0
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
