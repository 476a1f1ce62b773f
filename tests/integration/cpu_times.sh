#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=times and cpu=old: exact call counts through bytecode instrumentation, verified
# classes (-Xverify:all), and the program's behaviour unchanged.
source "$(dirname "$0")/../lib/common.sh"

set +e
BASE=$("$JAVA" -cp "$TEST_CLASSES" TimedCalls 2>&1)
set -e

run_java -Xverify:all "$(agent cpu=times,file=t.txt)" TimedCalls
check "cpu=times: same output and status as without the agent ($BASE)" bash -c "[[ $RC -eq 0 && '$BASE' == 'sum '* ]] && grep -qxF '$BASE' out.txt"
check "cpu=times: no VerifyError or linkage error" bash -c "grep -qxF '$BASE' out.txt && ! grep -Eq 'VerifyError|LinkageError|IllegalAccessError|NoClassDefFoundError' out.txt"
check "CPU TIME (ms) section" bash -c "grep -Eq '^CPU TIME \\(ms\\) BEGIN \\(total = [0-9]+\\) ' t.txt && grep -qx 'CPU TIME (ms) END' t.txt"
rows() { awk '/^CPU TIME \(ms\) BEGIN/{i=1;next} /^CPU TIME \(ms\) END/{i=0} i&&$1~/^[0-9]+$/' t.txt; }
rows >rows.txt
# Counts are per trace: with depth 4, leaf's callers are main->mid->leaf (the main thread)
# and run->other->leaf (the side thread); a cutoff may hide small rows, so use cutoff=0.
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent cpu=times,cutoff=0,file=t0.txt)" TimedCalls
# The replay finds a call's step by the hint its caller's previous call left: the loops
# of TimedCalls call the same methods in the same order, nearly every call.
# (Read from the words after "steps found:", wherever the line starts: the program's own
# output may share the line.)
check "most calls found their step by hint (HPROF_STACK_STATS)" bash -c "awk 'match(\$0, /HPROF: cpu=times steps found: [0-9]+ by hint, [0-9]+ by hash/) {
  split(substr(\$0, RSTART, RLENGTH), w, \" \"); h = w[5] + 0; x = w[8] + 0 } END { exit !(h + x > 100000 && h > 0.9 * (h + x)) }' out.txt"
count_of() {  # count_of FILE METHOD CALLER: calls of METHOD in traces whose 2nd frame is CALLER
  awk -v m="$2" -v c="$3" '
    /^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); n = 0; next }
    /^\t/ { n++; f = $0; sub(/^\t/, "", f); sub(/\(.*/, "", f); fr[tr, n] = f; next }
    /^CPU TIME \(ms\) BEGIN/ { i = 1; next } /^CPU TIME \(ms\) END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ && $6 == m && fr[$5, 2] == c { s += $4 }
    END { print s + 0 }' "$1"
}
check "leaf() called 123450 times from mid()" test "$(count_of t0.txt TimedCalls.leaf TimedCalls.mid)" -eq 123450
# leaf() is trivial (no calls or loops, a few bytes): counted on every call, never timed.
check "leaf() is trivial: every row of it counted and at 0 ms" bash -c "awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0}
  i && \$6 == \"TimedCalls.leaf\" { n++; if (\$2 != \"0.00%\") bad = 1 } END { exit !(n > 0 && !bad) }' t0.txt"
check "mid() called 12345 times from main()" test "$(count_of t0.txt TimedCalls.mid TimedCalls.main)" -eq 12345
check "leaf() called 777 times from other() on the side thread" test "$(count_of t0.txt TimedCalls.leaf TimedCalls.other)" -eq 777
check "catcher() once; thrower() 100 times from catcher (exceptions unwind cleanly)" \
  bash -c "[[ \$(awk '\$6 == \"TimedCalls.catcher\" { s += \$4 } END { print s + 0 }' <(awk '/^CPU TIME/{i=1;next} i' t0.txt)) -eq 1 ]] && [[ $(count_of t0.txt TimedCalls.thrower TimedCalls.catcher) -eq 100 ]]"
check "recursive thrower frames: 300 inner calls" test "$(count_of t0.txt TimedCalls.thrower TimedCalls.thrower)" -eq 300
grep -P '^\tTimedCalls\.' t0.txt >frames.txt || true
check "frames show Unknown line (no locations in cpu=times)" bash -c "[[ -s frames.txt ]] && ! grep -v 'TimedCalls.java:Unknown line)\$' frames.txt"
check "rows have the CPU SAMPLES layout" bash -c "[[ -s rows.txt ]] && awk '{ r = sprintf(\"%4d %5.2f%% %5.2f%% %7d %5d %s\", \$1, \$2, \$3, \$4, \$5, \$6); if (r != \$0) bad = 1 } END { exit bad }' rows.txt"
check "JDK methods are counted too (early classes instrumented)" bash -c "grep -Pq '^\tjava\\.lang\\.(String|Object|StringBuilder|AbstractStringBuilder)\\.' t0.txt"

run_java -Xverify:all "$(agent cpu=times,thread=y,cutoff=0,file=tt.txt)" TimedCalls
check "thread=y: the side thread's traces name it" bash -c "sid=\$(sed -n 's/^THREAD START .*id = \\([0-9]*\\), name=\"side\".*/\\1/p' tt.txt); [[ -n \$sid ]] && grep -q \"(thread=\$sid)\" tt.txt"

# cpu=old: the old prof format, and nothing else
run_java -Xverify:all "$(agent cpu=old,file=o.txt)" TimedCalls
check "cpu=old: same output" bash -c "[[ $RC -eq 0 && '$BASE' == 'sum '* ]] && grep -qxF '$BASE' out.txt"
check "cpu=old: starts with the old header, no JAVA PROFILE or THREAD lines" \
  bash -c "head -1 o.txt | grep -qx 'count callee caller time' && ! grep -q '^JAVA PROFILE\\|^THREAD' o.txt"
check "cpu=old: leaf called 123450 times by mid, with signatures" \
  bash -c "grep -Eq '^123450 TimedCalls\\.leaf\\(I\\)I TimedCalls\\.mid\\(I\\)I [0-9]+\$' o.txt"
check "cpu=old: mid called 12345 times by main" \
  bash -c "grep -Eq '^12345 TimedCalls\\.mid\\(I\\)I TimedCalls\\.main\\(\\[Ljava/lang/String;\\)V [0-9]+\$' o.txt"

# No instrumentation unless the options need it.
run_java -Xlog:class+load=info "$(agent cpu=samples,file=s.txt)" HotMethod 200
check "cpu=samples loads no Tracker (no BCI)" bash -c "[[ $RC -eq 0 ]] && ! grep -q 'hprof.Tracker' out.txt"
run_java -Xlog:class+load=info "$(agent cpu=times,file=s2.txt)" HotMethod 200
check "cpu=times loads the Tracker from the agent" bash -c "[[ $RC -eq 0 ]] && grep -q 'hprof.Tracker' out.txt"
# The hooks' rare path is kept out of the methods the JIT compiles (Tracker.roomFor): the
# build renames the Tracker's own DontInline to HotSpot's, which the VM honours there.
run_java -XX:+UnlockDiagnosticVMOptions -XX:+PrintInlining "$(agent cpu=times,file=s3.txt)" HotMethod 200
check "the hooks' rare path is never inlined (HotSpot's DontInline on Tracker.noRoom)" \
  bash -c "[[ $RC -eq 0 ]] && grep -q 'hprof.Tracker::noRoom .*don.t inline by annotation' out.txt"
# timing=gprof's count and exit stay out of line too (inlined at every hook, their table
# lookup made the JIT compile far more code).
run_java -XX:+UnlockDiagnosticVMOptions -XX:+PrintInlining "$(agent cpu=times,timing=gprof,file=s4.txt)" HotMethod 200
check "timing=gprof: the count and the exit are never inlined into the hooks (DontInline)" \
  bash -c "[[ $RC -eq 0 ]] && grep -q 'hprof.Tracker::count .*don.t inline by annotation' out.txt &&
           grep -q 'hprof.Tracker::exit .*don.t inline by annotation' out.txt"
jni_clean
