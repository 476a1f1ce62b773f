#!/usr/bin/env bash
# monitor=y: a known contention pattern (MonitorContention) shows the right traces and
# monitor classes with the right counts; MONITOR DUMP shows monitors and threads.
source "$(dirname "$0")/../lib/common.sh"

# monitor_rows FILE: the rows of the last MONITOR TIME section.
monitor_rows() {
  awk '/^MONITOR TIME BEGIN/ { rows = ""; inside = 1; next } /^MONITOR TIME END/ { inside = 0 }
       inside && $1 ~ /^[0-9]+$/ { rows = rows $0 "\n" } END { printf "%s", rows }' "$1"
}
# thread_id FILE NAME: the serial of the thread called NAME.
thread_id() { sed -n "s/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name=\"$2\".*/\1/p" "$1" | head -1; }

run_java "$(agent monitor=y,file=m.txt)" MonitorContention 10 30 300
check "program output and exit status unchanged" bash -c "[[ $RC -eq 3 ]] && grep -qx 'done 10 rounds' out.txt"
check "no warning that monitor=y is unsupported" bash -c "! grep -q 'not yet supported' out.txt"
check "verbose line names the monitor section" has_line out.txt '^Dumping contended monitor usage \.\.\. done\.$'
monitor_rows m.txt >rows.txt
check "MONITOR TIME header: total in ms and a date" \
  has_line m.txt '^MONITOR TIME BEGIN \(total = [0-9]+ ms\) [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'
check "column line" bash -c "grep -qx 'rank   self  accum   count trace monitor' m.txt"
check "rows have the original's layout (%4u %5.2f%% %5.2f%% %7u %5u class (Java))" bash -c "[[ -s rows.txt ]] &&
  awk '{ r = sprintf(\"%4d %5.2f%% %5.2f%% %7d %5d %s (Java)\", \$1, \$2, \$3, \$4, \$5, \$6); if (r != \$0) bad = 1 } END { exit bad }' rows.txt"
# The waiter waits through every round and more: its one wait is the longest time.
read -r _ _ _ count1 trace1 class1 _ < <(sed -n 1p rows.txt)
read -r _ _ _ count2 trace2 class2 _ < <(sed -n 2p rows.txt)
check "rank 1: the waiter's one wait on MonitorContention\$Signal" \
  bash -c "[[ '$class1' == 'MonitorContention\$Signal' && '$count1' == 1 ]]"
check "rank 1 trace: Object.wait called from MonitorContention.waiter" bash -c "
  [[ \"\$(trace_frames() { awk -v s='TRACE $trace1:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i{sub(/^\t/,\"\");print}' m.txt; }; trace_frames | head -1)\" =~ ^java\.lang\.Object\.wait0?\( ]] &&
  awk -v s='TRACE $trace1:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' m.txt | grep -q 'MonitorContention.waiter(MonitorContention.java:'"
check "rank 2: ten contended enters of MonitorContention\$Lock" \
  bash -c "[[ '$class2' == 'MonitorContention\$Lock' && '$count2' == 10 ]]"
check "rank 2 trace: its top frame is MonitorContention.enter" bash -c "
  awk -v s='TRACE $trace2:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' m.txt | head -1 | grep -q \$'^\tMonitorContention.enter(MonitorContention.java:[0-9]*)\$'"
check "no other row for the Lock (all ten enters share one trace)" \
  test "$(grep -c 'MonitorContention\$Lock (Java)' rows.txt)" -eq 1
total=$(sed -n 's/^MONITOR TIME BEGIN (total = \([0-9]*\) ms).*/\1/p' m.txt)
check "total ($total ms) covers at least the ten holds of 30 ms and the extra 300 ms wait" test "${total:-0}" -ge 600
check "every trace a section names is written before it" bash -c '
  awk "/^TRACE [0-9]+:/ { sub(/:.*/, \"\", \$2); seen[\$2] = 1 }
       /^MONITOR TIME BEGIN/ { s = 1; next } /^MONITOR TIME END/ { s = 0 }
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
check "MONITOR DUMP comes before MONITOR TIME" bash -c "
  [[ \$(grep -n '^MONITOR DUMP BEGIN' m.txt | cut -d: -f1) -lt \$(grep -n '^MONITOR TIME BEGIN' m.txt | cut -d: -f1) ]]"

# cutoff: the Lock has less than half of the time, so cutoff=0.5 keeps one row.
run_java "$(agent monitor=y,cutoff=0.5,file=c.txt)" MonitorContention 5 20 200
check "cutoff=0.5 keeps only the Signal row" bash -c "[[ $RC -eq 3 ]] && [[ \$(monitor_rows() { awk '/^MONITOR TIME BEGIN/{i=1;next} /^MONITOR TIME END/{i=0} i && \$1 ~ /^[0-9]+\$/' c.txt; }; monitor_rows | wc -l) -eq 1 ]] && grep -q 'MonitorContention\$Signal (Java)' c.txt"

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
