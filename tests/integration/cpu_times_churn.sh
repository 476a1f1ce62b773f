#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=times (its timing=gprof too) and cpu=old keep memory for live threads only (tests/java/ThreadChurn.java):
# short threads started one after another, in a 256 MiB heap, run to the end; every call
# of their body is counted exactly; the heap in use once a tenth of them have run and at
# the end differ by less than 8 MiB (the Tracker kept a 128 KiB buffer for every thread
# that ever ran: 2,000 threads took 256 MiB); the agent made few call stacks (it made one
# for every thread, never freed: HPROF_STACK_STATS says how many).
# Platform threads on every JDK, virtual threads where the JDK has them (21+).
# The counts are CI-sized (a 2-core machine, two JDKs); the full ones of the issue (100,000
# platform threads, 1,000,000 virtual threads) are CHURN_PLATFORM / CHURN_VIRTUAL, or
# bench/churn.sh, which also prints the times.
source "$(dirname "$0")/../lib/common.sh"

PLATFORM=${CHURN_PLATFORM:-10000}
VIRTUAL=${CHURN_VIRTUAL:-100000}
RUN_TIMEOUT=${CHURN_TIMEOUT:-900}

# body_calls MODE FILE: the calls of ThreadChurn.body the profile counted.
body_calls() {
  if [[ $1 == times* ]]; then
    awk '/^CPU TIME \(ms\) BEGIN/ { i = 1; next } /^CPU TIME \(ms\) END/ { i = 0 }
         i && $6 == "ThreadChurn.body" { n += $4 } END { print n + 0 }' "$2"
  else
    awk 'index($2, "ThreadChurn.body(") == 1 { n += $1 } END { print n + 0 }' "$2"
  fi
}
# heap_growth: bytes the heap in use grew by from a tenth of the run to its end.
heap_growth() { awk '/^threads [0-9]+ heap after a tenth/ { print $NF - $7 }' "$WORK/out.txt"; }
# stacks_made: the call stacks the agent made (HPROF_STACK_STATS).
stacks_made() { sed -n 's/^HPROF: cpu=times call stacks: \([0-9]*\) made.*/\1/p' "$WORK/out.txt"; }

# below LIMIT VALUE: VALUE is a number less than LIMIT.
below() { [[ $2 =~ ^-?[0-9]+$ ]] && (( $2 < $1 )); }
# ended N: the run exited 0 and printed its last line.
ended() { [[ $RC -eq 0 ]] && grep -q "^threads $1 " "$WORK/out.txt"; }

churn() {  # churn MODE KIND COUNT
  local mode=$1 kind=$2 n=$3 f="${1//[,=]/-}-$2.txt"
  HPROF_STACK_STATS=1 run_java -Xverify:all -Xmx256m "$(agent cpu=$mode,cutoff=0,file=$f)" ThreadChurn "$kind" "$n"
  local calls growth made
  calls=$(body_calls "$mode" "$f")
  growth=$(heap_growth)
  made=$(stacks_made)
  check "cpu=$mode, $n $kind threads one after another, -Xmx256m: the run ends (exit ${RC})" \
    ended "$n"
  ended "$n" || { echo "# its last lines:"; tail -15 "$WORK/out.txt" | sed 's/^/#   /'; }
  check "cpu=$mode, $kind: ThreadChurn.body counted $calls times, called $n times" [ "$calls" = "$n" ]
  check "cpu=$mode, $kind: the heap in use grew by ${growth:-?} bytes over nine tenths of the run (< 8 MiB)" \
    below 8388608 "$growth"
  if [[ $mode == *gprof ]]; then   # no call stacks: each thread counts on its own array
    check "cpu=$mode, $kind: no call stacks made (${made:-?})" test "${made:-0}" = 0
  else
    check "cpu=$mode, $kind: ${made:-?} call stacks made for $n threads (< 1000)" \
      below 1000 "$made"
  fi
}

churn times platform "$PLATFORM"
churn old platform "$PLATFORM"
churn times,timing=gprof platform "$PLATFORM"
if [[ $JDK_FEATURE -ge 21 ]]; then
  churn times virtual "$VIRTUAL"
  churn old virtual "$VIRTUAL"
  churn times,timing=gprof virtual "$VIRTUAL"
  # A virtual thread that found the Tracker's lock held (a Java monitor then) unmounted,
  # and its carrier, running the hook in Continuation.run's fence as that thread, waited
  # for the same monitor for good: half the runs of 200,000 under timing=gprof on JDK 25
  # hung. Three runs without -Xverify (faster, so more contention), each must end.
  for i in 1 2 3; do
    RUN_TIMEOUT=180 run_java "$(agent cpu=times,timing=gprof,cutoff=0,file=lock$i.txt)" ThreadChurn virtual 200000
    calls=$(body_calls times,timing=gprof "lock$i.txt")
    check "cpu=times,timing=gprof, 200000 virtual threads, run $i of 3: ends (exit $RC), body() counted $calls times" \
      eval "ended 200000 && [[ $calls == 200000 ]]"
  done
else
  skip "cpu=times and cpu=old, virtual threads one after another" "JDK $JDK_FEATURE has no virtual threads (JDK 21)"
fi
jni_clean
