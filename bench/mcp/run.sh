#!/bin/sh
# bench/mcp/run.sh — MCP over stdio: skillhost vs the official TypeScript SDK server.
#
# Measures sequential `tools/call` round trips (one request in flight at a time) with the official
# MCP TypeScript SDK client (@modelcontextprotocol/sdk: Client + StdioClientTransport) against three
# servers started side by side in the same run:
#   skillhost  `skillhost mcp` serving the `echo` skill of the echo test fixture in its own
#              sandboxed runner process (the default for a plugin not shipped with skillhost; the
#              runner's CPU counts as server CPU);
#   skillhost-inproc  the same with `isolation: {plugins: {echo: in_process}}`: the plugin
#              loaded into the host process
#              (tests/fixtures/echo), from a throw-away config and home: only that plugin, the
#              repository's etc/users.yaml and etc/policy.yaml (user owner, supervised_auto; echo
#              is read-only and low risk, so it runs without approval), audit log included;
#   sdk        sdk_echo_server.mjs: an `echo` tool on the SDK's McpServer + StdioServerTransport,
#              with the same input schema (validated and defaulted with zod), output schema and
#              returned text;
#   floor      floor_server.mjs: the same answers from a bare node readline loop (no MCP library,
#              no validation) — what the SDK client and the pipes cost on their own, i.e. the
#              ceiling any server can reach in this measurement;
#   native-floor  native_floor.c (built here with cc -O2): canned answers from a C read/write loop
#              with no JSON parsing at all — the least server CPU per call any stdio server can
#              spend in this run (its whole cost is the pipe reads, writes and wake-ups);
#   audited-floor  native_floor.c --audit: native-floor plus what skillhost's guarantees cost in
#              system calls alone: the decision record appended to an audit file before the answer
#              and the call record after it;
#   relayed-floor  native_floor.c --audit --relay: the same with each call sent to a child process
#              over a socketpair and answered there, as a plugin in its runner is (the child's CPU
#              counts).
#   json-floor  json_floor.cpp: audited-floor plus each message parsed and each answer written with
#              Boost.JSON, as skillhost does, and nothing else (no schema, policy or skill).
#   The audited floors bound what skillhost-inproc and skillhost can reach with the same
#   guarantees: issue 36's targets (1.5x and 2x the native floor) are ratios to native-floor.
# All answer {"echo":{"text":...,"repeat":1,"mode":"plain"}}; bench_client.mjs checks every
# response and that all servers answer the same. It prints a table (calls/s, p50/p90/p99/max
# latency, server and client CPU per call, connect time), the ratios skillhost/sdk and
# skillhost/floor, and one JSON line.
# Results and the target (skillhost >= 3x the SDK server's calls/s): docs/performance.md.
#
# Usage: bench/mcp/run.sh [BUILD_DIR] [CALLS] [WARMUP]
#   BUILD_DIR  a CMake build tree of this repository (default build/release; relative paths are
#              taken from the repository root). When its `skillhost` binary or echo fixture is
#              missing they are built: `cmake --preset release` (only for build/<preset> without a
#              cache yet) and `cmake --build BUILD_DIR --target skillhost fixture_echo`.
#   CALLS      measured calls per server (default 5000), run in 10 alternating blocks
#   WARMUP     warm-up calls per server before measuring (default 500)
# Extra options for bench_client.mjs go in $BENCH_CLIENT_ARGS (split at spaces, so JSON without
# spaces), e.g. BENCH_CLIENT_ARGS='--blocks 20' or, to have the SDK client check every result
# against the tool's outputSchema: BENCH_CLIENT_ARGS='--validate-output' (native-floor answers only
# the default echo call, so other --tool/--args make it report a mismatch).
#
# Needs node >= 18 and npm (the machine's own; nothing is installed globally). The SDK is
# installed once with npm into BUILD_DIR/bench/mcp-sdk (network needed the first time).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-build/release}
calls=${2:-5000}
warmup=${3:-500}
case $build in /*) ;; *) build=$repo/$build ;; esac

command -v node >/dev/null 2>&1 ||
  { echo "bench/mcp: node is not installed; this benchmark needs Node.js >= 18 and npm (Debian: apt-get install nodejs npm)" >&2; exit 2; }
command -v npm >/dev/null 2>&1 ||
  { echo "bench/mcp: npm is not installed; this benchmark needs Node.js >= 18 and npm (Debian: apt-get install npm)" >&2; exit 2; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] ||
  { echo "bench/mcp: node $(node --version) is too old; the MCP TypeScript SDK needs Node.js >= 18" >&2; exit 2; }

# The skillhost binary and the echo fixture (libecho.so + echo.yaml).
binary=$build/bin/skillhost
fixture=$build/tests/fixtures/echo
if [ ! -x "$binary" ] || [ ! -f "$fixture/libecho.so" ] || [ ! -f "$fixture/echo.yaml" ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    preset=$(basename "$build")
    if [ "$build" = "$repo/build/$preset" ] && grep -q "\"name\": \"$preset\"" "$repo/CMakePresets.json"; then
      echo "bench/mcp: configuring $build (cmake --preset $preset)" >&2
      (cd "$repo" && cmake --preset "$preset" >&2)
    else
      echo "bench/mcp: $build is not a configured build tree; configure it first, e.g. cmake --preset release" >&2
      exit 2
    fi
  fi
  echo "bench/mcp: building skillhost and the echo fixture in $build" >&2
  cmake --build "$build" --target skillhost fixture_echo >&2
fi
if [ ! -f "$fixture/libecho.so" ]; then
  echo "bench/mcp: $fixture/libecho.so is missing (is SKILLHOST_BUILD_TESTS off in $build?)" >&2
  exit 2
fi

# The SDK (with zod, which sdk_echo_server.mjs imports), installed once beside the scripts: ES
# modules resolve bare imports from the importing file's directory, so the scripts run from there.
cache=$build/bench/mcp-sdk
mkdir -p "$cache"
if [ ! -f "$cache/node_modules/@modelcontextprotocol/sdk/package.json" ] || [ ! -f "$cache/node_modules/zod/package.json" ]; then
  echo "bench/mcp: installing @modelcontextprotocol/sdk into $cache" >&2
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk zod >&2) ||
    { echo "bench/mcp: npm install @modelcontextprotocol/sdk failed (offline? set npm's registry or proxy)" >&2; exit 1; }
fi
cp "$here/bench_client.mjs" "$here/sdk_echo_server.mjs" "$here/floor_server.mjs" "$cache/"
command -v cc >/dev/null 2>&1 || { echo "bench/mcp: cc is not installed (apt-get install gcc)" >&2; exit 2; }
command -v c++ >/dev/null 2>&1 || { echo "bench/mcp: c++ is not installed (apt-get install g++)" >&2; exit 2; }
cc -O2 -o "$cache/native_floor" "$here/native_floor.c"
c++ -O2 -std=c++20 -o "$cache/json_floor" "$here/json_floor.cpp" -lboost_json
sdk_version=$(node -p "require('$cache/node_modules/@modelcontextprotocol/sdk/package.json').version")
zod_version=$(node -p "require('$cache/node_modules/zod/package.json').version")

# A throw-away config and home: the echo fixture only (copied, so a rebuild during the run cannot
# trigger a reload), no built-in plugins, and the repository's default users.yaml and policy.yaml
# (user owner, trust supervised_auto; the default deny rules and audit settings).
work=$(mktemp -d "${TMPDIR:-/tmp}/skillhost-mcp-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/plugins" "$work/home"
cp "$fixture/libecho.so" "$work/plugins/"
cp "$fixture/echo.yaml" "$work/plugins/"
cp "$repo/etc/users.yaml" "$repo/etc/policy.yaml" "$work/"
# The plugin runs in the host (isolation in_process: the in-process call path the targets are
# about, and what the SDK server does); ISOLATION=process measures it in a sandboxed runner process,
# whose CPU the "server CPU" column does not include.
cat >"$work/skillhost.yaml" <<EOF
plugin_dirs: [$work/plugins]
include_builtin_plugins: false
isolation:
  mode: ${ISOLATION:-in_process}
EOF
cat "$work/skillhost.yaml" - >"$work/skillhost-inproc.yaml" <<EOF
isolation:
  plugins:
    echo: in_process
EOF
mkdir -p "$work/home-inproc"

echo "skillhost: $binary ($("$binary" --version 2>/dev/null | head -n 1 || echo "version unknown"))"
echo "sdk: @modelcontextprotocol/sdk $sdk_version, zod $zod_version, node $(node --version)"
# shellcheck disable=SC2086 # BENCH_CLIENT_ARGS is a list of options
cd "$cache" && node bench_client.mjs --calls "$calls" --warmup "$warmup" ${BENCH_CLIENT_ARGS:-} \
  -- skillhost "$binary" mcp --config "$work/skillhost.yaml" --home "$work/home" \
  --- skillhost-inproc "$binary" mcp --config "$work/skillhost-inproc.yaml" --home "$work/home-inproc" \
  --- sdk node "$cache/sdk_echo_server.mjs" \
  --- floor node "$cache/floor_server.mjs" \
  --- native-floor "$cache/native_floor" \
  --- audited-floor "$cache/native_floor" --audit "$work/audited-floor.jsonl" \
  --- relayed-floor "$cache/native_floor" --audit "$work/relayed-floor.jsonl" --relay \
  --- json-floor "$cache/json_floor" "$work/json-floor.jsonl"
