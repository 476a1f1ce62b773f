#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# monitor=y on java.util.concurrent (src/sources/monitor/juc_waits.c): tests/java/JucLocks
# with known answers. A lock handed over N times is N contentions in MONITOR TIME, each
# as long as its holder held it (ReentrantLock, ReentrantReadWriteLock's write lock
# waiting for a reader, Semaphore, StampedLock); N Condition.await and N take() on an
# empty queue are N waits in MONITOR WAIT TIME, not contention; MONITOR DUMP names a
# j.u.c lock's owner and waiters; virtual threads are named with thread=y (JDK 21+);
# an agent attached late rewrites the classes then; pprof read with go tool pprof; the fast
# walk finds GetStackTrace's traces; rolling windows add up to the exact counts; a second
# session on one JVM counts from zero.
# Classes are rewritten: every run has -Xverify:all (and -Xcheck:jni, as always).
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"

N=10 HOLD=30
# juc_row FILE SECTION CLASS: "count trace" of the first row of SECTION for CLASS (j.u.c).
juc_row() {
  sed -n "/^$2 BEGIN/,/^$2 END/p" "$1" | awk -v c="$3 (j.u.c)" 'substr($0, length($0) - length(c) + 1) == c { print $4, $5; exit }'
}
# juc_ms FILE SECTION CLASS: the row's time in ms, from its share of the section's total.
juc_ms() {
  local total; total=$(sed -n "s/^$2 BEGIN (total = \([0-9]*\) ms).*/\1/p" "$1")
  sed -n "/^$2 BEGIN/,/^$2 END/p" "$1" |
    awk -v c="$3 (j.u.c)" -v t="${total:-0}" 'substr($0, length($0) - length(c) + 1) == c { printf "%d\n", $2 * t / 100; exit }'
}
# frames FILE TRACE: the trace's frames, one a line, without the line numbers.
frames() { awk -v s="TRACE $2:" 'index($0,s)==1{i=1;next} /^[^\t]/{i=0} i{sub(/^\t/,""); sub(/\(.*/,""); print}' "$1"; }
export -f frames

declare -A CLASS=([lock]='java.util.concurrent.locks.ReentrantLock$NonfairSync'
                  [rw]='java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync'
                  [sem]='java.util.concurrent.Semaphore$NonfairSync'
                  [stamped]='java.util.concurrent.locks.StampedLock')
declare -A TOP=([lock]='java.util.concurrent.locks.ReentrantLock.lock'
                [rw]='java.util.concurrent.locks.ReentrantReadWriteLock$WriteLock.lock'
                [sem]='java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared java.util.concurrent.Semaphore.acquireUninterruptibly'
                [stamped]='java.util.concurrent.locks.StampedLock.writeLock')

for kind in lock rw sem stamped; do
  run_java -Xverify:all "$(agent monitor=y,file=$kind.txt)" JucLocks $kind $N $HOLD
  cls=${CLASS[$kind]}
  read -r count trace < <(juc_row $kind.txt 'MONITOR TIME' "$cls") || true
  held=$(sed -n 's/^held \([0-9]*\) ms$/\1/p' out.txt)
  ms=$(juc_ms $kind.txt 'MONITOR TIME' "$cls")
  check "$kind: program output and exit status unchanged" bash -c "[[ $RC -eq 0 ]] && grep -qx 'done $kind $N' out.txt"
  check "$kind: MONITOR TIME has $N contentions of $cls (j.u.c) (saw ${count:-none})" test "${count:-0}" = $N
  tr ' ' '\n' <<<"${TOP[$kind]}" >want.txt
  frames $kind.txt "${trace:-0}" >got.txt
  check "$kind: the trace starts at ${TOP[$kind]%% *} (the j.u.c frames below folded), then JucLocks" \
    bash -c "head -\$(wc -l <want.txt) got.txt | cmp -s - want.txt && grep -q '^JucLocks' got.txt"
  # The accounting, with room for a loaded machine: at least 90% of what main held it
  # once the contender was parked, and not twice that.
  check "$kind: contention time ${ms:-?} ms against $held ms held (90%..200%)" \
    bash -c "[[ -n '$held' && -n '$ms' ]] && (( ${ms:-0} * 10 >= ${held:-1} * 9 && ${ms:-0} <= ${held:-0} * 2 ))"
  check "$kind: no wait row for the lock" \
    bash -c "! sed -n '/^MONITOR WAIT TIME BEGIN/,/^MONITOR WAIT TIME END/p' $kind.txt | grep -qF '$cls (j.u.c)'"
done

COND='java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject'
for kind in await take; do
  run_java -Xverify:all "$(agent monitor=y,file=$kind.txt)" JucLocks $kind $N $HOLD
  read -r count trace < <(juc_row $kind.txt 'MONITOR WAIT TIME' "$COND") || true
  check "$kind: program output and exit status unchanged" bash -c "[[ $RC -eq 0 ]] && grep -qx 'done $kind $N' out.txt"
  check "$kind: MONITOR WAIT TIME has $N waits on the ConditionObject (saw ${count:-none})" test "${count:-0}" = $N
  check "$kind: none in MONITOR TIME" bash -c "! sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' $kind.txt | grep -qF '$COND'"
  second=JucLocks.lambda\$waits; [[ $kind == take ]] && second=java.util.concurrent.LinkedBlockingQueue.take
  frames $kind.txt "${trace:-0}" | head -2 >top2.txt
  check "$kind: the trace is ConditionObject.await, then ${second}" \
    bash -c "[[ \"\$(head -1 top2.txt)\" == '$COND.await' && \"\$(sed -n 2p top2.txt)\" == '$second'* ]]"
done

# The park's stack is walked with AsyncGetCallTrace; HPROF_JVMTI_STACKS=1 takes it with
# GetStackTrace: the same folded traces either way, with the default depth and a deeper one.
for kind in lock take; do
  for d in 4 12; do
    run_java -Xverify:all "$(agent monitor=y,depth=$d,file=fast-$kind-$d.txt)" JucLocks $kind $N 5
    HPROF_JVMTI_STACKS=1 run_java -Xverify:all "$(agent monitor=y,depth=$d,file=jvmti-$kind-$d.txt)" JucLocks $kind $N 5
    sec='MONITOR TIME' cls=${CLASS[lock]}
    [[ $kind == take ]] && sec='MONITOR WAIT TIME' cls=$COND
    read -r c1 t1 < <(juc_row fast-$kind-$d.txt "$sec" "$cls") || true
    read -r c2 t2 < <(juc_row jvmti-$kind-$d.txt "$sec" "$cls") || true
    # (a lambda's hidden class is named by an address of its run: not compared)
    frames fast-$kind-$d.txt "${t1:-0}" | sed 's/\$\$Lambda.*\.\([^.]*\)$/$$Lambda.\1/' >fast.txt
    frames jvmti-$kind-$d.txt "${t2:-0}" | sed 's/\$\$Lambda.*\.\([^.]*\)$/$$Lambda.\1/' >jvmti.txt
    check "$kind, depth=$d: the fast walk's trace ($(wc -l <fast.txt) frames) and count ($c1) are GetStackTrace's ($c2)" \
      bash -c "[[ '${c1:-0}' == $N && '${c2:-0}' == $N ]] && [[ -s fast.txt ]] && cmp -s fast.txt jvmti.txt && (( \$(wc -l <fast.txt) <= $d ))"
  done
done

# One thread waiting at two places on two locks of one class, and at a third on two
# Semaphores of two classes, in turn: each in its own row (the agent keeps a thread's
# last place, object and class).
run_java -Xverify:all "$(agent monitor=y,depth=2,file=mixed.txt)" JucLocks mixed 5 5
# rows FILE: "count frame1|frame2 class" of each j.u.c row of MONITOR TIME, sorted.
rows() {
  sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' "$1" | awk '$NF == "(j.u.c)" { print $4, $5, $6 }' |
    while read -r c t k; do echo "$c $(frames "$1" "$t" | tr '\n' '|') $k"; done | sort
}
rows mixed.txt >mixed-rows.txt
cat >mixed-want.txt <<'WANT'
10 java.util.concurrent.locks.ReentrantLock.lock|JucLocks.siteA| java.util.concurrent.locks.ReentrantLock$NonfairSync
5 java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared|java.util.concurrent.Semaphore.acquireUninterruptibly| java.util.concurrent.Semaphore$FairSync
5 java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared|java.util.concurrent.Semaphore.acquireUninterruptibly| java.util.concurrent.Semaphore$NonfairSync
5 java.util.concurrent.locks.ReentrantLock.lock|JucLocks.siteB| java.util.concurrent.locks.ReentrantLock$NonfairSync
WANT
check "mixed: 10 waits at siteA (two ReentrantLocks), 5 at siteB, 5 and 5 on two Semaphores at siteS: $(tr '\n' ';' <mixed-rows.txt)" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx 'done mixed 5' out.txt && cmp -s mixed-rows.txt mixed-want.txt"

# A dump on SIGQUIT while main holds a ReentrantLock that two threads wait for and a
# third awaits a Condition of another lock.
set +e
"$JAVA" -Xcheck:jni -Xverify:all -cp "$TEST_CLASSES" "$(agent monitor=y,file=q.txt)" JucLocks dump 1500 >q.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -qs READY q.out && break; sleep 0.05; done
kill -QUIT $PID
wait $PID; QRC=$?
set -e
cat q.out >>"$WORK/all-runs.txt"
awk '/^MONITOR DUMP BEGIN/ { n++ } n == 1 { print } /^MONITOR DUMP END/ && n == 1 { exit }' q.txt >first.txt
tid() { sed -n "s/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name=\"$1\".*/\1/p" q.txt | head -1; }
main=$(tid main) c1=$(tid contender-1) c2=$(tid contender-2) waiter=$(tid waiter)
low=$(( c1 < c2 ? c1 : c2 )) high=$(( c1 < c2 ? c2 : c1 ))
check "SIGQUIT dump: program ends as it does" bash -c "[[ $QRC -eq 0 ]] && grep -qx 'done dump' q.out"
check "SIGQUIT dump: the ReentrantLock is owned by main once, both contenders wait to enter" bash -c "
  grep -A3 -x '    MONITOR Ljava/util/concurrent/locks/ReentrantLock\$NonfairSync;' first.txt | tr '\n' '|' |
  grep -qF \$'\towner: thread $main, entry count: 1|\twaiting to enter: thread $low, thread $high|\twaiting to be notified:|'"
check "SIGQUIT dump: the Condition is unowned, the waiter waits to be notified" bash -c "
  grep -A2 -x '    MONITOR Ljava/util/concurrent/locks/AbstractQueuedSynchronizer\$ConditionObject; unowned' first.txt |
  tr '\n' '|' | grep -qF \$'\twaiting to enter:|\twaiting to be notified: thread $waiter|'"
check "SIGQUIT dump: the parked threads are CW" bash -c "
  grep -Eq '^    THREAD $c1, trace [0-9]+, status: CW\$' first.txt && grep -Eq '^    THREAD $waiter, trace [0-9]+, status: CW\$' first.txt"

# pprof and collapsed: the contention's stacks and counts, read back with go tool pprof.
run_java -Xverify:all "$(agent monitor=y,view=collapsed+pprof,cutoff=0)" JucLocks lock $N $HOLD
check "view: collapsed has the $N contentions' stack, ReentrantLock.lock under JucLocks, the lock on top" bash -c "
  grep -q 'JucLocks\$1.contend;java.util.concurrent.locks.ReentrantLock.lock;lock java.util.concurrent.locks.ReentrantLock\$NonfairSync [0-9]*\$' java.hprof.monitor.collapsed"
if command -v go >/dev/null; then
  HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -raw java.hprof.monitor.pb.gz >raw.txt 2>&1 || true
  loc=$(sed -n 's/^ *\([0-9]*\): 0x0 M=1 lock java.util.concurrent.locks.ReentrantLock\$NonfairSync .*/\1/p' raw.txt | head -1)
  check "go tool pprof -raw: a sample of $N contentions whose top is the lock (location ${loc:-none})" \
    bash -c "[[ -n '$loc' ]] && grep -Eq '^ +[0-9]+ +$N: $loc ' raw.txt"
else
  not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
fi

# With cpu=times the tracker rewrites every class too: both rewrites compose.
run_java -Xverify:all "$(agent monitor=y,cpu=times,file=t.txt)" JucLocks lock $N $HOLD
read -r count _ < <(juc_row t.txt 'MONITOR TIME' "${CLASS[lock]}") || true
check "cpu=times with monitor=y: same output, $N contentions (saw ${count:-none})" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx 'done lock $N' out.txt && [[ '${count:-0}' == $N ]]"

# Virtual threads waiting on a ReentrantLock, named with thread=y.
if (( JDK_FEATURE >= 21 )); then
  run_java -Xverify:all "$(agent monitor=y,thread=y,file=v.txt)" JucLocks virtual 8 200
  sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' v.txt | grep -F "${CLASS[lock]} (j.u.c)" | awk '{ print $5 }' >vtraces.txt
  for t in $(cat vtraces.txt); do sed -n "s/^TRACE $t: (thread=\([0-9]*\))\$/\1/p" v.txt; done | sort -u >vthreads.txt
  virt=$(for s in $(cat vthreads.txt); do grep -c "^THREAD START (obj=[0-9a-f]*, id = $s, name=\"[^\"]*\", group=\"VirtualThreads\")" v.txt; done | grep -c 1)
  check "virtual threads: 8 contentions, one row each, of 8 virtual threads (saw $(wc -l <vtraces.txt) rows, $virt virtual)" \
    bash -c "[[ $RC -eq 0 ]] && grep -qx 'done virtual 8' out.txt && [[ \$(wc -l <vtraces.txt) -eq 8 && $virt -eq 8 ]]"
else
  skip "virtual threads on a ReentrantLock" "JDK $JDK_FEATURE has no virtual threads (JDK 21)"
fi

# Attached late: the classes are rewritten then; the stop turns the hooks off.
set +e
"$JAVA" -Xcheck:jni -Xverify:all -cp "$TEST_CLASSES" JucLocks attach 6 >a.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -qs READY a.out && break; sleep 0.05; done
hp start $PID monitor=y,file="$WORK/a.txt"
sleep 2
hp stop $PID
wait $PID; ARC=$?
set -e
cat a.out >>"$WORK/all-runs.txt"
read -r count trace < <(juc_row a.txt 'MONITOR TIME' "${CLASS[lock]}") || true
check "attach: program output unchanged" bash -c "[[ $ARC -eq 0 ]] && grep -qx 'done attach' a.out"
check "attach: 2 s of 20 ms holds are contentions of the ReentrantLock (saw ${count:-none})" test "${count:-0}" -ge 5
check "attach: the trace starts at ReentrantLock.lock" \
  bash -c "[[ \"\$(frames a.txt ${trace:-0} | head -1)\" == java.util.concurrent.locks.ReentrantLock.lock ]]"
# A rolling profile: 20 hand-overs of 150 ms and 20 awaits over a few 1 s windows; the
# windows' rows add up to exactly 20 (a wait is counted in the window it ends in).
# juc_sum DIR SECTION CLASS: the counts of CLASS's j.u.c rows in SECTION over DIR's files.
juc_sum() {
  for f in "$1"/*; do
    sed -n "/^$2 BEGIN/,/^$2 END/p" "$f" | awk -v c="$3 (j.u.c)" 'substr($0, length($0) - length(c) + 1) == c { n += $4 } END { print n + 0 }'
  done | awk '{ s += $1 } END { print s + 0 }'
}
for kind in lock await; do
  mkdir -p "$WORK/roll-$kind"
  run_java -Xverify:all "$(agent monitor=y,rotate=1,file=$WORK/roll-$kind/m-%t.txt)" JucLocks $kind 20 150
  sec='MONITOR TIME' cls=${CLASS[lock]}
  [[ $kind == await ]] && sec='MONITOR WAIT TIME' cls=$COND
  sum=$(juc_sum "$WORK/roll-$kind" "$sec" "$cls") nwin=$(ls "$WORK/roll-$kind" | wc -l)
  with=$(for f in "$WORK/roll-$kind"/*; do juc_row "$f" "$sec" "$cls"; done | grep -c .)
  check "rotate=1, $kind: program output unchanged, $nwin windows, $with of them with (j.u.c) rows" \
    bash -c "[[ $RC -eq 0 ]] && grep -qx 'done $kind 20' out.txt && (( $nwin >= 2 && $with >= 2 ))"
  check "rotate=1, $kind: the windows' $sec rows of $cls add up to exactly 20 ($sum)" test "$sum" = 20
done

# Sessions on one JVM: after a stop the hooks are off; a second session counts from zero.
# Each round holds the lock 20 ms at least, so a window of T ms has at most T/20 + 1 of
# them; its file has its own only (the first session's would about double the count).
set +e
"$JAVA" -Xcheck:jni -Xverify:all -cp "$TEST_CLASSES" JucLocks attach 12 >s.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -qs READY s.out && break; sleep 0.05; done
for n in 1 2; do
  t0=$(date +%s%N)
  hp start $PID monitor=y,file="$WORK/sess$n.txt"
  sleep 1.5
  hp stop $PID
  span[$n]=$(( ($(date +%s%N) - t0) / 1000000 ))
  sleep 1
done
wait $PID; SRC=$?
set -e
cat s.out >>"$WORK/all-runs.txt"
check "sessions: program output unchanged" bash -c "[[ $SRC -eq 0 ]] && grep -qx 'done attach' s.out"
for n in 1 2; do
  read -r count trace < <(juc_row sess$n.txt 'MONITOR TIME' "${CLASS[lock]}") || true
  check "session $n: its own contentions of the ReentrantLock, 5..$(( span[n] / 20 + 1 )) in ${span[n]} ms (saw ${count:-none}), the trace from ReentrantLock.lock" \
    bash -c "(( ${count:-0} >= 5 && ${count:-0} <= ${span[n]} / 20 + 1 )) && [[ \"\$(frames sess$n.txt ${trace:-0} | head -1)\" == java.util.concurrent.locks.ReentrantLock.lock ]]"
done
jni_clean
