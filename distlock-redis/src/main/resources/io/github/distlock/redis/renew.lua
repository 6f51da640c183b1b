-- Extends the leases of many locks in one round trip; each only if its holder still owns it.
--
-- KEYS[i]      a lock key
-- ARGV[2i-1]   the holder prefix "<holder id>|" expected on KEYS[i]
-- ARGV[2i]     the new time to live of KEYS[i] in milliseconds
--
-- Returns a list with, for each key, 1 when renewed and 0 when the lock is no longer that holder's.
local renewed = {}
for i = 1, #KEYS do
  local holder = ARGV[2 * i - 1]
  local current = redis.call('GET', KEYS[i])
  if current and string.sub(current, 1, #holder) == holder then
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
