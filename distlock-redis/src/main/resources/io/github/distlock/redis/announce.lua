-- Announces without failing the script: a release or grant must stand, and its caller must hear that it does.
-- A channel with a hash tag is a shard channel in the slot of the lock it names (Redis Cluster): SPUBLISH delivers it
-- within that slot's shard alone, where PUBLISH would be broadcast to every node of the cluster. The engine-wide
-- channels of a single Redis or Sentinel carry no brace (the key prefix may not), and go out with PUBLISH.
local function announce(channel, message)
  local command = string.find(channel, '{', 1, true) and 'SPUBLISH' or 'PUBLISH'
  local sent = redis.pcall(command, channel, message)
  if type(sent) == 'table' and sent.err then
    return {3, sent.err}
  end
  return {1}
end
