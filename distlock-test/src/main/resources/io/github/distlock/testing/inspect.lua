-- Reads an exclusive lock as the Redis engine stores it, without changing it.
--
-- KEYS[1]  the lock key: a string "<holder id>|<token>", followed by "|w" while waiters queue, with the lease as TTL
--
-- Returns {} when there is no lock, else {value, remaining ttl in ms as a string}.
local value = redis.call('GET', KEYS[1])
if not value then
  return {}
end
return {value, tostring(redis.call('PTTL', KEYS[1]))}
