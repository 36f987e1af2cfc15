#!/bin/sh
# Installs the pinned @modelcontextprotocol/sdk (npm ci from the package-lock.json next to CLIENT,
# once per lockfile, into CACHE_DIR) and runs the client script CLIENT (an .mjs file; copied into
# CACHE_DIR so it resolves the SDK there) with the remaining arguments.
# Exit 77 (the test skips) only when node or npm is missing outside CI: scripts/install-deps
# installs both, so under CI=true a missing tool is a broken machine and fails. A failed npm
# install always fails: the lockfile pins every package, so nothing about it is optional.
# Usage: run_sdk_client.sh CACHE_DIR CLIENT ARGS...
set -e
cache=$1
client=$2
shift 2
source_dir=$(dirname "$client")

missing() {
  echo "$1" >&2
  if [ "${CI:-}" = "true" ]; then
    echo "CI=true: a skipped test is a failure; run scripts/install-deps" >&2
    exit 1
  fi
  exit 77
}
command -v node >/dev/null 2>&1 || missing "node is not installed (scripts/install-deps installs it)"
command -v npm >/dev/null 2>&1 || missing "npm is not installed (scripts/install-deps installs it)"
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "node $(node --version) is too old: the MCP TypeScript SDK needs node 18 or later" >&2
  exit 1
fi

mkdir -p "$cache"
# Tests run in parallel (ctest -j) and share the cache: one installs while the others wait, and
# nobody copies a client over a file another test is about to start.
exec 9>"$cache/.install.lock"
flock 9
# npm ci installs exactly the lockfile's versions; it reruns only when the lockfile changed.
if ! cmp -s "$source_dir/package-lock.json" "$cache/installed-package-lock.json"; then
  cp "$source_dir/package.json" "$source_dir/package-lock.json" "$cache/"
  rm -f "$cache/installed-package-lock.json"
  if ! (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error --fetch-timeout=30000 --fetch-retries=2 >&2); then
    echo "npm ci in $cache failed: the pinned @modelcontextprotocol/sdk could not be installed" >&2
    exit 1
  fi
  cp "$source_dir/package-lock.json" "$cache/installed-package-lock.json"
fi
name=$(basename "$client")
cp "$client" "$cache/$name.$$"
mv -f "$cache/$name.$$" "$cache/$name"
flock -u 9
exec 9>&-
exec node "$cache/$name" "$@"
