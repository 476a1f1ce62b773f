#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=samples' signal engine: samples where the CPU is (no safepoint bias), counts that
# match the CPU used, wall clock, virtual threads, a program with its own SIGPROF handler,
# the guarded walk, the fallbacks. The accuracy checks fail with sampler=jvmti (the
# original's way), which HPROF_TEST_ENGINE=jvmti forces here to show it.
source "$(dirname "$0")/../lib/common.sh"
ENGINE=${HPROF_TEST_ENGINE:-signal}

# share FILE REGEX: percent (integer) of the Java threads' samples whose top frame's method
# matches (the JIT's and GC's threads are sampled too, and left out here).
share() {
  cpu_rows "$1" | awk -v re="$2" -v total="$(java_total "$1")" '$6 ~ re { s += $4 } END { printf "%d", total ? 100 * s / total : 0 }'
}
# thread_samples FILE NAME: samples of the traces of the thread called NAME (thread=y).
thread_samples() {
  local id; id=$(sed -n "s/^THREAD START .*id = \\([0-9]*\\), name=\"$2\".*/\\1/p" "$1" | head -1)
  [[ -n "$id" ]] || { echo -1; return; }
  awk -v id="$id" '/^TRACE [0-9]+: \(thread=/ { t = $2; sub(/:/, "", t); th = $3; gsub(/[^0-9]/, "", th); of[t] = th }
    /^CPU SAMPLES BEGIN/ { i = 1; next } /^CPU SAMPLES END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ && of[$5] == id { s += $4 } END { print s + 0 }' "$1"
}
# state_of FILE NAME: the [thread_state] frames of the thread's traces, sorted, unique.
state_of() {
  local id; id=$(sed -n "s/^THREAD START .*id = \\([0-9]*\\), name=\"$2\".*/\\1/p" "$1" | head -1)
  awk -v id="(thread=$id)" '/^TRACE/ { i = index($0, id) > 0; next } /^[^\t]/ { i = 0 } i && /\[thread_state\]/ { sub(/^\t\[thread_state\]\./, ""); sub(/\(.*/, ""); print }' "$1" | sort -u | tr '\n' ' '
}

# 1. A hot method inlined into a counted loop: the loop's poll is outside it.
run_java "$(agent cpu=samples,interval=5,sampler=$ENGINE,file=inl.txt)" InlinedHot 2500
hot=$(share inl.txt '^InlinedHot\.hot$')
check "inlined hot method has >= 70% of the samples ($hot%)" bash -c "[[ $RC -eq 0 && $hot -ge 70 ]]"

# 2. A 3:1 split of CPU work, in rounds of random length (a fixed one as long as the
#    kernel's tick met the samples at one point: tests/java/Split.java): within 5 points
#    of the split the program measured with its thread's own CPU clock; CPU samples near
#    CPU time / interval.
run_java "$(agent cpu=samples,interval=10,sampler=$ENGINE,file=split.txt)" Split 3000
a=$(share split.txt '^Split\.partA$'); b=$(share split.txt '^Split\.partB$')
cpu_ms=$(sed -n 's/^cpu_ms=//p' out.txt); total=$(cpu_total split.txt)
real=$(sed -n 's/^share_a=//p' out.txt)
check "3:1 split: samples within 5 points of the CPU the parts took ($a/$b, measured ${real:-?}/$((100 - ${real:-100})))" \
  bash -c "[[ -n '$real' ]] && (( a = $a, b = $b, a + b > 0 )) && (( d = 100 * $a / ($a + $b) - $real, d >= -5 && d <= 5 ))"
check "samples ($total) within 20% of process CPU time / interval (${cpu_ms:-?} ms / 10)" \
  bash -c "[[ -n '$cpu_ms' ]] && (( e = $cpu_ms / 10, 5 * ($total - e) <= e && 5 * (e - $total) <= e ))"
check "failed walks are few and labelled (<= 5%)" bash -c "(( $(share split.txt '^\[walk_failed\]') <= 5 ))"

# 3. The hottest method is the same in 10 short runs of 10.
same=0
for i in 1 2 3 4 5 6 7 8 9 10; do
  run_java "$(agent cpu=samples,interval=5,sampler=$ENGINE,file=r$i.txt)" Split 400
  # (The first Java row: in a short run the JVM's start-up, [VM].JVM start-up, may lead.)
  # (and not a native function's row: the JIT's threads' libjvm.so.*)
  [[ "$(cpu_rows "r$i.txt" | awk '$6 !~ /^\[/ && $6 !~ /\.so[.0-9]*\./ { print $6; exit }')" == "Split.partA" ]] && same=$((same + 1))
done
check "hottest method is Split.partA in 10 runs of 10 ($same)" test "$same" -eq 10

# 4. Threads without CPU: no CPU samples, and wall samples with their states.
run_java "$(agent cpu=samples,interval=10,thread=y,sampler=$ENGINE,file=idle.txt)" Idle 1500
check "CPU: the spinning holder has samples" bash -c "(( $(thread_samples idle.txt holder) > 20 ))"
# At most one: a thread's start (the classes its first sleep or lock loads, under
# -Xcheck:jni, on a busy machine) once took an interval of CPU. A sampler on the wall
# clock would give them about 150 each.
check "CPU: a sleeping thread has none (but at most one sample at its start)" \
  bash -c "s=$(thread_samples idle.txt sleeper); (( s >= 0 && s <= 1 ))"
check "CPU: a thread blocked on a monitor has none (but at most one sample at its start)" \
  bash -c "s=$(thread_samples idle.txt blocked); (( s >= 0 && s <= 1 ))"
# depth=16: native frames (the wait's, in libc and the VM) count in depth= too
run_java "$(agent cpu=samples,interval=10,depth=16,thread=y,clock=wall,sampler=$ENGINE,file=wall.txt)" Idle 1500
check "wall: the sleeping thread has samples" bash -c "(( $(thread_samples wall.txt sleeper) > 20 ))"
check "wall: the blocked thread has samples" bash -c "(( $(thread_samples wall.txt blocked) > 20 ))"
check "wall: the sleeper's state is SLEEPING ($(state_of wall.txt sleeper))" bash -c "[[ '$(state_of wall.txt sleeper)' == *SLEEPING* ]]"
# RUNNABLE beside it only from the thread's first moments, before it reaches the lock
# (seen once on JDK 25 under load); never SLEEPING or WAITING.
check "wall: the blocked thread's state is BLOCKED ($(state_of wall.txt blocked))" bash -c "[[ '$(state_of wall.txt blocked)' =~ ^BLOCKED\ (RUNNABLE\ )?$ ]]"
bid=$(sed -n 's/^THREAD START .*id = \([0-9]*\), name="blocked".*/\1/p' wall.txt)
# (its first Java frame: native frames of the wait, libc's and the VM's, are above it)
check "wall: the blocked thread's samples name Idle.blockHere" \
  bash -c "awk '/^TRACE [0-9]+: \\(thread=$bid\\)/ { on = 1; next } /^[^\t]/ { on = 0 } on && !/\\.so[.0-9]*\\./ { print; on = 0 }' wall.txt | grep -q 'Idle.blockHere'"

# 5. Virtual threads: samples on their carriers name their own method.
run_java "$(agent cpu=samples,interval=5,depth=8,sampler=$ENGINE,file=vt.txt)" VirtualWork 1000 20
v=$(share vt.txt '^VirtualWork\.vwork$')
check "1,000 virtual threads: >= 70% of the samples in their vwork ($v%)" bash -c "[[ $RC -eq 0 && $v -ge 70 ]]"
# (A carrier's own CPU, between virtual threads, is sampled as the carrier's frames.)
check "virtual threads' traces hold no carrier frames" bash -c "awk '/^TRACE/ { if (v && c) bad = 1; v = c = 0; next }
  /^\tVirtualWork\./ { v = 1 } /^\tjava\.util\.concurrent\.ForkJoin/ { c = 1 } END { if (v && c) bad = 1; exit bad }' vt.txt && grep -q 'VirtualWork.vwork' vt.txt"

# 5b. thread=y: a virtual thread's samples name it, not its carrier (JDK 21+; before, the
#     program's threads are platform threads, named as ever). groups_of FILE REGEX: the
#     group of the thread of each sample whose top frame matches, with its samples.
groups_of() {
  awk -v re="$2" '/^THREAD START/ { match($0, /id = [0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
      match($0, /group="[^"]*"/); g[id] = substr($0, RSTART + 7, RLENGTH - 8) }
    /^TRACE [0-9]+: \(thread=/ { t = $2; sub(/:/, "", t); th = $3; gsub(/[^0-9]/, "", th); of[t] = th }
    /^CPU SAMPLES BEGIN/ { i = 1; next } /^CPU SAMPLES END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ && $6 ~ re { n[(of[$5] in g) ? g[of[$5]] : "(no THREAD START)"] += $4 }
    END { for (k in n) print k "=" n[k] }' "$1" | sort | tr '\n' ' '
}
run_java "$(agent cpu=samples,interval=5,depth=8,thread=y,sampler=$ENGINE,file=vty.txt)" VirtualWork 1000 20
vg=$(groups_of vty.txt '^VirtualWork\.vwork$')
if grep -qx 'virtual=true' out.txt; then
  check "thread=y: vwork's samples name virtual threads, none a carrier ($vg)" bash -c "[[ $RC -eq 0 && '$vg' =~ ^VirtualThreads=[0-9]+\ $ ]]"
  check "thread=y: a THREAD START and a THREAD END for each of the 1,000 virtual threads" \
    bash -c "[[ \$(grep -c '^THREAD START.*group=\"VirtualThreads\"' vty.txt) -eq 1000 ]] &&
      ids=\$(sed -n 's/^THREAD START .*id = \\([0-9]*\\),.*group=\"VirtualThreads\".*/\\1/p' vty.txt | sort) &&
      [[ \$(grep -E '^THREAD END \\(id = [0-9]+\\)' vty.txt | tr -dc '0-9\\n' | sort | comm -12 - <(echo \"\$ids\") | wc -l) -eq 1000 ]]"
else
  check "thread=y: vwork's samples name the program's threads ($vg)" bash -c "[[ $RC -eq 0 && '$vg' =~ ^main=[0-9]+\ $ ]]"
fi

# 6. A program with its own SIGPROF handler and timer: unchanged, and the agent says why
#    it changed engines.
gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libsigprof.so" \
  "$HPROF_ROOT/tests/java/native/sigprof_jni.c"
run_java "$(agent cpu=samples,sampler=$ENGINE,file=prof.txt)" SigprofUser "$WORK/libsigprof.so" 1000
check "own SIGPROF handler: the program runs as without the agent" bash -c "[[ $RC -eq 0 ]] && grep -qx 'handled some' out.txt && grep -qx done out.txt"
if [[ "$ENGINE" == signal ]]; then
  check "own SIGPROF handler: the agent says it fell back" \
    grep -q 'HPROF WARNING: cpu=samples: the program replaced the SIGPROF handler; the JVMTI sampler takes the samples from now on' out.txt
  check "own SIGPROF handler: CPU SAMPLES still written" bash -c "(( $(cpu_total prof.txt) > 0 ))"

  # 7. The guard: every walk made to fault; the JVM lives and each sample says why.
  #    native=n: at the default depth a deep native stack of a JIT or GC thread fills
  #    every frame and its thread's root frame is cut, so its sample could not be told
  #    from a Java thread's here; the Java walk's guard is what this checks.
  HPROF_WALK_GUARD=1 HPROF_SAMPLER_FAULT=1 run_java "$(agent cpu=samples,native=n,file=fault.txt)" HotMethod 800
  check "guard: walks that fault do not end the JVM" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
  ft=$(cpu_total fault.txt); fs=$(share fault.txt '^\[walk_failed\]\.walk_faulted$')
  check "guard: each faulted walk counted as [walk_failed].walk_faulted ($fs% of $ft)" bash -c "(( ${ft:-0} > 10 && $fs == 100 ))"
  cp out.txt fault.out

  # 8. No AsyncGetCallTrace: said once, and the JVMTI sampler does the work.
  HPROF_SAMPLER_NO_AGCT=1 run_java "$(agent cpu=samples,file=noagct.txt)" HotMethod 500
  said=$(grep -c 'this JVM has no AsyncGetCallTrace; the JVMTI sampler takes the samples' out.txt)
  nt=$(cpu_total noagct.txt)
  check "no AsyncGetCallTrace: said once on stderr, JVMTI sampler used ($said, $nt samples)" bash -c "(( $said == 1 && ${nt:-0} > 0 ))"

  # 9. precise=: HotSpot's DebugNonSafepoints on by default, left off with precise=n.
  run_java -XX:+UnlockDiagnosticVMOptions "$(agent cpu=samples,file=precise.txt)" VmFlag DebugNonSafepoints
  check "precise=y (default): the agent turned DebugNonSafepoints on" bash -c "[[ $RC -eq 0 ]] && grep -qx 'DebugNonSafepoints=true' out.txt"
  run_java -XX:+UnlockDiagnosticVMOptions "$(agent cpu=samples,precise=n,file=precise.txt)" VmFlag DebugNonSafepoints
  check "precise=n: DebugNonSafepoints left off, samples still taken ($(cpu_total precise.txt))" \
    bash -c "[[ $RC -eq 0 ]] && grep -qx 'DebugNonSafepoints=false' out.txt && (( $(cpu_total precise.txt) >= 0 ))"
fi
# The guard's run replaced the JVM's SIGSEGV handler, which -Xcheck:jni reports (on
# stdout, with "Warning:"); that is why the guard is off by default under -Xcheck:jni.
jni_clean
