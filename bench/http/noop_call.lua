-- POST /v1/skills/noop/call as the owner (token from SKILLHOST_BENCH_TOKEN).
wrk.method = "POST"
wrk.path = "/v1/skills/noop/call"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SKILLHOST_BENCH_TOKEN")
