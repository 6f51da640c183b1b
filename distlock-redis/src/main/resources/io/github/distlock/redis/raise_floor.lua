-- Raises a token floor (see token.lua) to a token issued elsewhere, never lowering it: a RedLock engine writes the
-- token it hands out, the largest of its majority's, to each master of that majority, so that any later majority
-- (which shares a master with this one) issues a larger token.
--
-- KEYS[1]  the token floor
-- ARGV[1]  the token, in decimal
--
-- Returns 1 when the floor was raised, 0 when it already stood at or above the token.
local last = redis.call('GET', KEYS[1])
if last and tonumber(last) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', FLOOR_MILLIS)
return 1
