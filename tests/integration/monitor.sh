#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# monitor=y: a known contention pattern (MonitorContention) shows the right traces and
# monitor classes with the right counts; MONITOR TIME is contention only (as in the
# original), waits go to MONITOR WAIT TIME; MONITOR DUMP shows monitors and threads.
source "$(dirname "$0")/../lib/common.sh"

# monitor_rows FILE [SECTION]: the rows of the last SECTION (default MONITOR TIME), cut
# the way scripts usually cut a section: sed from "SECTION BEGIN" to "SECTION END".
monitor_rows() {
  local s=${2:-MONITOR TIME}
  sed -n "/$s BEGIN/,/$s END/p" "$1" |
    awk -v b="$s BEGIN" 'index($0, b) == 1 { rows = ""; next } $1 ~ /^[0-9]+$/ { rows = rows $0 "\n" }
                         END { printf "%s", rows }'
}
# thread_id FILE NAME: the serial of the thread called NAME.
thread_id() { sed -n "s/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name=\"$2\".*/\1/p" "$1" | head -1; }

run_java "$(agent monitor=y,file=m.txt)" MonitorContention 10 30 300
check "program output and exit status unchanged" bash -c "[[ $RC -eq 3 ]] && grep -qx 'done 10 rounds' out.txt"
check "no HPROF warning or error: monitor=y is supported and its events are on" \
  bash -c "grep -q 'done 10 rounds' out.txt && ! grep -Eq '^HPROF (WARNING|ERROR)' out.txt"
check "verbose line names the monitor section" has_line out.txt '^Dumping contended monitor usage \.\.\. done\.$'
monitor_rows m.txt >rows.txt
monitor_rows m.txt 'MONITOR WAIT TIME' >waits.txt
check "MONITOR TIME header: total in ms and a date" \
  has_line m.txt '^MONITOR TIME BEGIN \(total = [0-9]+ ms\) [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'
check "column line" bash -c "grep -qx 'rank   self  accum   count trace monitor' m.txt"
check "rows have the original's layout (%4u %5.2f%% %5.2f%% %7u %5u class (Java))" bash -c "[[ -s rows.txt && -s waits.txt ]] &&
  awk '{ r = sprintf(\"%4d %5.2f%% %5.2f%% %7d %5d %s (Java)\", \$1, \$2, \$3, \$4, \$5, \$6); if (r != \$0) bad = 1 } END { exit bad }' rows.txt waits.txt"
# MONITOR TIME is contention only: the Lock's ten contended enters, not the waiter's
# wait (which lasts longer than all of them together).
read -r _ _ _ count1 trace1 class1 _ < <(sed -n 1p rows.txt) || true
check "MONITOR TIME rank 1: ten contended enters of MonitorContention\$Lock" \
  bash -c "[[ '$class1' == 'MonitorContention\$Lock' && '$count1' == 10 ]]"
check "MONITOR TIME rank 1 trace: its top frame is MonitorContention.enter" bash -c "
  awk -v s='TRACE $trace1:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' m.txt | head -1 | grep -q \$'^\tMonitorContention.enter(MonitorContention.java:[0-9]*)\$'"
check "no other row for the Lock (all ten enters share one trace)" \
  test "$(grep -c 'MonitorContention\$Lock (Java)' rows.txt)" -eq 1
check "MONITOR TIME has no wait: no Signal row" bash -c "[[ -s rows.txt ]] && ! grep -q 'MonitorContention\$Signal' rows.txt"
# The waiter waits through every round and more: its one wait tops MONITOR WAIT TIME.
read -r _ _ _ wcount1 wtrace1 wclass1 _ < <(sed -n 1p waits.txt) || true
check "MONITOR WAIT TIME header: total in ms and a date" \
  has_line m.txt '^MONITOR WAIT TIME BEGIN \(total = [0-9]+ ms\) [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'
check "MONITOR WAIT TIME rank 1: the waiter's one wait on MonitorContention\$Signal" \
  bash -c "[[ '$wclass1' == 'MonitorContention\$Signal' && '$wcount1' == 1 ]]"
check "MONITOR WAIT TIME rank 1 trace: Object.wait called from MonitorContention.waiter" bash -c "
  [[ \"\$(trace_frames() { awk -v s='TRACE $wtrace1:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i{sub(/^\t/,\"\");print}' m.txt; }; trace_frames | head -1)\" =~ ^java\.lang\.Object\.wait0?\( ]] &&
  awk -v s='TRACE $wtrace1:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' m.txt | grep -q 'MonitorContention.waiter(MonitorContention.java:'"
check "MONITOR WAIT TIME has no contended enter: no Lock row" bash -c "[[ -s waits.txt ]] && ! grep -q 'MonitorContention\$Lock' waits.txt"
total=$(sed -n 's/^MONITOR TIME BEGIN (total = \([0-9]*\) ms).*/\1/p' m.txt)
wtotal=$(sed -n 's/^MONITOR WAIT TIME BEGIN (total = \([0-9]*\) ms).*/\1/p' m.txt)
check "MONITOR TIME total ($total ms): at least the ten holds of 30 ms, less than the wait" \
  bash -c "[[ ${total:-0} -ge 300 && ${total:-0} -lt ${wtotal:-0} ]]"
check "MONITOR WAIT TIME total ($wtotal ms): at least the ten holds and the extra 300 ms" test "${wtotal:-0}" -ge 600
check "every trace a section names is written before it" bash -c '
  awk "/^TRACE [0-9]+:/ { sub(/:.*/, \"\", \$2); seen[\$2] = 1 }
       /^MONITOR (WAIT )?TIME BEGIN/ { s = 1; next } /^MONITOR (WAIT )?TIME END/ { s = 0 }
       s && \$1 ~ /^[0-9]+\$/ && !(\$5 in seen) { bad = 1 }
       /^    THREAD [0-9]+, trace/ { t = \$4; sub(/,/, \"\", t); if (!(t in seen)) bad = 1 }
       END { exit bad }" m.txt'
waiter=$(thread_id m.txt waiter); contender=$(thread_id m.txt contender); main=$(thread_id m.txt main)
check "WAIT and WAITED lines for the waiter's Signal.wait()" bash -c "
  grep -qx 'WAIT: MONITOR LMonitorContention\$Signal;, timeout=0, thread $waiter' m.txt &&
  grep -Eq '^WAITED: MONITOR LMonitorContention\\\$Signal;, time_waited=[0-9]+, thread $waiter\$' m.txt"
check "MONITOR DUMP at exit lists every thread, ended ones as ZO" bash -c "
  grep -qx 'MONITOR DUMP BEGIN' m.txt && grep -qx 'MONITOR DUMP END' m.txt &&
  grep -qx '    THREAD $waiter, trace 300000, status: ZO' m.txt &&
  grep -qx '    THREAD $contender, trace 300000, status: ZO' m.txt &&
  [[ \$(grep -c '^THREAD START' m.txt) -eq \$(grep -c '^    THREAD [0-9]*, trace [0-9]*, status: ' m.txt) ]]"
check "MONITOR DUMP, then MONITOR TIME, then MONITOR WAIT TIME" bash -c "
  [[ \$(grep -n '^MONITOR DUMP BEGIN' m.txt | cut -d: -f1) -lt \$(grep -n '^MONITOR TIME BEGIN' m.txt | cut -d: -f1) &&
     \$(grep -n '^MONITOR TIME END' m.txt | cut -d: -f1) -lt \$(grep -n '^MONITOR WAIT TIME BEGIN' m.txt | cut -d: -f1) ]]"

# A long join and a long timed wait next to brief contention: MONITOR TIME lists the
# contention alone, the join tops MONITOR WAIT TIME.
run_java "$(agent monitor=y,file=j.txt)" MonitorJoin 1500 5 20
monitor_rows j.txt >jrows.txt
monitor_rows j.txt 'MONITOR WAIT TIME' >jwaits.txt
read -r _ _ _ jcount1 _ jclass1 _ < <(sed -n 1p jrows.txt) || true
check "join next to contention: program output unchanged" bash -c "[[ $RC -eq 0 ]] && grep -qx joined out.txt"
check "join next to contention: MONITOR TIME is the Lock's 5 contended enters alone" \
  bash -c "[[ \$(wc -l <jrows.txt) -eq 1 && '$jclass1' == 'MonitorContention\$Lock' && '$jcount1' == 5 ]] || { cat jrows.txt; false; }"
jtotal=$(sed -n 's/^MONITOR TIME BEGIN (total = \([0-9]*\) ms).*/\1/p' j.txt)
check "join next to contention: MONITOR TIME total ($jtotal ms) is the contention's, far under the join" \
  bash -c "[[ ${jtotal:-0} -ge 100 && ${jtotal:-0} -lt 1000 ]]"
read -r _ _ _ jwcount1 _ jwclass1 _ < <(sed -n 1p jwaits.txt) || true
check "join next to contention: MONITOR WAIT TIME rank 1 is the join (java.lang.Thread), then the Signal" \
  bash -c "[[ '$jwclass1' == java.lang.Thread && '$jwcount1' -ge 1 ]] && grep -q ' MonitorJoin\$Signal (Java)\$' jwaits.txt"

# cutoff applies to both sections: the Lock alone in MONITOR TIME, and in MONITOR WAIT
# TIME the Signal (the joins of threads that are about to end are short).
run_java "$(agent monitor=y,cutoff=0.5,file=c.txt)" MonitorContention 5 20 200
monitor_rows c.txt >crows.txt
monitor_rows c.txt 'MONITOR WAIT TIME' >cwaits.txt
check "cutoff=0.5: one row in each section, each of 50% or more" bash -c "[[ $RC -eq 3 &&
  \$(wc -l <crows.txt) -eq 1 && \$(wc -l <cwaits.txt) -eq 1 ]] && grep -q 'MonitorContention\$Lock (Java)' crows.txt &&
  grep -q 'MonitorContention\$Signal (Java)' cwaits.txt && awk '\$2 + 0 < 50 { bad = 1 } END { exit bad }' crows.txt cwaits.txt"

# A dump on SIGQUIT while main holds the Lock, the contender is blocked and the waiter waits.
set +e
"$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" "$(agent monitor=y,file=q.txt)" MonitorContention 3 30 100 dump >q.out 2>&1 &
PID=$!
for _ in $(seq 200); do grep -qs READY q.out && break; sleep 0.05; done
kill -QUIT $PID
wait $PID; QRC=$?
set -e
cat q.out >>"$WORK/all-runs.txt"
awk '/^MONITOR DUMP BEGIN/ { n++ } n == 1 { print } /^MONITOR DUMP END/ && n == 1 { exit }' q.txt >first.txt
qmain=$(thread_id q.txt main); qwaiter=$(thread_id q.txt waiter); qcont=$(thread_id q.txt contender)
check "SIGQUIT dump: program still ends with its status" bash -c "[[ $QRC -eq 3 ]] && grep -qx 'done 3 rounds' q.out"
check "SIGQUIT dump: the Lock is owned by main once, the contender waits to enter" bash -c "
  grep -A3 -x '    MONITOR LMonitorContention\$Lock;' first.txt | tr '\n' '|' |
  grep -qF \$'\towner: thread $qmain, entry count: 1|\twaiting to enter: thread $qcont|\twaiting to be notified:|'"
check "SIGQUIT dump: the Signal is unowned, the waiter waits to be notified" bash -c "
  grep -A2 -x '    MONITOR LMonitorContention\$Signal; unowned' first.txt | tr '\n' '|' |
  grep -qF \$'\twaiting to enter:|\twaiting to be notified: thread $qwaiter|'"
check "SIGQUIT dump: thread states MW (contender), CW (waiter), SL (main)" bash -c "
  grep -Eq '^    THREAD $qcont, trace [0-9]+, status: MW\$' first.txt &&
  grep -Eq '^    THREAD $qwaiter, trace [0-9]+, status: CW\$' first.txt &&
  grep -Eq '^    THREAD $qmain, trace [0-9]+, status: SL\$' first.txt"
check "SIGQUIT dump, then the exit dump: two MONITOR DUMP sections" test "$(grep -c '^MONITOR DUMP BEGIN' q.txt)" -eq 2

# Many threads (virtual ones on JDK 21+, which may move between carriers while blocked)
# fighting over one lock and waiting on it: nothing breaks, the lock is reported.
run_java "$(agent monitor=y,file=v.txt)" MonitorVirtual 100 20
check "100 threads on one lock: same output, MONITOR TIME names java.lang.Object" bash -c "
  [[ $RC -eq 0 ]] && grep -qx 'count 2000' out.txt && grep -q '^MONITOR DUMP END' v.txt &&
  awk '/^MONITOR TIME BEGIN/{i=1;next} /^MONITOR TIME END/{i=0} i && / java.lang.Object \\(Java\\)\$/ { n++ } END { exit !(n > 0) }' v.txt"

# format=b with monitor=y stays an option error.
run_java "$(agent monitor=y,format=b)" HotMethod 100
check "format=b with monitor=y: option error, exit 1" bash -c "[[ $RC -eq 1 ]] && grep -q 'monitor=y is not supported with format=b' out.txt"
jni_clean
