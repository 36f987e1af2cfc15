#!/usr/bin/env bash
# The daemon under load from wrk on loopback (docs/performance.md, "HTTP API").
#
#   bench/http/run.sh [BUILD_DIR] [throughput|soak|all]
#
#   throughput  POST /v1/skills/noop/call (a no-op skill from the echo fixture) for 20 s at several
#               connection counts; requests/s and latency percentiles from wrk --latency.
#               Targets: >= 10,000 requests/s with p99 < 10 ms on 2 cores.
#   soak        5 minutes (SOAK_SECONDS) of mixed load: skill calls (noop, add, task_list), skill
#               listings, catalog renders, run reads and /metrics. Samples the daemon's RSS every
#               10 s; reports growth from the first sample after warm-up to the last, and wrk's
#               error counts (connect/read/write/timeout and non-2xx answers). Target: growth
#               <= 10 %, no errors.
#
# BUILD_DIR (default build/release) must hold bin/skillhost, the built-in plugins and the echo
# fixture; the script builds them if they are missing. Needs wrk (Debian package `wrk`).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
mode=${2:-all}
threads=${WRK_THREADS:-1}
seconds=${BENCH_SECONDS:-20}
soak_seconds=${SOAK_SECONDS:-300}

command -v wrk >/dev/null || { echo "wrk is not installed: sudo apt-get install wrk" >&2; exit 2; }
if [ ! -x "$build/bin/skillhost" ] || [ ! -f "$build/tests/fixtures/echo/echo.yaml" ]; then
  preset=$(basename "$build")
  [ -f "$build/CMakeCache.txt" ] || cmake --preset "$preset" >/dev/null
  cmake --build "$build" --target skillhost skillhost_builtin_plugins skillhost_test_fixtures
fi

work=$(mktemp -d /tmp/skillhost-http-bench.XXXXXX)
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/plugins" "$work/home" "$work/etc"
cp "$build"/tests/fixtures/echo/* "$work/plugins/"
cat > "$work/etc/skillhost.yaml" <<YAML
plugin_dirs: [$work/plugins]
server:
  listen: 127.0.0.1:0
  max_runs_per_user: 64
YAML
cat > "$work/etc/users.yaml" <<YAML
users:
  - {id: owner, role: owner, trust: bounded_auto}
YAML
SKILLHOST_LOG_LEVEL=warn "$build/bin/skillhost" serve --config "$work/etc/skillhost.yaml" --home "$work/home" \
  --port-file "$work/port" 2> "$work/serve.log" &
server=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "skillhost serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
port=$(cat "$work/port")
token=$(cat "$work/home/owner.token")
base="http://127.0.0.1:$port"
export SKILLHOST_BENCH_TOKEN=$token

# One run to read back in the soak's mix.
run_id=$(curl -sf -H "Authorization: Bearer $token" -d '{"goal":"What tasks do I have?"}' "$base/v1/runs" |
  sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p')
export SKILLHOST_BENCH_RUN=$run_id
echo "skillhost serve pid $server on $base ($(nproc) cores; wrk threads $threads)"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), build $build"

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }

if [ "$mode" = throughput ] || [ "$mode" = all ]; then
  curl -sf -H "Authorization: Bearer $token" -d '{}' "$base/v1/skills/noop/call" >/dev/null
  wrk -t "$threads" -c 16 -d 3s -s bench/http/noop_call.lua "$base" >/dev/null  # warm-up
  for connections in 8 32 64; do
    echo "== noop skill call, $connections connections, ${seconds}s"
    wrk -t "$threads" -c "$connections" -d "${seconds}s" --latency -s bench/http/noop_call.lua "$base" |
      grep -E "Requests/sec|Latency  |50%|90%|99%|Non-2xx|Socket errors|requests in"
  done
  echo "daemon RSS after throughput: $(rss_kb) kB"
fi

if [ "$mode" = soak ] || [ "$mode" = all ]; then
  echo "== soak: mixed load, 32 connections, ${soak_seconds}s"
  wrk -t "$threads" -c 32 -d "${soak_seconds}s" --latency -s bench/http/mixed.lua "$base" > "$work/soak.txt" &
  load=$!
  sleep 30
  first=$(rss_kb)
  samples="$first"
  while kill -0 $load 2>/dev/null; do
    sleep 10
    kill -0 $load 2>/dev/null && samples="$samples $(rss_kb)"
  done
  wait $load
  last=$(rss_kb)
  grep -E "Requests/sec|Latency  |99%|Non-2xx|Socket errors|requests in" "$work/soak.txt"
  echo "RSS samples (kB, every 10 s after a 30 s warm-up): $samples"
  awk -v a="$first" -v b="$last" 'BEGIN { printf "RSS %d kB -> %d kB: %+.1f %%\n", a, b, (b - a) * 100.0 / a }'
  curl -sf "$base/metrics" | grep -E '^skillhost_http_requests_total' | grep -v 'status="200"' || echo "no non-200 answers in /metrics"
fi
