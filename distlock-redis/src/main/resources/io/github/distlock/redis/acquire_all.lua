-- Acquires several locks in one atomic step, all or none, without queueing: the way in for a call that locks a set
-- of keys when all of them are free.
--
-- KEYS[i]      for i = 1..n, a lock key; KEYS[n + 1] their token floor (see token.lua: one key for every lock of one
--              hash slot, and the keys of one call share a slot on Redis Cluster)
-- ARGV[2i-1]   the holder prefix "<holder id>|" of KEYS[i], unique to its acquisition
-- ARGV[2i]     the lease of KEYS[i] in milliseconds
--
-- Returns {1, token} when every lock was free and is now held, each storing "<holder id>|<token>" (one token for
-- all, above the floor: it exceeds every earlier token of each lock); {0} when any is held, and then nothing was
-- changed.
--
-- issueToken(floorKey, clock) comes from token.lua, loaded before this script.
local n = #KEYS - 1
for i = 1, n do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    return {0}
  end
end
local now = redis.call('TIME')
local token = issueToken(KEYS[n + 1], tonumber(now[1]) * 1000000 + tonumber(now[2]))
for i = 1, n do
  redis.call('SET', KEYS[i], ARGV[2 * i - 1] .. string.format('%d', token), 'PX', ARGV[2 * i])
end
return {1, token}
