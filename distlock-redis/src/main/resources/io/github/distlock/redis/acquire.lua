-- Acquires a lock and issues its fencing token in one atomic step; when the lock is held, queues the caller for a
-- direct hand-over at release. A caller that does not wait tries with try.lua instead.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's waiter queue (a sorted set: member "<holder prefix><lease ms>|<wait ms>", score the time it
--          first queued, in microseconds)
-- KEYS[3]  the lock's token floor (see token.lua)
-- ARGV[1]  the holder prefix "<holder id>|", unique to this acquisition
-- ARGV[2]  the lease in milliseconds
-- ARGV[3]  the queue member of this caller
-- ARGV[4]  how long the queue must live at least, in milliseconds (the caller's remaining wait plus a margin)
-- ARGV[5]  "1" when this caller queued in an earlier attempt, else "0"
--
-- Returns {1, token} when acquired now; {2, token} when the lock had already been handed to this holder (or an
-- earlier attempt's reply was lost), the token telling when; {0, remaining ttl in ms, server time in microseconds}
-- when another holder has it and the caller queued.
--
-- The stored value is "<holder id>|<token>", followed by "|w" once a waiter queued, so that release looks at the
-- queue only when there is one. The token is the server clock in microseconds (it survives a restart with an empty
-- memory, and a lock is never acquired twice within one microsecond), never below the lock's floor (token.lua).
--
-- issueToken(floorKey, clock) comes from token.lua, loaded before this script.
local now = redis.call('TIME')
local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
if redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', clock), 'NX', 'PX', ARGV[2]) then
  local token = issueToken(KEYS[3], clock)
  if token ~= clock then
    redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', token), 'KEEPTTL')
  end
  if ARGV[5] == '1' then
    -- The lock was free although this caller queued (its last holder expired or was removed): leave the queue,
    -- and keep the mark for those still in it, so that this holder's release hands over to them.
    redis.call('ZREM', KEYS[2], ARGV[3])
    if redis.call('ZCARD', KEYS[2]) > 0 then
      redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', token) .. '|w', 'KEEPTTL')
    end
  end
  return {1, token}
end
local current = redis.call('GET', KEYS[1])
if string.sub(current, 1, #ARGV[1]) == ARGV[1] then
  return {2, tonumber(string.match(current, '^[^|]*|(%d+)'))}
end
if string.sub(current, -2) ~= '|w' then
  redis.call('SET', KEYS[1], current .. '|w', 'KEEPTTL')
end
redis.call('ZADD', KEYS[2], 'NX', clock, ARGV[3])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return {0, redis.call('PTTL', KEYS[1]), clock}
