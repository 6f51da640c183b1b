-- Takes a waiter out of a lock's queue when it stops waiting (its wait ran out, or it was interrupted).
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's waiter queue (see acquire.lua)
-- ARGV[1]  the holder prefix "<holder id>|" of the waiter
-- ARGV[2]  the waiter's queue member
--
-- Returns the token when the lock had already been handed to this waiter (the caller then holds it and must use or
-- release it), 0 otherwise.
redis.call('ZREM', KEYS[2], ARGV[2])
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then
  return tonumber(string.match(current, '^[^|]*|(%d+)'))
end
return 0
