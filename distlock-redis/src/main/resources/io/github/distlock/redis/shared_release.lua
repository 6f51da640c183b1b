-- Releases a shared lock (see shared_lib.lua) if, and only if, the holder still holds it, and hands it to the
-- waiters at the head of the queue that may hold it now.
--
-- ARGV[1]  the holder prefix "<holder id>|"
-- ARGV[2]  the token of the grant, or "" when the caller does not know it (a hand-over it never heard of)
-- ARGV[3]  the mode: r, w or p
-- ARGV[4]  the channel that announces hand-overs, as "<channel>:<engine id>"
--
-- Returns {1} when released, {0} when the holder no longer held it (expired, or removed), and {3, error} when
-- released but an announcement was refused.
local now = clock()
purge(math.floor(now / 1000))
local member = ARGV[1] .. ARGV[2]
if ARGV[2] == '' then
  local token = owned(ARGV[1], ARGV[3])
  if not token then
    return {0}
  end
  member = ARGV[1] .. string.format('%d', token)
end
if ARGV[3] == 'w' then
  if redis.call('GET', KEYS[1]) ~= member then
    return {0}
  end
  redis.call('DEL', KEYS[1])
elseif redis.call('ZREM', KEYS[2], member) == 0 then
  return {0}
end
return handOver(now, ARGV[4])
