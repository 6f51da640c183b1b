-- Announces without failing the script: a release or grant must stand, and its caller must hear that it does.
local function announce(channel, message)
  local sent = redis.pcall('PUBLISH', channel, message)
  if type(sent) == 'table' and sent.err then
    return {3, sent.err}
  end
  return {1}
end
