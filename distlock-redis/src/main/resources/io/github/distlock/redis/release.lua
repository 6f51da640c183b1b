-- Releases a lock if, and only if, the given holder still owns it, and hands it straight to the first waiter still
-- waiting, so the lock is never free for a newcomer to take out of turn.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's waiter queue (see acquire.lua)
-- KEYS[3]  the lock's token floor (see token.lua)
-- ARGV[1]  the holder prefix "<holder id>|"
-- ARGV[2]  the channel that announces the lock's releases to every engine (engine-wide, or the lock's own shard
--          channel on Redis Cluster: see announce.lua); hand-overs go to "<ARGV[2]>:<engine id>"
--
-- Returns {1} when released (or handed over), {0} when the lock is no longer this holder's (expired, deleted or
-- taken by another), and {3, error} when released (or handed over) but the announcement was refused (no permission
-- for the channel): the release stands, and waiters find the lock at their next poll. A hand-over publishes
-- "<token> <new holder prefix> <lock key>" to the new holder's engine alone (the holder prefix begins with
-- "<engine id>:"), so that other instances spend nothing on it; a release that finds the queue empty of live waiters
-- publishes "0 - <lock key>" to all, so that anyone still waiting tries again.

-- announce(channel, message) comes from announce.lua, and issueToken(floorKey, clock) from token.lua, loaded before
-- this script.

local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then
  return {0}
end
if string.sub(current, -2) ~= '|w' then
  redis.call('DEL', KEYS[1])
  return {1}
end
local now = redis.call('TIME')
local nowMillis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
while true do
  local first = redis.call('ZPOPMIN', KEYS[2])
  if #first == 0 then
    redis.call('DEL', KEYS[1])
    return announce(ARGV[2], '0 - ' .. KEYS[1])
  end
  local holder, lease, wait = string.match(first[1], '^([^|]*|)(%d+)|(%d+)$')
  -- A waiter past its wait has given up (or died while waiting): skip it.
  if holder and math.floor(tonumber(first[2]) / 1000) + tonumber(wait) > nowMillis then
    local token = issueToken(KEYS[3], tonumber(now[1]) * 1000000 + tonumber(now[2]))
    local value = holder .. string.format('%d', token)
    if redis.call('ZCARD', KEYS[2]) > 0 then
      value = value .. '|w'
    end
    redis.call('SET', KEYS[1], value, 'PX', lease)
    local engine = string.match(holder, '^([^:|]*)')
    return announce(ARGV[2] .. ':' .. engine, string.format('%d', token) .. ' ' .. holder .. ' ' .. KEYS[1])
  end
end
