# Sourced by bench/run, bench/wrk-check, bench/vs-go, bench/ab, bench/http-cpu, bench/full-node, bench/operator-scale and
# bench/scheduling-throughput (not run on its own): the build and the
# handling they share. Expects $root, the repository root.

bench_jar="$root/bench/target/schedulerops-bench.jar"

# The commit a results file was measured on: HEAD, and " plus uncommitted changes under PATH..." when any of the paths
# has changed or untracked files (a new class is a change too).
commit_line() {
  local dirty
  dirty=$(git -C "$root" status --porcelain -- "$@")
  printf '%s%s' "$(git -C "$root" rev-parse HEAD)" "${dirty:+ plus uncommitted changes under $*}"
}

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

# build_old_and_new_jars OLD_COMMIT WORK OLD_TREE: the bench jar of this checkout as WORK/new.jar, and of OLD_COMMIT,
# built in a temporary git worktree at OLD_TREE, as WORK/old.jar (Maven's output in WORK/maven-{new,old}.log). For
# the scripts that compare two revisions in one run (bench/ab, bench/http-cpu); they remove the worktree on exit
# with remove_old_tree.
build_old_and_new_jars() {
  local old_commit=$1 work=$2 old_tree=$3
  (cd "$root" && ./mvnw -B -ntp -q -pl extender,bench -am package -DskipTests -Dspotless.check.skip=true) \
    >"$work/maven-new.log" 2>&1
  cp "$bench_jar" "$work/new.jar"
  remove_old_tree "$old_tree"
  rm -rf "$old_tree"
  git -C "$root" worktree add --detach "$old_tree" "$old_commit" >/dev/null 2>&1
  (cd "$old_tree" && ./mvnw -B -ntp -q -pl extender,bench -am package -DskipTests -Dspotless.check.skip=true) \
    >"$work/maven-old.log" 2>&1
  cp "$old_tree/bench/target/schedulerops-bench.jar" "$work/old.jar"
}

remove_old_tree() {
  git -C "$root" worktree remove --force "$1" >/dev/null 2>&1 || true
}
