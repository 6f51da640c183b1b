-- Makes an exclusive lock vanish as if its lease had run out: the key goes, and, as with a real expiry, nothing is
-- announced, so waiters find the lock free at their next poll and the holder at its next renewal, check or release.
--
-- KEYS[1]  the lock key (see inspect.lua)
--
-- Returns {} when there was no lock, else {value, remaining ttl in ms as a string} of the lock removed.
local value = redis.call('GET', KEYS[1])
if not value then
  return {}
end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
return {value, tostring(ttl)}
