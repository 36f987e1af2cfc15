#!/bin/sh
# Installs the pinned MCP conformance suite and Node 22 (the lockfile of tests/mcp/conformance, into
# CACHE_DIR once; shared with the server scenarios' test) and runs one client scenario with CLIENT
# as the client under test (the suite starts the scenario's server and appends its URL). Results
# (checks.json) land in OUT_DIR/results. The suite's exit status is this script's: non-zero when a
# check failed or warned, or the client failed.
# Exit 77 (the test skips) only when npm is missing outside CI; under CI=true that fails.
# Usage: run_client_conformance.sh CACHE_DIR OUT_DIR CLIENT SCENARIO
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
out=$2
client=$3
scenario=$4

. "$here/../mcp/npm_pinned_install.sh"
install_pinned "$here/../mcp/conformance" "$cache" "the pinned conformance suite or node"
flock -u 9

node="$cache/node_modules/.bin/node"
suite="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
rm -rf "$out"
mkdir -p "$out"
"$node" "$suite" client --command "$client" --scenario "$scenario" --timeout 30000 --output-dir "$out/results"
