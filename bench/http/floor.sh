#!/usr/bin/env bash
# The HTTP floor beside skillhost serve, under the same wrk load in one run (docs/performance.md,
# "HTTP API"): native_floor.c (two epoll threads answering every request with a canned 200, no
# work) and `skillhost serve` answering POST /v1/skills/noop/call, alternating in ROUNDS rounds.
# The floor's requests/s is what wrk and loopback allow on this machine: the most any server can
# show here, and so the most issue 36's throughput target can ask of skillhost.
#
#   bench/http/floor.sh [BUILD_DIR]      (default build/release; needs bin/skillhost and the echo fixture)
#
# Env: CONNECTIONS (16), SECONDS_PER (5), ROUNDS (3), WRK_THREADS (1), ISOLATION (in_process).
# Needs wrk and cc.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
connections=${CONNECTIONS:-16}
seconds=${SECONDS_PER:-5}
rounds=${ROUNDS:-3}
threads=${WRK_THREADS:-1}
command -v wrk >/dev/null || { echo "wrk is not installed: sudo apt-get install wrk" >&2; exit 2; }
command -v cc >/dev/null || { echo "cc is not installed: sudo apt-get install gcc" >&2; exit 2; }
[ -x "$build/bin/skillhost" ] || { echo "no $build/bin/skillhost (cmake --build $build --target skillhost)" >&2; exit 2; }
[ -f "$build/tests/fixtures/echo/echo.yaml" ] || { echo "no echo fixture in $build (build fixture_echo)" >&2; exit 2; }

work=$(mktemp -d /tmp/skillhost-http-floor.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

cc -O2 -pthread -o "$work/http_floor" bench/http/native_floor.c
floor_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$work/http_floor" "$floor_port" &
pids+=($!)

mkdir -p "$work/plugins" "$work/home" "$work/etc"
cp "$build"/tests/fixtures/echo/* "$work/plugins/"
printf 'plugin_dirs: [%s]\nserver:\n  listen: 127.0.0.1:0\nisolation:\n  mode: %s\n' "$work/plugins" \
  "${ISOLATION:-in_process}" > "$work/etc/skillhost.yaml"
printf 'users:\n  - {id: owner, role: owner, trust: bounded_auto}\n' > "$work/etc/users.yaml"
SKILLHOST_LOG_LEVEL=warn "$build/bin/skillhost" serve --config "$work/etc/skillhost.yaml" --home "$work/home" \
  --port-file "$work/port" 2> "$work/serve.log" &
pids+=($!)
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "skillhost serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
export SKILLHOST_BENCH_TOKEN
SKILLHOST_BENCH_TOKEN=$(cat "$work/home/owner.token")
skillhost_base=http://127.0.0.1:$(cat "$work/port")
floor_base=http://127.0.0.1:$floor_port
curl -sf -X POST -d '{}' "$floor_base/v1/skills/noop/call" >/dev/null || { echo "the floor server does not answer" >&2; exit 1; }

echo "$(nproc) cores, $connections connections, wrk threads $threads, $rounds rounds of ${seconds}s each"
declare -A all
for round in $(seq "$rounds"); do
  for name in floor skillhost; do
    base_var=${name}_base
    rps=$(wrk -t "$threads" -c "$connections" -d "${seconds}s" -s bench/http/noop_call.lua "${!base_var}" |
      awk '/Requests\/sec/ {print $2}')
    echo "round $round $name: $rps requests/s"
    all[$name]+="$rps "
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
floor_median=$(echo "${all[floor]}" | median)
skillhost_median=$(echo "${all[skillhost]}" | median)
awk -v f="$floor_median" -v s="$skillhost_median" \
  'BEGIN { printf "median requests/s: floor %.0f, skillhost %.0f; floor / skillhost = %.2f\n", f, s, f / s }'
