#!/usr/bin/env bash
# Two skillhost binaries side by side under the same wrk load, in one run (docs/performance.md,
# "HTTP API"): POST /v1/skills/noop/call, alternating between the two daemons in ROUNDS rounds of
# SECONDS each so that whatever else the machine does hits both alike. Prints requests/s and
# p50/p99 per round and the median requests/s of each, and their ratio (B / A).
#
#   bench/http/compare.sh OLD_BINARY NEW_BINARY [BUILD_DIR]
#
# BUILD_DIR (default build/release) supplies the echo fixture. Env: CONNECTIONS (16), SECONDS_PER
# (10), ROUNDS (3), WRK_THREADS (1), ISOLATION (in_process: the call path of issue 14, the plugin in
# the daemon; `process` puts it in a runner process, whose CPU the daemon's figure leaves out),
# OLD_WITHOUT_ISOLATION=1 (OLD predates plugin isolation, ran every plugin in process and refuses
# the `isolation` setting: its config leaves it out).
# Needs wrk.
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1
new=$2
build=${3:-build/release}
connections=${CONNECTIONS:-16}
seconds=${SECONDS_PER:-10}
rounds=${ROUNDS:-3}
threads=${WRK_THREADS:-1}
command -v wrk >/dev/null || { echo "wrk is not installed: sudo apt-get install wrk" >&2; exit 2; }
[ -f "$build/tests/fixtures/echo/echo.yaml" ] || { echo "no echo fixture in $build (build fixture_echo)" >&2; exit 2; }

work=$(mktemp -d /tmp/skillhost-http-compare.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# start NAME BINARY: a daemon with its own home; sets base_NAME and token_NAME.
start() {
  local name=$1 binary=$2 dir=$work/$1
  mkdir -p "$dir/plugins" "$dir/home" "$dir/etc"
  cp "$build"/tests/fixtures/echo/* "$dir/plugins/"
  printf 'plugin_dirs: [%s]\nserver:\n  listen: 127.0.0.1:0\n' "$dir/plugins" > "$dir/etc/skillhost.yaml"
  if [ "$name" != A ] || [ "${OLD_WITHOUT_ISOLATION:-0}" != 1 ]; then
    printf 'isolation:\n  mode: %s\n' "${ISOLATION:-in_process}" >> "$dir/etc/skillhost.yaml"
  fi
  printf 'users:\n  - {id: owner, role: owner, trust: bounded_auto}\n' > "$dir/etc/users.yaml"
  SKILLHOST_LOG_LEVEL=warn "$binary" serve --config "$dir/etc/skillhost.yaml" --home "$dir/home" \
    --port-file "$dir/port" 2> "$dir/serve.log" &
  pids+=($!)
  eval "pid_$name=$!"
  for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.05; done
  [ -s "$dir/port" ] || { echo "$binary serve did not start:" >&2; cat "$dir/serve.log" >&2; exit 1; }
  eval "base_$name=http://127.0.0.1:$(cat "$dir/port")"
  eval "token_$name=$(cat "$dir/home/owner.token")"
}
start A "$old"
start B "$new"
echo "A: $old"
echo "B: $new"
echo "$(nproc) cores, $connections connections, wrk threads $threads, $rounds rounds of ${seconds}s each"

# cpu_ticks PID: user+system clock ticks the process has used.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

for name in A B; do
  eval "base=\$base_$name token=\$token_$name"
  curl -sf -H "Authorization: Bearer $token" -d '{}' "$base/v1/skills/noop/call" >/dev/null
  SKILLHOST_BENCH_TOKEN=$token wrk -t "$threads" -c "$connections" -d 3s -s bench/http/noop_call.lua "$base" >/dev/null
done
: > "$work/A.rps"
: > "$work/B.rps"
for round in $(seq "$rounds"); do
  for name in A B; do
    eval "base=\$base_$name token=\$token_$name pid=\$pid_$name"
    before=$(cpu_ticks "$pid")
    out=$(SKILLHOST_BENCH_TOKEN=$token wrk -t "$threads" -c "$connections" -d "${seconds}s" --latency \
      -s bench/http/noop_call.lua "$base")
    after=$(cpu_ticks "$pid")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | grep -E "Non-2xx|Socket errors" | tr '\n' ' ' || true)
    cpu_us=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
    echo "round $round $name: $rps requests/s, p50 $p50, p99 $p99, daemon CPU ${cpu_us} us/request $errors"
    echo "$rps" >> "$work/$name.rps"
  done
done
median() { sort -n "$1" | awk '{v[NR] = $1} END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=$(median "$work/A.rps")
b=$(median "$work/B.rps")
awk -v a="$a" -v b="$b" 'BEGIN { printf "median requests/s: A %.0f, B %.0f; B/A = %.2f\n", a, b, b / a }'
