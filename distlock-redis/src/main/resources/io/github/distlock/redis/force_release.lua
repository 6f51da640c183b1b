-- Removes a lock whoever holds it: the operator's last resort for a lock stuck with a live but hung holder,
-- which then finds the lock lost at its next renewal.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the channel that announces the lock's releases to waiters
--
-- Returns 1 when a lock was removed, 0 when there was none. A refused announcement does not undo the removal
-- (waiters find the lock free at their next poll).

-- announce(channel, message) comes from announce.lua, loaded before this script.

if redis.call('DEL', KEYS[1]) == 1 then
  announce(ARGV[1], '0 - ' .. KEYS[1])
  return 1
end
return 0
