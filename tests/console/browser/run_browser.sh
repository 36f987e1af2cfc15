#!/bin/sh
# Installs the pinned puppeteer-core (package-lock.json, once per lock, into CACHE_DIR in the build
# tree) and runs SCRIPT with node, pointed at Debian's Chromium. Exit 77 (the test skips; under
# CI=true the test fails instead) when chromium, node or npm is missing or npm cannot install.
# Usage: run_browser.sh CACHE_DIR SCRIPT ARGS...
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
script=$2
shift 2
browser=${SKILLHOST_CHROMIUM:-/usr/bin/chromium}
[ -x "$browser" ] || { echo "chromium is not installed at $browser (apt-get install chromium)" >&2; exit 77; }
command -v node >/dev/null 2>&1 || { echo "node is not installed" >&2; exit 77; }
command -v npm >/dev/null 2>&1 || { echo "npm is not installed" >&2; exit 77; }
mkdir -p "$cache"
# Tests run in parallel (ctest -j): one installs, the others wait for it.
exec 9>"$cache/.install.lock"
flock 9
if ! cmp -s "$here/package-lock.json" "$cache/package-lock.json" || [ ! -f "$cache/node_modules/puppeteer-core/package.json" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >&2) ||
    { rm -f "$cache/package-lock.json"; echo "npm ci (puppeteer-core) failed (offline?)" >&2; exit 77; }
fi
for f in "$here"/*.mjs; do cp "$f" "$cache/$(basename "$f").tmp" && mv "$cache/$(basename "$f").tmp" "$cache/$(basename "$f")"; done
flock -u 9
export SKILLHOST_CHROMIUM="$browser"
exec node "$cache/$(basename "$script")" "$@"
