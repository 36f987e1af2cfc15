# Sourced by the scripts that run pinned npm packages in tests (conformance/, inspector/).
# install_pinned SOURCE_DIR CACHE_DIR WHAT [MUST_EXIST]: installs the packages of SOURCE_DIR's package-lock.json
# with `npm ci` into CACHE_DIR, once per lockfile, and returns holding the cache's lock on fd 9
# (tests run in parallel under ctest -j: one installs, the others wait); release it with
# `flock -u 9` once the caller's own files are copied in. WHAT names the packages in errors;
# MUST_EXIST (relative to CACHE_DIR, default node_modules/.bin/node) is a file a complete install has.
# Exits 77 (the test skips) only when npm is missing outside CI; under CI=true that fails. A failed
# npm ci always fails: the lockfile pins every package, so nothing about it is optional.
install_pinned() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is not installed (scripts/install-deps installs it)" >&2
    [ "${CI:-}" = "true" ] && { echo "CI=true: a skipped test is a failure" >&2; exit 1; }
    exit 77
  fi
  mkdir -p "$2"
  exec 9>"$2/.install.lock"
  flock 9
  if ! cmp -s "$1/package-lock.json" "$2/installed-package-lock.json" ||
     [ ! -e "$2/${4:-node_modules/.bin/node}" ]; then
    cp "$1/package.json" "$1/package-lock.json" "$2/"
    rm -f "$2/installed-package-lock.json"
    if ! (cd "$2" && npm ci --no-audit --no-fund --loglevel=error --fetch-timeout=30000 --fetch-retries=2 >&2); then
      echo "npm ci in $2 failed: $3 could not be installed" >&2
      exit 1
    fi
    cp "$1/package-lock.json" "$2/installed-package-lock.json"
  fi
}
