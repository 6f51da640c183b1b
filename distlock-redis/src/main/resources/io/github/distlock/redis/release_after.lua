-- Ends a holder's use of its lock by giving the lock exactly the time to live asked for, shorter or longer than what
-- it has left, if and only if the holder still owns it: the store then frees it at that moment whatever becomes of
-- the holder. Waiters hear nothing when it expires; they find the lock free at their next poll.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder prefix "<holder id>|"
-- ARGV[2]  the time to live, in milliseconds
--
-- Returns 1 when the holder owned the lock, which now expires in ARGV[2] ms; 0 when it did not, and nothing changed.
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
