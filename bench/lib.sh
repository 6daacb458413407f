# Sourced by bench/run, bench/wrk-check and bench/vs-go (not run on its own): the build and the background-server
# handling they share. Expects $root, the repository root.

bench_jar="$root/bench/target/schedulerops-bench.jar"

# Builds the bench jar (which shades the extender) from this checkout. One build: a failure stops the script.
build_bench_jar() {
  echo "== building $bench_jar"
  (cd "$root" && ./mvnw -q -pl extender,bench -am package -DskipTests)
}

# The server started last by start_server; stop_server ends it (also on exit: trap stop_server EXIT).
server_pid=""

# start_server LOG COMMAND...: runs COMMAND in the background with its output in LOG.
start_server() {
  local log=$1
  shift
  "$@" > "$log" 2>&1 &
  server_pid=$!
}

stop_server() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}

# wait_for_log LOG: waits up to 30 s for the server to print "ready" into LOG; fails if it does not.
wait_for_log() {
  for _ in $(seq 1 60); do
    grep -q "ready" "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  grep -q "ready" "$1"
}
