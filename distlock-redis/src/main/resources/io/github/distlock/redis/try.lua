-- A single try: takes the lock if it is free, issuing its fencing token, and never queues. acquire.lua does the same
-- for a caller that may wait; a try needs neither the queue's key nor its arguments, and answers with a number
-- rather than a list, which on a held lock costs Redis about 40 % less than acquire.lua (script-cost.sh).
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's token floor (see token.lua)
-- ARGV[1]  the holder prefix "<holder id>|", unique to this acquisition
-- ARGV[2]  the lease in milliseconds
--
-- Returns the token (above 0) when the lock was free and is now this holder's; minus the token when it already was
-- this holder's (the reply to an earlier sending of the same try was lost); 0 when another holder has it.
--
-- issueToken(floorKey, clock) comes from token.lua, loaded before this script.
local current = redis.call('GET', KEYS[1])
if current then
  if string.sub(current, 1, #ARGV[1]) == ARGV[1] then
    return -tonumber(string.match(current, '^[^|]*|(%d+)'))
  end
  return 0
end
local now = redis.call('TIME')
local token = issueToken(KEYS[2], tonumber(now[1]) * 1000000 + tonumber(now[2]))
redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', token), 'PX', ARGV[2])
return token
