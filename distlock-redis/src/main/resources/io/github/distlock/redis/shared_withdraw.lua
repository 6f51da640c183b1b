-- Takes a waiter out of a shared lock's queue when it stops waiting (see shared_lib.lua), and admits those behind
-- it that may now hold the lock (readers queued behind a writer that gave up).
--
-- ARGV[1]  the holder prefix "<holder id>|" of the waiter
-- ARGV[2]  the waiter's queue member
-- ARGV[3]  the mode: r, w or p
-- ARGV[4]  the channel that announces hand-overs, as "<channel>:<engine id>"
--
-- Returns the token when the lock had already been handed to this waiter (the caller then holds it and must use or
-- release it), 0 otherwise.
local now = clock()
purge(math.floor(now / 1000))
redis.call('ZREM', KEYS[3], ARGV[2])
local token = owned(ARGV[1], ARGV[3])
handOver(now, ARGV[4])
return token or 0
