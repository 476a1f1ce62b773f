#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The dump is written however the program ends; SIGQUIT dumps without stopping it;
# the program's exit status never changes.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent cpu=samples,file=r.txt)" Lifecycle return
check "return from main: exit 0 and a dump" bash -c "[[ $RC -eq 0 ]] && grep -q '^CPU SAMPLES END' r.txt"
WITH="$RC"

run_java "$(agent cpu=samples,file=e.txt)" Lifecycle exit-thread 7
check "System.exit(7) from another thread: status 7 and a dump" bash -c "[[ $RC -eq 7 ]] && grep -q '^CPU SAMPLES END' e.txt"
check "System.exit: the exiting thread's work is in the profile" bash -c "grep -q 'Lifecycle.busy' e.txt"
WITH="$WITH $RC"

run_java "$(agent cpu=samples,file=t.txt)" Lifecycle throw
check "uncaught exception: status 1, the stack trace printed, and a dump" bash -c "[[ $RC -eq 1 ]] && grep -q 'IllegalStateException: thrown on purpose' out.txt && grep -q '^CPU SAMPLES END' t.txt"
WITH="$WITH $RC"

# The same three without the agent: the statuses must be the same.
set +e
WITHOUT=
for how in return "exit-thread 7" throw; do
  "$JAVA" -cp "$TEST_CLASSES" Lifecycle $how >/dev/null 2>&1
  WITHOUT="${WITHOUT:+$WITHOUT }$?"
done
set -e
check "same exit statuses as without the agent (return, System.exit(7), throw: $WITH; without: $WITHOUT)" \
  test "$WITH" = "$WITHOUT"

# SIGTERM
set +e
"$JAVA" -Xcheck:jni "$(agent cpu=samples,file=term.txt)" -cp "$TEST_CLASSES" Lifecycle run 60 >out.txt 2>&1 &
JPID=$!
for _ in $(seq 100); do grep -q ready out.txt 2>/dev/null && break; sleep 0.1; done
sleep 0.5
kill -TERM $JPID
wait $JPID; RC=$?
set -e
check "SIGTERM: status 143 and a dump" bash -c "[[ $RC -eq 143 ]] && grep -q '^CPU SAMPLES END' term.txt"

# SIGQUIT, twice: two dumps while running, then the one at exit, all in one file.
set +e
"$JAVA" -Xcheck:jni "$(agent cpu=samples,file=q.txt)" -cp "$TEST_CLASSES" Lifecycle run 4 >out.txt 2>&1 &
JPID=$!
for _ in $(seq 100); do grep -q ready out.txt 2>/dev/null && break; sleep 0.1; done
sleep 1; kill -QUIT $JPID
sleep 1; kill -QUIT $JPID
wait $JPID; RC=$?
set -e
check "SIGQUIT does not stop the program" bash -c "[[ $RC -eq 0 ]] && grep -q '^finished run' out.txt"
check "two SIGQUITs + exit: three CPU SAMPLES sections" test "$(cpu_sections q.txt)" -eq 3
check "each section is complete and in order" bash -c "[[ \$(grep -c '^CPU SAMPLES END' q.txt) -eq 3 ]] && awk '/^CPU SAMPLES BEGIN/{if(open)bad=1;open=1} /^CPU SAMPLES END/{open=0} END{exit bad||open}' q.txt"
check "each section shows the busy method first" bash -c "for n in 1 2 3; do awk -v want=\$n '/^CPU SAMPLES BEGIN/{k++} k==want&&\$1==1{print \$6; exit}' q.txt | grep -q 'Lifecycle.busy' || exit 1; done"
check "traces are written once across sections" bash -c "grep -q '^TRACE ' q.txt && ! grep '^TRACE ' q.txt | sort | uniq -d | grep -q ."
check "three Dumping lines on stderr" test "$(grep -c '^Dumping CPU usage by sampling running threads ... done.$' out.txt)" -eq 3
jni_clean
