-- Tells which redis-server answers: the test support checks that a client connects to the test context's own.
--
-- No KEYS, no ARGV.
--
-- Returns {process id, tcp port} as strings, read from INFO server.
local info = redis.call('INFO', 'server')
return {string.match(info, 'process_id:(%d+)'), string.match(info, 'tcp_port:(%d+)')}
