#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net= with format=b: a session driven through the front end (build/hprof-front), one
# command after another, each answer checked with the project's reader (hprof-dump).
source "$(dirname "$0")/../lib/common.sh"
FRONT=$HPROF_BIN/hprof-front

# dumped: the records received so far, one a line.
dumped() { "$HPROF_DUMP" s.hprof 2>/dev/null; }
# samples N: the SAMPLE lines of the Nth CPU_SAMPLES record.
samples() { dumped | awk -v want="$1" '/^CPU_SAMPLES/ { n++; next } /^[A-Z]/ { if (n == want) exit } n == want && /^  SAMPLE/'; }
# samples_total N: the total of the Nth CPU_SAMPLES record.
samples_total() { dumped | awk -v want="$1" '/^CPU_SAMPLES/ { n++; if (n == want) { sub(/.*total=/, ""); sub(/ .*/, ""); print } }'; }
count_records() { dumped | grep -c "^$1" || true; }
send() { echo "$*" >&3; }
# wait_for N: until N CPU_SAMPLES records have arrived (10 s at most).
wait_for() { for _ in $(seq 100); do [[ $(count_records CPU_SAMPLES) -ge $1 ]] && return 0; sleep 0.1; done; return 1; }

# session OUT FRONT_OPTIONS OPTIONS JAVA_OPTIONS...: the front end reading commands from
# the FIFO cmds (fd 3: send), writing OUT, and NetServer (120 s) with the agent's OPTIONS
# and net= to it, once it says "started" (30 s at most). FPID and JPID are theirs.
session() {
  local out=$1 front=$2 opts=$3; shift 3
  rm -f cmds port.txt; mkfifo cmds
  "$FRONT" $front -P port.txt -o "$out" -t 120 <cmds 2>>front.err &
  FPID=$!
  exec 3>cmds
  for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
  set +e
  "$JAVA" -Xcheck:jni "$@" -cp "$TEST_CLASSES" "$(agent "$opts,format=b,net=127.0.0.1:$(cat port.txt)")" \
    NetServer 120000 >out.txt 2>&1 &
  JPID=$!
  set -e
  for _ in $(seq 300); do grep -qs '^started' out.txt && break; sleep 0.1; done
}
session s.hprof "" cpu=samples -Xlog:gc

send "pause 700"
# A cutoff no trace reaches (two threads spin at once), so that CPU SAMPLES writes no
# trace of its own and DUMP TRACES has them all still to write.
send "cpu samples 0.99"
send "traces"
wait_for 1
sleep 0.5
check "CPU SAMPLES: a CPU_SAMPLES record with samples" bash -c "[[ \$(samples_total() { \"$HPROF_DUMP\" s.hprof 2>/dev/null | awk '/^CPU_SAMPLES/ { sub(/.*total=/, \"\"); sub(/ .*/, \"\"); print; exit }'; }; samples_total) -gt 0 ]]"
# (the traces may still be on their way on a busy machine: wait up to 10 s for them)
for _ in $(seq 100); do
  dumped >d1.txt
  awk '/^CPU_SAMPLES/ { s = 1 } s && /^TRACE/ { t++ } END { exit !(t > 0) }' d1.txt && break
  sleep 0.1
done
check "DUMP TRACES: traces follow the first CPU_SAMPLES, all of them written" bash -c "
  awk '/^CPU_SAMPLES/ { s = 1 } s && /^TRACE/ { t++ } END { exit !(t > 0) }' d1.txt"
spin_a=$(sed -n 's/^START_THREAD serial=[0-9]* obj=\(0x[0-9a-f]*\) .*name="spin-a".*/\1/p' d1.txt)
check "START_THREAD of spin-a arrived (its object ID: $spin_a)" test -n "$spin_a"

# CPU sampling off for spin-a only: its samples stop, spin-b's go on.
send "cpu off $spin_a"
send "pause 100"
send "cpu clear"
send "pause 700"
send "cpu samples 0"
wait_for 2
samples 2 >s2.txt
check "CONTROL cpu off for one thread: no sample in spinA, some in spinB" bash -c "
  ! grep -Eq 'top=NetServer\\.(spinA|deep)' s2.txt && grep -q 'top=NetServer.spinB' s2.txt"

# On again, deeper stacks.
send "cpu on $spin_a"
send "depth 8"
send "cpu clear"
send "pause 700"
send "cpu samples 0"
wait_for 3
samples 3 >s3.txt
dumped >d3.txt
check "CONTROL cpu on for one thread: spinA is sampled again" grep -q 'top=NetServer.spinA' s3.txt
check "CONTROL depth 8: spin-a's traces now have 8 frames, none more" bash -c "
  awk '/^TRACE/ { sub(/.*nframes=/, \"\"); sub(/ .*/, \"\"); if (\$0 + 0 > m) m = \$0 + 0 } END { exit !(m == 8) }' d3.txt"
check "before the depth command, traces had at most 4 frames" bash -c "
  awk '/^TRACE/ { sub(/.*nframes=/, \"\"); sub(/ .*/, \"\"); if (\$0 + 0 > m) m = \$0 + 0 } END { exit !(m <= 4) }' d1.txt"

# Off for all, cleared: nothing is counted.
send "cpu off"
send "pause 100"
send "cpu clear"
send "pause 500"
send "cpu samples 0"
wait_for 4
check "CONTROL cpu off for all and clear: CPU_SAMPLES total=0" test "$(samples_total 4)" = 0
send "cpu on"

# The heap commands: a heap dump works whatever heap= says; sites need heap=sites.
send "gc"
send "dump heap"
send "sites 0.01"
send "heap summary"
send "alloc off"
send "alloc on"
send "pause 1000"
send "exit"
wait $JPID && RC=0 || RC=$?
exec 3>&-
wait $FPID && FRC=0 || FRC=$?
cat out.txt >>"$WORK/all-runs.txt"

check "FORCE GC: the VM ran a GC for JVMTI" grep -q 'Pause Full (JvmtiEnv ForceGarbageCollection)' out.txt
check "DUMP HEAP: a heap dump arrived (without heap=dump)" bash -c "[[ \$(\"$HPROF_DUMP\" s.hprof | grep -Ec '^HEAP_DUMP( |_SEGMENT)') -ge 1 ]]"
check "ALLOC SITES and HEAP SUMMARY without heap=sites: said once, nothing written" bash -c "
  [[ \$(grep -c 'needs heap=sites' out.txt) -eq 1 ]] && ! \"$HPROF_DUMP\" s.hprof | grep -Eq '^(ALLOC_SITES|HEAP_SUMMARY)'"
check "EXIT THE VM: status 0 before the program's own end" bash -c "[[ $RC -eq 0 ]] && grep -qx started out.txt && ! grep -q finished out.txt"
check "EXIT THE VM: said, and the final dump written" bash -c "
  grep -q 'HPROF: received exit event, exiting' out.txt && [[ \$(\"$HPROF_DUMP\" s.hprof | grep -c '^CPU_SAMPLES') -eq 5 ]]"
check "the whole session is a valid HPROF file" hprof_check s.hprof
check "the front end ended by itself with status 0 when the agent closed" test "$FRC" -eq 0
check "no bad-command warning in a clean session" bash -c "grep -qx started out.txt && ! grep -q 'bad command' out.txt"

# With heap=sites: ALLOC SITES with its cutoff, HEAP SUMMARY, allocation counting off and on.
# Driven by what arrives, not by pauses: on a loaded machine (or under ASan) the program's
# threads may not allocate for seconds after it starts.
h_dumped() { "$HPROF_DUMP" h.hprof 2>/dev/null; }
# sites_objs N: alloc_objs of the Nth ALLOC_SITES record (empty until it has arrived).
sites_objs() { h_dumped | awk -v want="$1" '/^ALLOC_SITES/ { n++; if (n == want) { sub(/.*alloc_objs=/, ""); sub(/ .*/, ""); print } }'; }
# ask_sites N: sends "sites 0" and waits for the Nth ALLOC_SITES record (20 s at most).
ask_sites() {
  send "sites 0"
  for _ in $(seq 200); do [[ -n "$(sites_objs "$1")" ]] && return 0; sleep 0.1; done
  return 1
}
# sites_until_more N: asks again until the Nth record counts more objects than the one
# before it (20 tries), N going up; prints the last N.
sites_until_more() {
  local n=$1
  for _ in $(seq 20); do
    ask_sites "$n" || break
    (( $(sites_objs "$n") > $(sites_objs $((n - 1))) )) && break
    sleep 0.5; n=$((n + 1))
  done
  echo "$n"
}
session h.hprof -q heap=sites
send "sites 0.01"
send "heap summary"
ask_sites 2
n=$(sites_until_more 3)                 # the program is allocating now
send "alloc off"
sleep 0.3                               # allocations already past the switch land first
ask_sites $((n + 1))
sleep 1.5
ask_sites $((n + 2))
send "alloc on"
m=$(sites_until_more $((n + 3)))
send "exit"
wait $JPID && RC=0 || RC=$?
exec 3>&-
wait $FPID || true
cat out.txt >>"$WORK/all-runs.txt"
h_dumped >h.txt
check "heap=sites session: exit status 0, a valid file" bash -c "[[ $RC -eq 0 ]] && \"$HPROF_DUMP\" --check h.hprof >/dev/null"
check "ALLOC SITES: the record carries the command's cutoff (0.01)" bash -c "grep '^ALLOC_SITES' h.txt | head -1 | grep -q 'cutoff=0.01 '"
check "HEAP SUMMARY: one more HEAP_SUMMARY than the sites answers bring" bash -c "
  [[ \$(grep -c '^HEAP_SUMMARY' h.txt) -eq \$(( \$(grep -c '^ALLOC_SITES' h.txt) + 1 )) ]]"
before=$(sites_objs "$n"); a2=$(sites_objs $((n + 1))); a3=$(sites_objs $((n + 2))); a4=$(sites_objs "$m")
check "CONTROL alloc off: allocations stop counting ($before, then off: $a2 -> $a3 over 1.5 s), alloc on: they count again (-> $a4)" \
  bash -c "[[ -n '$a2' && '$a2' == '$a3' && '$before' -gt '$(sites_objs $((n - 1)))' && '$a4' -gt '$a3' ]]"

# The front end refuses what it cannot understand, and says how to get help.
printf 'frobnicate\ndepth -1\nsites 2.0\ncpu samples 0.1\n' | "$FRONT" -P port2.txt -o t.hprof -t 60 2>front2.err &
FPID=$!
for _ in $(seq 100); do [[ -s port2.txt ]] && break; sleep 0.1; done
run_java "$(agent "cpu=samples,format=b,net=127.0.0.1:$(cat port2.txt)")" NetServer 1500 quiet
wait $FPID && FRC=0 || FRC=$?
check "front end: bad lines reported (3), good ones sent, status 1" bash -c "
  [[ $FRC -eq 1 && \$(grep -c 'not understood' front2.err) -eq 3 ]] && grep -q 'type help' front2.err &&
  [[ \$(\"$HPROF_DUMP\" t.hprof | grep -c '^CPU_SAMPLES') -eq 2 ]] && [[ $RC -eq 4 ]]"
check "front end: help lists the commands and the CONTROL numbering" bash -c "
  \"$FRONT\" -h | grep -q 'cpu samples \\[CUTOFF\\]' && \"$FRONT\" -h | grep -q 'CONTROL numbers follow the manual'"
jni_clean
