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

# Whether process PID runs: exists and is not a zombie. A stopped daemon's parent is the machine's init, which may
# reap it seconds later (this machine's did every 2 s), and `kill -0` succeeds on a zombie until then.
pid_running() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
