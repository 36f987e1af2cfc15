#!/bin/sh
# Installs the pinned MCP conformance suite and Node 22 (npm ci from the package-lock.json next to
# this script, once per lockfile, into CACHE_DIR), starts the front the suite talks to, and runs the
# suite's active server scenarios (or SCENARIO) against it with the baseline BASELINE (a file next to
# this script). Per-scenario results (checks.json) land in OUT_DIR/results.
#   http PORT TOKEN ...    auth_proxy.mjs in front of the daemon on PORT, adding the bearer token
#   stdio SKILLHOST ARGS   stdio_bridge.mjs, one `SKILLHOST ARGS` (skillhost mcp ...) per session
# Exit 77 (the test skips) only when npm is missing outside CI; under CI=true that fails.
# Usage: run_conformance.sh CACHE_DIR OUT_DIR BASELINE SCENARIO|all http PORT TOKEN
#        run_conformance.sh CACHE_DIR OUT_DIR BASELINE SCENARIO|all stdio SKILLHOST ARGS...
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
out=$2
baseline=$here/$3
scenario=$4
mode=$5
shift 5
[ "$scenario" = "all" ] && scenario=

. "$here/../npm_pinned_install.sh"
install_pinned "$here" "$cache" "the pinned conformance suite or node"
for f in auth_proxy.mjs stdio_bridge.mjs; do
  cp "$here/$f" "$cache/$f.tmp" && mv "$cache/$f.tmp" "$cache/$f"
done
flock -u 9

node="$cache/node_modules/.bin/node"
suite="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
rm -rf "$out"
mkdir -p "$out"
case $mode in
  http) "$node" "$cache/auth_proxy.mjs" "$@" >"$out/proxy.port" 2>"$out/proxy.log" & ;;
  stdio) "$node" "$cache/stdio_bridge.mjs" "$@" >"$out/proxy.port" 2>"$out/proxy.log" & ;;
  *) echo "unknown mode '$mode' (http or stdio)" >&2; exit 2 ;;
esac
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do
  [ -s "$out/proxy.port" ] && break
  kill -0 $proxy 2>/dev/null || { cat "$out/proxy.log" >&2; exit 1; }
  sleep 0.05
done
port=$(cat "$out/proxy.port")
[ -n "$port" ] || { echo "the auth proxy did not start" >&2; exit 1; }
if [ -n "$scenario" ]; then
  set -- --scenario "$scenario"
else
  set -- --suite active
fi
status=0
"$node" "$suite" server --url "http://127.0.0.1:$port/mcp" "$@" \
  --expected-failures "$baseline" --output-dir "$out/results" || status=$?
exit $status
