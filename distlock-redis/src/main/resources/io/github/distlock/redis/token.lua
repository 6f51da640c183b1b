-- Fencing tokens. A token is the server's clock in microseconds, raised to one past the floor when the floor is not
-- below the clock. The floor is the last token issued in the lock's hash slot (one key for every lock of the slot,
-- or of the whole Redis outside a cluster: see TokenFloors), kept FLOOR_MILLIS after every grant, and replicated
-- with the grant. So tokens never go backwards when the server's clock steps back, nor when a replica promoted while
-- its clock is behind the old master's takes over, as long as it is less than FLOOR_MILLIS behind: the floor goes
-- (by the old master's expiry, or by the new master's clock) only once the new master's clock has passed it.
local FLOOR_MILLIS = 10000

-- The token of a grant made at clock (microseconds), recorded as the new floor.
local function issueToken(floorKey, clock)
  local last = redis.call('SET', floorKey, string.format('%d', clock), 'PX', FLOOR_MILLIS, 'GET')
  if last and tonumber(last) >= clock then
    local token = tonumber(last) + 1
    redis.call('SET', floorKey, string.format('%d', token), 'PX', FLOOR_MILLIS)
    return token
  end
  return clock
end
