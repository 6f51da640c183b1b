-- Acquires several locks in one atomic step, all or none, without queueing: the way in for a call that locks a set
-- of keys when all of them are free.
--
-- KEYS[i]    a lock key
-- ARGV[2i-1] the holder prefix "<holder id>|" of KEYS[i], unique to its acquisition
-- ARGV[2i]   the lease of KEYS[i] in milliseconds
--
-- Returns {1, token} when every lock was free and is now held, each storing "<holder id>|<token>" (one token for
-- all: each lock's token still exceeds every earlier token of that lock); {0} when any is held, and then nothing was
-- changed.
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    return {0}
  end
end
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], ARGV[2 * i - 1] .. string.format('%d', token), 'PX', ARGV[2 * i])
end
return {1, token}
