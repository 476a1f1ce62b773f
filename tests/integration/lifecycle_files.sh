#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing of the agent's stays behind, however the program ends (short of kill -9): not
# the Tracker's directory in $TMPDIR (cpu=times), not the JVM's own heap dump beside
# the output (heap=dump,format=b). Each run gets a fresh $TMPDIR and output directory.
source "$(dirname "$0")/../lib/common.sh"
export TMPDIR=$WORK/tmp

fresh() { rm -rf "$WORK/tmp" "$WORK/o"; mkdir "$WORK/tmp" "$WORK/o"; }
# left: what is in $TMPDIR and the output directory besides the profile itself.
left() { (cd "$WORK" && find tmp o -mindepth 1 ! -path o/p | tr '\n' ' '); }
# started OPTIONS CLASS ARGS...: the JVM in the background, once it has said "ready".
started() {
  local opts=$1; shift
  set +e
  "$JAVA" -Xcheck:jni "$(agent "$opts")" -cp "$TEST_CLASSES" "$@" >out.txt 2>&1 &
  JPID=$!
  for _ in $(seq 300); do grep -q '^ready' out.txt 2>/dev/null && break; sleep 0.1; done
  set -e
}
finished() { set +e; wait $JPID; RC=$?; set -e; cat out.txt >>all-runs.txt; }

# exits OPTIONS WHAT: each way of ending, with these options.
exits() {
  fresh
  run_java "$(agent "$1,file=/nonexistent-dir/p")" HotMethod 200
  check "$2, start-up fails (the file cannot be opened): status 1, nothing left [$(left)]" \
    bash -c "[[ $RC -eq 1 && -z '$(left)' ]]"

  fresh
  run_java "$(agent "$1,file=$WORK/o/p")" Lifecycle exit-thread 7
  check "$2, System.exit(7): status 7, the profile written, nothing else left [$(left)]" \
    bash -c "[[ $RC -eq 7 && -s o/p && -z '$(left)' ]]"

  fresh
  started "$1,file=$WORK/o/p" Lifecycle run 60
  sleep 0.5
  kill -TERM $JPID
  finished
  check "$2, SIGTERM: status 143, the profile written, nothing else left [$(left)]" \
    bash -c "[[ $RC -eq 143 && -s o/p && -z '$(left)' ]]"

  fresh
  run_java -Xmx32m -XX:+ExitOnOutOfMemoryError "$(agent "$1,file=$WORK/o/p")" WaitStorm 10 5000
  check "$2, an OOM exit (-XX:+ExitOnOutOfMemoryError): status 3, nothing else left [$(left)]" \
    bash -c "[[ $RC -eq 3 && -z '$(left)' ]] && grep -q 'Terminating due to java.lang.OutOfMemoryError' out.txt"
}
exits cpu=times "cpu=times"
exits heap=dump,format=b "heap=dump,format=b"

# SIGTERM while the JVM writes its own dump for a SIGQUIT: the exit waits for it.
fresh
started "heap=dump,format=b,file=$WORK/o/p" WaitStorm 10 2000 60000
kill -QUIT $JPID
seen=0
for _ in $(seq 250); do ls -A o | grep -q '^\.hprof-jvm-dump' && { seen=1; break; }; sleep 0.02; done
kill -TERM $JPID
finished
check "SIGTERM during a SIGQUIT heap dump: the JVM's dump was under way when it came" test "$seen" -eq 1
check "SIGTERM during a SIGQUIT heap dump: status 143, nothing else left [$(left)]" \
  bash -c "[[ $RC -eq 143 && -s o/p && -z '$(left)' ]]"
jni_clean
