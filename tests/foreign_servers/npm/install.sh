#!/bin/bash
# Installs the pinned MCP servers of package-lock.json next to this script (npm ci, once per
# lockfile) into CACHE_DIR and prints the directory that holds their packages.
# Exits 77 (the test skips) only when npm is missing outside CI; under CI=true that fails.
# Usage: install.sh CACHE_DIR
set -e
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../mcp/npm_pinned_install.sh
source "$here/../../mcp/npm_pinned_install.sh"
install_pinned "$here" "$1" "the pinned MCP servers" node_modules/@modelcontextprotocol/server-memory/package.json
flock -u 9
echo "$1/node_modules/@modelcontextprotocol"
