# shellcheck shell=bash
# Runs "$@" with no descriptor above stderr: a daemon that inherits a lock (e2e/cluster's fd 9, or a caller's
# `flock FILE cmd`) would hold it until it exits, and every later taker of that lock would wait forever.
without_inherited_fds() {
  local fd
  for fd in /proc/self/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
  done
  exec "$@"
}
