#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=times,timing=gprof: every call counted by the calling thread itself (no events, no
# clock), the times taken from CPU samples. The counts are exact as in the other timings:
# known calls by caller (tests/java/TimedCalls.java: a side thread, exceptions that unwind
# several frames), 5,000-deep recursion and some 250 traces at depth 12, more than a
# thread's first stack and table hold (tests/java/DeepCalls.java); the program's behaviour
# unchanged under -Xverify:all. The time of a method that does real work is its samples:
# inner() of tests/java/CallTimes.java (about 200 ms of CPU) within 30% of what the
# program measured, with interval=1; the rows are the program's threads' only (no JIT or
# VM threads, none of the Tracker's own frames, none of the JDK methods its hooks call);
# beside exact heap=sites under -Xverify:all, no -Xcheck:jni warning.
source "$(dirname "$0")/../lib/common.sh"

calls() { cpu_time_calls "$@"; } # FILE METHOD CALLER_REGEX (tests/lib/common.sh)
# ms FILE METHOD: the time of METHOD's rows, in ms (each row's share of the total).
ms() {
  awk -v m="$2" '/^CPU TIME \(ms\) BEGIN/ { match($0, /total = [0-9]+/); total = substr($0, RSTART + 8, RLENGTH - 8); i = 1; next }
    /^CPU TIME \(ms\) END/ { i = 0 }
    i && $6 == m { p = $2; sub("%", "", p); s += p * total / 100 }
    END { printf "%.1f\n", s }' "$1"
}
is() { [[ $1 == "$2" ]]; }

set +e
BASE=$("$JAVA" -cp "$TEST_CLASSES" TimedCalls 2>&1)
set -e
run_java -Xverify:all "$(agent cpu=times,timing=gprof,cutoff=0,file=t.txt)" TimedCalls
check "same output and status as without the agent ($BASE)" bash -c "[[ $RC -eq 0 && '$BASE' == 'sum '* ]] && grep -qxF '$BASE' out.txt"
check "CPU TIME (ms) section" bash -c "grep -Eq '^CPU TIME \\(ms\\) BEGIN \\(total = [0-9]+\\) ' t.txt && grep -qx 'CPU TIME (ms) END' t.txt"
check "leaf() called 123450 times from mid(): $(calls t.txt TimedCalls.leaf '^TimedCalls.mid$')" \
  is "$(calls t.txt TimedCalls.leaf '^TimedCalls.mid$')" 123450
check "mid() called 12345 times from main(): $(calls t.txt TimedCalls.mid '^TimedCalls.main$')" \
  is "$(calls t.txt TimedCalls.mid '^TimedCalls.main$')" 12345
check "leaf() called 777 times from other() on the side thread: $(calls t.txt TimedCalls.leaf '^TimedCalls.other$')" \
  is "$(calls t.txt TimedCalls.leaf '^TimedCalls.other$')" 777
check "catcher() once, thrower() 100 times from it and 300 from itself (exceptions unwind)" \
  is "$(calls t.txt TimedCalls.catcher .)/$(calls t.txt TimedCalls.thrower '^TimedCalls.catcher$')/$(calls t.txt TimedCalls.thrower '^TimedCalls.thrower$')" 1/100/300
grep -P '^\tTimedCalls\.' t.txt >frames.txt || true
check "frames show Unknown line, as cpu=times' do" bash -c "[[ -s frames.txt ]] && ! grep -v 'TimedCalls.java:Unknown line)\$' frames.txt"
check "no rows of the JVM's own threads or of the Tracker" \
  bash -c "! awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i' t.txt | grep -Eq '\\[(VM|JIT compiler|GC)\\]|hprof\\.Tracker'"

run_java -Xverify:all "$(agent cpu=times,timing=gprof,depth=12,cutoff=0,file=d.txt)" DeepCalls
check "DeepCalls: same output (exit $RC)" bash -c "[[ $RC -eq 0 ]] && grep -qx 'deep 68315' out.txt"
check "down() 7 calls from main, 35000 from itself; leaf() 21 from down()" \
  is "$(calls d.txt DeepCalls.down '^DeepCalls.main$')/$(calls d.txt DeepCalls.down '^DeepCalls.down$')/$(calls d.txt DeepCalls.leaf '^DeepCalls.down$')" 7/35000/21
check "pick() 5120 calls from main and 51200 from p0/p1; p0 and p1 56320; leaf() 5120 from them" \
  is "$(calls d.txt DeepCalls.pick '^DeepCalls.main$')/$(calls d.txt DeepCalls.pick '^DeepCalls.p[01]$')/$(($(calls d.txt DeepCalls.p0 .) + $(calls d.txt DeepCalls.p1 .)))/$(calls d.txt DeepCalls.leaf '^DeepCalls.p[01]$')" \
  5120/51200/56320/5120
check "depth=12: over 200 traces of pick/p0/p1 (more than a thread's first table holds)" \
  bash -c "(( \$(awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i && \$6 ~ /^DeepCalls\\.(pick|p0|p1)\$/' d.txt | wc -l) > 200 ))"

run_java -Xverify:all "$(agent cpu=times,timing=gprof,interval=1,depth=6,cutoff=0,file=c.txt)" CallTimes
want=$(sed -n 's/^inner 500 calls //p' out.txt)
got=$(ms c.txt CallTimes.inner)
check "CallTimes: inner() 500 calls, tiny() 54321 (all callers)" \
  is "$(calls c.txt CallTimes.inner .)/$(calls c.txt CallTimes.tiny '^CallTimes.p[01]$')" 500/54321
check "inner(): ${got} ms from samples, the program measured ${want:-?} ms (within 30%)" \
  awk -v g="$got" -v w="${want:-0}" 'BEGIN { exit !(w > 0 && g >= w * 0.7 && g <= w * 1.3) }'

# A tiny method called all the time: the Tracker's share of the samples is large, and the
# JDK methods its hooks call (Thread.getId, then threadId) are its own time too, not rows.
run_java "$(agent cpu=times,timing=gprof,interval=1,cutoff=0,file=h.txt)" InlinedHot 1500
check "InlinedHot: hot() counted ($(calls h.txt InlinedHot.hot .)), no row of what the Tracker calls" \
  bash -c "[[ $RC -eq 0 ]] && (( $(calls h.txt InlinedHot.hot .) > 1000000 )) &&
    ! awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i' h.txt | grep -Eq ' java\\.lang\\.Thread\\.(getId|threadId|currentThread)\$'"

# Beside exact heap=sites, under -Xverify:all: the classes' retransformation at start-up
# left local references that the signal sampler's start found counted against its own
# (-Xcheck:jni: "JNI local refs: 1386, exceeds capacity: 1268"; jni_clean below).
run_java -Xverify:all "$(agent heap=sites,cpu=times,timing=gprof,cutoff=0,file=hs.txt)" TimedCalls
check "with heap=sites: same output, leaf() 123450 calls from mid(), a SITES section" \
  bash -c "[[ $RC -eq 0 ]] && grep -qxF '$BASE' out.txt && [[ $(calls hs.txt TimedCalls.leaf '^TimedCalls.mid$') == 123450 ]] &&
    grep -q '^SITES BEGIN' hs.txt"

run_java "$(agent cpu=times,timing=gprof,thread=y,cutoff=0,file=tt.txt)" TimedCalls
check "thread=y: the side thread's traces name it, with its 777 calls of leaf()" \
  bash -c "sid=\$(sed -n 's/^THREAD START .*id = \\([0-9]*\\), name=\"side\".*/\\1/p' tt.txt); [[ -n \$sid ]] && grep -q \"(thread=\$sid)\" tt.txt"
check "thread=y: counts as without it" is "$(calls tt.txt TimedCalls.leaf '^TimedCalls.other$')" 777
jni_clean
