-- The fenced resource: a write is accepted only with a token at least as large as the largest accepted so far for
-- that resource (equal, because one holder writes twice: on entering and on leaving its critical section). Every
-- write, accepted or not, is appended to the log in the order the server ran it, for the checker.
--
-- KEYS[1]  the largest accepted token of the resource
-- KEYS[2]  the write log (a list)
-- ARGV[1]  the writer's fencing token
-- ARGV[2]  the resource (the lock key)
-- ARGV[3]  the writer ("<worker>/<call>")
-- ARGV[4]  the phase ("enter" or "exit")
-- ARGV[5]  "1" to check the token, "0" to accept every write (the negative control of an unfenced resource)
--
-- Returns 1 when accepted, 0 when rejected. Tokens are microseconds since the epoch, below 2^53, so Lua's double
-- compares them exactly.
local token = tonumber(ARGV[1])
local highest = tonumber(redis.call('GET', KEYS[1]) or '0')
local accepted = ARGV[5] == '0' or token >= highest
if accepted and token > highest then
  redis.call('SET', KEYS[1], ARGV[1])
end
local flag = accepted and '1' or '0'
redis.call('RPUSH', KEYS[2], 'write resource=' .. ARGV[2] .. ' token=' .. ARGV[1] .. ' writer=' .. ARGV[3]
    .. ' phase=' .. ARGV[4] .. ' accepted=' .. flag)
if accepted then
  return 1
end
return 0
