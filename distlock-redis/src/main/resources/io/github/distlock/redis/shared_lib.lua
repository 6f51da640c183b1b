-- Functions of the shared locks: the read/write lock and permits. A shared lock has four keys, in one hash slot:
--
-- KEYS[1]  the writer: a string "<holder id>|<token>" with the lease as its TTL, set only by a write lock
-- KEYS[2]  the shared holders (readers, or permit holders): a sorted set of "<holder id>|<token>", each scored with
--          its expiry on the server clock in milliseconds, so that a holder gone silent drops out within its lease
-- KEYS[3]  the waiter queue: a sorted set of "<holder id>|<lease ms>|<wait ms>|<mode><limit>", scored with the time
--          the waiter first queued, in microseconds; mode is r (read), w (write) or p (permit), limit the permits
-- KEYS[4]  the token floor (token.lua): tokens only grow, also when one script grants several holders at once
--
-- Waiters are served first come, first served: nobody is admitted while a live waiter queued earlier, and a
-- release hands the lock straight to the waiters at the head of the queue that it admits (one writer, or every
-- reader up to the next writer, or as many permit holders as there are free permits), announcing each hand-over to
-- the new holder's engine alone: "<token> <holder id>| <KEYS[1]>".

local function clock()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000000 + tonumber(now[2])
end

-- announce(channel, message) comes from announce.lua, loaded before these functions.

-- Drops the holders whose lease ran out.
local function purge(nowMillis)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMillis)
end

-- The first live waiter, dropping those at the head whose wait ran out (given up, or died waiting); nil if none.
local function head(nowMillis)
  while true do
    local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
    if #first == 0 then
      return nil
    end
    local holder, lease, wait, mode, limit = string.match(first[1], '^([^|]*|)(%d+)|(%d+)|(%a)(%d+)$')
    if holder and math.floor(tonumber(first[2]) / 1000) + tonumber(wait) > nowMillis then
      return {member = first[1], holder = holder, lease = tonumber(lease), mode = mode, limit = tonumber(limit)}
    end
    redis.call('ZREM', KEYS[3], first[1])
  end
end

-- Whether a holder of this mode may hold the lock now, beside those holding it.
local function admits(mode, limit)
  if mode == 'p' then
    -- Permits have no writer.
    return redis.call('ZCARD', KEYS[2]) < limit
  end
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return false
  end
  if mode == 'w' then
    return redis.call('ZCARD', KEYS[2]) == 0
  end
  return true
end

-- Grants the lock to a holder and returns its token: the server clock, or one past the last token if that is later
-- (token.lua: the floor, KEYS[4], also keeps tokens growing when one script grants several holders at once).
local function grant(holder, lease, mode, nowMicros)
  local token = issueToken(KEYS[4], nowMicros)
  local value = holder .. string.format('%d', token)
  if mode == 'w' then
    redis.call('SET', KEYS[1], value, 'PX', lease)
  else
    redis.call('ZADD', KEYS[2], math.floor(nowMicros / 1000) + lease, value)
    if redis.call('PTTL', KEYS[2]) < lease then
      redis.call('PEXPIRE', KEYS[2], lease)
    end
  end
  return token
end

-- Hands the lock to the waiters at the head of the queue that may hold it now. Returns {1}, or {3, error} when an
-- announcement was refused (the grants stand; those waiters find them at their next poll).
local function handOver(nowMicros, channel)
  local nowMillis = math.floor(nowMicros / 1000)
  local result = {1}
  while true do
    local first = head(nowMillis)
    if not first or not admits(first.mode, first.limit) then
      return result
    end
    redis.call('ZREM', KEYS[3], first.member)
    local token = grant(first.holder, first.lease, first.mode, nowMicros)
    local engine = string.match(first.holder, '^([^:|]*)')
    local sent = announce(channel .. ':' .. engine,
      string.format('%d', token) .. ' ' .. first.holder .. ' ' .. KEYS[1])
    if sent[1] == 3 then
      result = sent
    end
    if first.mode == 'w' then
      return result
    end
  end
end

-- The token of the grant this holder has in this mode, or nil when it holds none.
local function owned(holder, mode)
  if mode == 'w' then
    local current = redis.call('GET', KEYS[1])
    if current and string.sub(current, 1, #holder) == holder then
      return tonumber(string.sub(current, #holder + 1))
    end
    return nil
  end
  -- A holder id is hex, ':', digits and '|': nothing a MATCH pattern would read as a wildcard.
  local cursor = '0'
  repeat
    local page = redis.call('ZSCAN', KEYS[2], cursor, 'MATCH', holder .. '*', 'COUNT', 100)
    cursor = page[1]
    if #page[2] > 0 then
      return tonumber(string.sub(page[2][1], #holder + 1))
    end
  until cursor == '0'
  return nil
end

-- How long, in milliseconds, until a holder's lease runs out on its own: when a waiter polls if no release comes.
local function blockedFor(nowMillis)
  local writer = redis.call('PTTL', KEYS[1])
  if writer > 0 then
    return writer
  end
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #first > 0 then
    return math.max(1, tonumber(first[2]) - nowMillis)
  end
  return 1000
end
