#!/usr/bin/env bash
# Runs a test binary as an unprivileged service user, the way the systemd unit runs the daemon
# (User=skillhost, Delegate=yes): the user is created here if missing, and is given a cgroup of
# its own in the memory and pids hierarchies (v1) or in the unified one (v2), as systemd would.
# Exit 77 (ctest: skipped) where that cannot be set up without root, except under CI=true.
set -euo pipefail
user=skillhost-svc-test
skip() {
  echo "skipped: $*"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "creating the service user needs root"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null ||
    skip "cannot create the user $user"
fi
uid=$(id -u "$user")
gid=$(id -g "$user")
binary=$1
shift
if ! setpriv --reuid="$uid" --regid="$gid" --clear-groups test -x "$binary"; then
  # A clone below a closed directory (a home of mode 0700): on a CI machine, open the way to it
  # for traversal only (x, never r); elsewhere say so and skip.
  [ "${CI:-}" = "true" ] || skip "$user cannot reach $binary (a directory above it is closed to others)"
  dir=$(dirname "$binary")
  while [ "$dir" != "/" ]; do
    chmod o+x "$dir"
    dir=$(dirname "$dir")
  done
  setpriv --reuid="$uid" --regid="$gid" --clear-groups test -x "$binary" || skip "$user cannot reach $binary"
fi

# A delegated cgroup: a group of the service user's own, with this script moved into it.
leaves=()
delegate() {  # hierarchy-root own-path
  local dir="$1$2/skillhost-svc-$$"
  mkdir -p "$dir"
  chown -R "$uid:$gid" "$dir"
  echo $$ > "$dir/cgroup.procs"
  leaves+=("$dir")
}
own() { sed -n "s/^[0-9]*:$1:\(.*\)$/\1/p" /proc/self/cgroup | head -1; }
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  delegate /sys/fs/cgroup "$(own '')"
else
  [ -d /sys/fs/cgroup/memory ] && delegate /sys/fs/cgroup/memory "$(own memory)"
  [ -d /sys/fs/cgroup/pids ] && delegate /sys/fs/cgroup/pids "$(own pids)"
fi
cleanup() {
  for dir in "${leaves[@]}"; do
    echo $$ > "$(dirname "$dir")/cgroup.procs" 2>/dev/null || true
    find "$dir" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
    rmdir "$dir" 2>/dev/null || true
  done
}
trap cleanup EXIT
home=$(mktemp -d)
chown "$uid:$gid" "$home"
status=0
HOME=$home TMPDIR=/tmp setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all \
  "$binary" "$@" || status=$?
rm -rf "$home"
exit $status
