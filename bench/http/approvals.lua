-- Approvals per second: each connection queues a call that policy holds for approval
-- (POST /v1/skills/add/call -> 202 with an approval id), then approves it (-> 200, executed).
-- Token from SKILLHOST_BENCH_TOKEN; the policy must `ask` for add (bench/http/backends.sh sets it).
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

local headers
function init(args)
  queue = {}
  executed = 0
  headers = {["Content-Type"] = "application/json",
             ["Authorization"] = "Bearer " .. os.getenv("SKILLHOST_BENCH_TOKEN")}
end

function request()
  local id = table.remove(queue)
  if id then
    return wrk.format("POST", "/v1/approvals/" .. id .. "/approve", headers, "")
  end
  return wrk.format("POST", "/v1/skills/add/call", headers, '{"args":{"a":20,"b":22}}')
end

function response(status, hdrs, body)
  if status == 202 then
    local id = body:match('"approval_id":"([^"]+)"')
    if id then table.insert(queue, id) end
  elseif status == 200 and body:find('"executed"', 1, true) then
    executed = executed + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("executed") end
  io.write(string.format("approvals executed: %d in %.1f s: %.1f/s\n", total, summary.duration / 1e6,
                         total / (summary.duration / 1e6)))
end
