#!/bin/sh
# Installs the pinned MCP Inspector and the Node 22 it needs (npm ci from the package-lock.json next
# to this script, once per lockfile, into CACHE_DIR) and runs builtin_calls.mjs, which drives the
# Inspector's CLI mode (`inspector --cli`) against `SKILLHOST mcp` over stdio with the configuration
# CONFIG and home HOME: tools/list, then a tools/call of every skill listed.
# Exit 77 (the test skips) only when npm is missing outside CI; under CI=true that fails (see
# ../npm_pinned_install.sh).
# Usage: run_inspector.sh CACHE_DIR SKILLHOST CONFIG HOME
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
shift

. "$here/../npm_pinned_install.sh"
install_pinned "$here" "$cache" "the pinned MCP Inspector or node"
cp "$here/builtin_calls.mjs" "$cache/builtin_calls.mjs.tmp" && mv "$cache/builtin_calls.mjs.tmp" "$cache/builtin_calls.mjs"
flock -u 9

exec "$cache/node_modules/.bin/node" "$cache/builtin_calls.mjs" \
  "$cache/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" "$@"
