#!/usr/bin/env bash
# Side by side in one run (docs/performance.md, "Storage backends and instances"): the HTTP no-op
# call (calls/s, p99) and approvals/s (queue a held call, approve it, it executes) on
#   sqlite    one daemon, the embedded default (skillhost.db in its home)
#   postgres  one daemon on a PostgreSQL database
#   postgres  two daemons on the same database, each loaded by its own wrk with half the
#             connections (a load balancer spreads connections the same way, without its own cost)
#
#   bench/http/backends.sh [BUILD_DIR]        BENCH_SECONDS (default 10) per measurement
#
# PostgreSQL is a throwaway server (initdb in a temporary directory, Unix socket only, as the
# `postgres` user when run as root) with its default durability (fsync on, synchronous_commit on),
# like SQLite's synchronous=FULL. Needs wrk and Debian's postgresql package.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
seconds=${BENCH_SECONDS:-10}
connections=${BENCH_CONNECTIONS:-32}

command -v wrk >/dev/null || { echo "wrk is not installed: sudo apt-get install wrk" >&2; exit 2; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "no PostgreSQL server programs: sudo apt-get install postgresql" >&2; exit 2; }
if [ ! -x "$build/bin/skillhost" ] || [ ! -x "$build/bin/skillhost-runner" ] ||
  [ ! -f "$build/tests/fixtures/echo/echo.yaml" ]; then
  preset=$(basename "$build")
  [ -f "$build/CMakeCache.txt" ] || cmake --preset "$preset" >/dev/null
  # plugins run isolated by default: the daemon needs the runner next to it
  cmake --build "$build" --target skillhost skillhost-runner skillhost_builtin_plugins skillhost_test_fixtures
fi

work=$(mktemp -d /tmp/skillhost-backends-bench.XXXXXX)
daemons=()
pg=""
stop_daemons() {
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
  daemons=()
}
cleanup() {
  stop_daemons
  if [ -n "$pg" ]; then
    # The postmaster itself: runuser (when root) does not pass a signal on to it.
    kill -INT "$(head -1 "$work/pg/data/postmaster.pid" 2>/dev/null || echo "$pg")" 2>/dev/null || true
    wait "$pg" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

as_pg=()
if [ "$(id -u)" = 0 ]; then as_pg=(runuser -u postgres --); fi
mkdir -p "$work/pg"
if [ "$(id -u)" = 0 ]; then chmod 755 "$work"; chown postgres "$work/pg"; fi
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg/data" -U postgres --auth=trust -E UTF8 --no-locale >"$work/pg.log" 2>&1 ||
  { echo "initdb failed:" >&2; cat "$work/pg.log" >&2; exit 1; }
"${as_pg[@]}" "$pgbin/postgres" -D "$work/pg/data" -k "$work/pg" -c listen_addresses= -c max_connections=200 \
  >>"$work/pg.log" 2>&1 &
pg=$!
for _ in $(seq 200); do "$pgbin/pg_isready" -q -h "$work/pg" && break; sleep 0.05; done
"$pgbin/psql" -q -h "$work/pg" -U postgres -c "CREATE DATABASE bench" >/dev/null
pg_url="host=$work/pg user=postgres dbname=bench"

mkdir -p "$work/plugins"
cp "$build"/tests/fixtures/echo/* "$work/plugins/"

# start_daemon NAME STORAGE_YAML: one daemon with its own home and etc; prints its port.
start_daemon() {
  local dir="$work/$1"
  mkdir -p "$dir/home" "$dir/etc"
  cat > "$dir/etc/skillhost.yaml" <<YAML
plugin_dirs: [$work/plugins]
server:
  listen: 127.0.0.1:0
$2
YAML
  printf 'users:\n  - {id: owner, role: owner, trust: bounded_auto}\n' > "$dir/etc/users.yaml"
  printf 'global:\n  ask: ["add"]\n' > "$dir/etc/policy.yaml"
  SKILLHOST_LOG_LEVEL=warn "$build/bin/skillhost" serve --config "$dir/etc/skillhost.yaml" --home "$dir/home" \
    --port-file "$dir/port" 2> "$dir/serve.log" &
  daemons+=($!)
  for _ in $(seq 400); do [ -s "$dir/port" ] && break; sleep 0.05; done
  [ -s "$dir/port" ] || { echo "skillhost serve ($1) did not start:" >&2; cat "$dir/serve.log" >&2; exit 1; }
}

# measure LABEL SCRIPT PORT...: wrk on every port at once, connections split between them.
# Prints calls/s (summed), p99 per instance, and the script's own line (approvals) when it has one.
measure() {
  local label=$1 script=$2
  shift 2
  local n=$# per=$((connections / $#)) outs=() i=0
  for port in "$@"; do
    wrk -t 1 -c "$per" -d "${seconds}s" --latency -s "$script" "http://127.0.0.1:$port" > "$work/wrk.$i" &
    outs+=($!)
    i=$((i + 1))
  done
  for pid in "${outs[@]}"; do wait "$pid"; done
  local rps p99 extra errors
  rps=$(cat "$work"/wrk.* | awk '/Requests\/sec/ {s += $2} END {printf "%.0f", s}')
  p99=$(cat "$work"/wrk.* | awk '$1 == "99%" {printf "%s%s", sep, $2; sep = " / "}')
  errors=$(cat "$work"/wrk.* | awk '/Non-2xx|Socket errors/ {printf "%s; ", $0}')
  extra=$(cat "$work"/wrk.* | awk '/approvals executed/ {split($0, a, ": "); s += a[3] + 0} END {if (s) printf "%.0f approvals/s", s}')
  printf "%-26s %-8s %9s calls/s   p99 %-20s %s %s\n" "$label" "$n inst" "$rps" "$p99" "$extra" "$errors"
  rm -f "$work"/wrk.*
}

# run_config LABEL STORAGE_YAML INSTANCES
run_config() {
  local label=$1 storage=$2 instances=$3 ports=()
  for i in $(seq "$instances"); do
    start_daemon "$label-$i" "$storage"
    ports+=("$(cat "$work/$label-$i/port")")
  done
  export SKILLHOST_BENCH_TOKEN
  SKILLHOST_BENCH_TOKEN=$(cat "$work/$label-1/home/owner.token")
  for port in "${ports[@]}"; do
    curl -sf -H "Authorization: Bearer $SKILLHOST_BENCH_TOKEN" -d '{}' "http://127.0.0.1:$port/v1/skills/noop/call" >/dev/null
    wrk -t 1 -c 8 -d 2s -s bench/http/noop_call.lua "http://127.0.0.1:$port" >/dev/null  # warm-up
  done
  measure "$label: noop call" bench/http/noop_call.lua "${ports[@]}"
  measure "$label: approve+execute" bench/http/approvals.lua "${ports[@]}"
  stop_daemons
}

echo "skillhost backends: $(nproc) cores, $connections connections, ${seconds}s per measurement"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), build $build, $("$pgbin/postgres" --version)"
run_config sqlite "" 1
run_config postgres "storage: {backend: postgres, url: \"$pg_url\"}" 1
# A second database, so the two-instance run starts from empty tables as the others do.
"$pgbin/psql" -q -h "$work/pg" -U postgres -c "CREATE DATABASE bench2" >/dev/null
run_config postgres-x2 "storage: {backend: postgres, url: \"host=$work/pg user=postgres dbname=bench2\"}" 2
