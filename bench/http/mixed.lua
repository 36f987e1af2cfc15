-- A mix of what clients do: skill calls, listings, catalog renders, run reads, metrics scrapes.
local token = "Bearer " .. os.getenv("SKILLHOST_BENCH_TOKEN")
local run = os.getenv("SKILLHOST_BENCH_RUN") or ""
local requests = {}
local function add(weight, method, path, body)
  for _ = 1, weight do
    requests[#requests + 1] = wrk.format(method, path,
      {["Authorization"] = token, ["Content-Type"] = "application/json"}, body)
  end
end
add(10, "POST", "/v1/skills/noop/call", "{}")
add(5, "POST", "/v1/skills/add/call", '{"args":{"a":19,"b":23}}')
add(2, "POST", "/v1/skills/echo/call", '{"args":{"text":"hello"}}')
add(2, "GET", "/v1/skills")
add(1, "GET", "/v1/catalog?format=openai")
add(1, "GET", "/v1/runs/" .. run)
add(1, "GET", "/v1/runs?limit=5")
add(1, "GET", "/metrics")
add(1, "GET", "/healthz")
local i = 0
request = function()
  i = i + 1
  return requests[(i % #requests) + 1]
end
