#!/usr/bin/env bash
# How many threads `skillhost serve` runs (docs/performance.md, "Threads"): at idle after start-up,
# the most seen while CONNECTIONS concurrent HTTP clients call the echo fixture's `noop` skill for
# SECONDS, and again at idle afterwards; for the daemon and, with ISOLATION=process, for its runner
# processes too. Sampled from /proc every 50 ms.
#
#   bench/http/threads.sh [BINARY] [BUILD_DIR]
#
# BINARY defaults to BUILD_DIR/bin/skillhost, BUILD_DIR to build/release (it supplies the echo
# fixture). Env: CONNECTIONS (100), SECONDS_PER (10), ISOLATION (process; or in_process).
# Needs wrk.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${2:-build/release}
binary=${1:-$build/bin/skillhost}
connections=${CONNECTIONS:-100}
seconds=${SECONDS_PER:-10}
isolation=${ISOLATION:-process}
command -v wrk >/dev/null || { echo "wrk is not installed: sudo apt-get install wrk" >&2; exit 2; }
[ -x "$binary" ] || { echo "no skillhost binary at $binary (build it, or pass its path)" >&2; exit 2; }
[ -f "$build/tests/fixtures/echo/echo.yaml" ] || { echo "no echo fixture in $build (build fixture_echo)" >&2; exit 2; }

work=$(mktemp -d /tmp/skillhost-threads.XXXXXX)
pid=
trap '[ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$work"' EXIT
mkdir -p "$work/plugins" "$work/home" "$work/etc"
cp "$build"/tests/fixtures/echo/* "$work/plugins/"
printf 'plugin_dirs: [%s]\nserver:\n  listen: 127.0.0.1:0\nisolation:\n  mode: %s\n' "$work/plugins" "$isolation" \
  > "$work/etc/skillhost.yaml"
printf 'users:\n  - {id: owner, role: owner, trust: bounded_auto}\n' > "$work/etc/users.yaml"
SKILLHOST_LOG_LEVEL=warn "$binary" serve --config "$work/etc/skillhost.yaml" --home "$work/home" \
  --port-file "$work/port" 2> "$work/serve.log" &
pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "$binary serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
base=http://127.0.0.1:$(cat "$work/port")
token=$(cat "$work/home/owner.token")

# threads_of PID: the process's thread count. runner_threads: all threads of the daemon's
# descendants (a runner sits below the sandbox's launcher and its namespace's first process).
threads_of() { awk '/^Threads:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
descendants() {
  local child
  for child in $(pgrep -P "$1" || true); do echo "$child"; descendants "$child"; done
}
runner_threads() {
  local total=0 child
  for child in $(descendants "$pid"); do total=$((total + $(threads_of "$child"))); done
  echo "$total"
}
curl -sf -H "Authorization: Bearer $token" -d '{}' "$base/v1/skills/noop/call" >/dev/null
sleep 2
idle_daemon=$(threads_of "$pid")
idle_runners=$(runner_threads)

SKILLHOST_BENCH_TOKEN=$token wrk -t 2 -c "$connections" -d "${seconds}s" -s bench/http/noop_call.lua "$base" \
  > "$work/wrk.out" &
wrk_pid=$!
max_daemon=0
max_runners=0
while kill -0 "$wrk_pid" 2>/dev/null; do
  d=$(threads_of "$pid"); r=$(runner_threads)
  [ "$d" -gt "$max_daemon" ] && max_daemon=$d
  [ "$r" -gt "$max_runners" ] && max_runners=$r
  sleep 0.05
done
wait "$wrk_pid"
rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
errors=$(grep -E "Non-2xx|Socket errors" "$work/wrk.out" | tr '\n' ' ' || true)
sleep 2
echo "$(nproc) cores, isolation $isolation, $connections connections for ${seconds}s ($rps requests/s) $errors"
echo "daemon threads: idle $idle_daemon, most under load $max_daemon, idle after $(threads_of "$pid")"
echo "runner threads: idle $idle_runners, most under load $max_runners, idle after $(runner_threads)"
