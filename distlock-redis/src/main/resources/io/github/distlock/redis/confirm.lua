-- Writes to a lock its holder owns, so that a WAIT sent after it on the same connection counts the replicas that
-- have the lock: the grant came earlier in the replication stream, whoever wrote it (a release that handed the lock
-- over, say). Sets the TTL to what it is, which changes nothing but is replicated.
--
-- KEYS[1]  the lock key: a string holding "<holder id>|<token>", or a shared lock's holders (see shared_lib.lua)
-- ARGV[1]  "s" for a string key, "z" for a shared holder
-- ARGV[2]  the holder prefix "<holder id>|" on a string key; the member "<holder id>|<token>" of a shared holder
--
-- Returns 1 when the holder owns the lock, 0 when it does not (and nothing is written).
local owned
if ARGV[1] == 's' then
  local current = redis.call('GET', KEYS[1])
  owned = current and string.sub(current, 1, #ARGV[2]) == ARGV[2]
else
  owned = redis.call('ZSCORE', KEYS[1], ARGV[2]) ~= false
end
if not owned then
  return 0
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1
