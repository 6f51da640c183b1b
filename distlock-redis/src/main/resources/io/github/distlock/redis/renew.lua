-- Extends the leases of many locks in one round trip; each only if its holder still owns it.
--
-- KEYS[i]      a lock key: a string holding "<holder id>|<token>", or the sorted set of a shared lock's holders
--              (see shared_lib.lua)
-- ARGV[3i-2]   "s" for a string key, "z" for a shared holder
-- ARGV[3i-1]   the holder prefix "<holder id>|" expected on a string key; the member "<holder id>|<token>" of a
--              shared holder
-- ARGV[3i]     the new time to live in milliseconds
--
-- Returns a list with, for each key, 1 when renewed and 0 when the lock is no longer that holder's.
local renewed = {}
local nowMillis
for i = 1, #KEYS do
  local holder = ARGV[3 * i - 1]
  local ttl = tonumber(ARGV[3 * i])
  renewed[i] = 0
  if ARGV[3 * i - 2] == 's' then
    local current = redis.call('GET', KEYS[i])
    if current and string.sub(current, 1, #holder) == holder then
      redis.call('PEXPIRE', KEYS[i], ttl)
      renewed[i] = 1
    end
  else
    if not nowMillis then
      local now = redis.call('TIME')
      nowMillis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    end
    local expiry = redis.call('ZSCORE', KEYS[i], holder)
    if expiry and tonumber(expiry) > nowMillis then
      redis.call('ZADD', KEYS[i], 'XX', nowMillis + ttl, holder)
      if redis.call('PTTL', KEYS[i]) < ttl then
        redis.call('PEXPIRE', KEYS[i], ttl)
      end
      renewed[i] = 1
    end
  end
end
return renewed
