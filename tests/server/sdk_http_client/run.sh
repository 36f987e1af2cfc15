#!/bin/sh
# Installs @modelcontextprotocol/sdk (once, into CACHE_DIR) with the machine's npm and runs
# client_http.mjs with the remaining arguments. Exit 77 when node or npm is missing (the test skips).
# Usage: run.sh CACHE_DIR URL TOKEN PLUGINS_DIR NEW_PLUGIN_DIR
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
shift
command -v node >/dev/null 2>&1 || { echo "node is not installed" >&2; exit 77; }
command -v npm >/dev/null 2>&1 || { echo "npm is not installed" >&2; exit 77; }
mkdir -p "$cache"
if [ ! -f "$cache/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk >&2) ||
    { echo "npm install @modelcontextprotocol/sdk failed (offline?)" >&2; exit 77; }
fi
cp "$here/client_http.mjs" "$cache/client_http.mjs"
exec node "$cache/client_http.mjs" "$@"
