#!/bin/sh
# Installs @modelcontextprotocol/sdk (once, into CACHE_DIR) with the machine's npm and runs the
# client script CLIENT (an .mjs file; copied into CACHE_DIR so it resolves the SDK there) with the
# remaining arguments. Exit 77 when node or npm is missing (the test skips).
# Usage: run_sdk_client.sh CACHE_DIR CLIENT ARGS...
set -e
cache=$1
client=$2
shift 2
command -v node >/dev/null 2>&1 || { echo "node is not installed" >&2; exit 77; }
command -v npm >/dev/null 2>&1 || { echo "npm is not installed" >&2; exit 77; }
mkdir -p "$cache"
if [ ! -f "$cache/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk >&2) ||
    { echo "npm install @modelcontextprotocol/sdk failed (offline?)" >&2; exit 77; }
fi
name=$(basename "$client")
cp "$client" "$cache/$name"
exec node "$cache/$name" "$@"
