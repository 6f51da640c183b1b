-- Acquires a lock and issues its fencing token in one atomic step.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder prefix "<holder id>|", unique to this acquisition
-- ARGV[2]  the lease in milliseconds
--
-- Returns {1, token} when acquired (or when an earlier attempt of the same holder already acquired it, whose reply
-- was lost), {0, remaining ttl in ms} when another holder has the lock.
--
-- The stored value is "<holder id>|<token>", followed by "|w" once a waiter has failed on it, so that release
-- publishes only when someone is listening. The token is the server clock in microseconds: it survives a restart
-- with an empty memory, and a lock is never acquired twice within one microsecond.
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
if redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', token), 'NX', 'PX', ARGV[2]) then
  return {1, token}
end
local current = redis.call('GET', KEYS[1])
if string.sub(current, 1, #ARGV[1]) == ARGV[1] then
  return {1, tonumber(string.match(current, '^[^|]*|(%d+)'))}
end
if string.sub(current, -2) ~= '|w' then
  redis.call('SET', KEYS[1], current .. '|w', 'KEEPTTL')
end
return {0, redis.call('PTTL', KEYS[1])}
