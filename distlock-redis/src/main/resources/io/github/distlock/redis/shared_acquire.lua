-- Acquires a shared lock (see shared_lib.lua), or queues the caller for a hand-over.
--
-- ARGV[1]  the holder prefix "<holder id>|", unique to this acquisition
-- ARGV[2]  the lease in milliseconds
-- ARGV[3]  the queue member of this caller, or "" for a single try that does not queue
-- ARGV[4]  how long the queue must live at least, in milliseconds
-- ARGV[5]  "1" when this caller queued in an earlier attempt, else "0"
-- ARGV[6]  the mode: r, w or p
-- ARGV[7]  the number of permits (mode p), else 0
-- ARGV[8]  the channel that announces hand-overs, as "<channel>:<engine id>"
--
-- Returns {1, token} when acquired now; {2, token} when a release had already handed the lock to this caller;
-- {0, ms until a holder's lease runs out, server time in microseconds} when the caller queued; {0} when a single try
-- found the lock unavailable.
local now = clock()
local nowMillis = math.floor(now / 1000)
purge(nowMillis)
if ARGV[5] == '1' then
  local token = owned(ARGV[1], ARGV[6])
  if token then
    return {2, token}
  end
end
local first = head(nowMillis)
if (not first or first.member == ARGV[3]) and admits(ARGV[6], tonumber(ARGV[7])) then
  local token = grant(ARGV[1], tonumber(ARGV[2]), ARGV[6], now)
  if ARGV[5] == '1' then
    -- Admitted from the head of the queue: leave it, and admit those behind that may share the lock as well.
    redis.call('ZREM', KEYS[3], ARGV[3])
    if ARGV[6] ~= 'w' then
      handOver(now, ARGV[8])
    end
  end
  return {1, token}
end
if ARGV[3] == '' then
  return {0}
end
redis.call('ZADD', KEYS[3], 'NX', now, ARGV[3])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
return {0, blockedFor(nowMillis), now}
