#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sessions (src/agent/session.h): each `hprof start` on a JVM that has the agent is a
# new session, with its own file, options and window. build/hprof against programs whose
# phases the test sets (tests/java/Phases.java), -Xcheck:jni, on the JDK under test:
#   A  the first load exact heap=sites: three sessions in a row, each its own file and
#      window (Phases$Mark1 x1000 in the first, Mark2 x2000 in the second, whose counts
#      leave the first's out), the third cpu=samples with hot2 on top; status; a switch
#      JVMTI cannot make refused (exit 10, the reason said); after stop the agent is
#      idle: the sampler's signals do not move while the program spins
#   B  the first load cpu=samples: a switch to sampled heap=sites and back; exact
#      heap=sites and cpu=times refused; a depth past the frames the signal sampler
#      took at start (set, a later session's) says what is kept
#   C  the README's commands as a user types them, one after another on one JVM:
#      `profile --every ... service=NAME` on a JVM without the agent is cpu=samples (not
#      the agent's heap=all), and after a sampled heap=sites profile too (labels never
#      change the mode); `profile -o cpu.html` takes 64 frames (RUN depth, no "cut"
#      banner), depth= given is kept; a sampled heap=sites profile right after a CPU one
#      lists the sites of objects that all died (go tool pprof, the estimate); stop
#      after a `-d` profile that stopped says so and succeeds
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"
source "$HPROF_ROOT/tests/lib/views.sh"

# phase NAME N "alloc K COUNT": the program allocates, and says it has (ack.N).
phase() {
  echo "$3" >"$WORK/$1/cmd.$2"
  for _ in $(seq 600); do [[ -f "$WORK/$1/ack.$2" ]] && return 0; sleep 0.1; done
  echo "# $1: command $2 not acknowledged" >&2
}
# allocs FILE CLASS: the objects of CLASS the last SITES section says were allocated.
allocs() {
  awk -v c="$2" '/^SITES BEGIN/ { n = 0; f = 1; next } /^SITES END/ { f = 0 } f && $9 == c { n += $7 } END { print n + 0 }' "$1"
}
signals() { sed -n 's/^HPROF: cpu sampler signals so far: //p' hp.out; }

# ---- A: three sessions on one JVM ----
start_phases A
if [[ -z "$PID" ]]; then not_ok "the target program did not start"; exit 0; fi
A=$PID
hp start $A heap=sites,depth=8,cutoff=0,file="$WORK/s1.txt"
check_said "session 1: attached, exact heap=sites" 'profiling this JVM from now on: heap=sites'
phase A 1 "alloc 1 1000"
hp status $A
check "status: session 1, its mode and file" \
  bash -c "[[ $HRC == 0 ]] && grep -Eq '^HPROF: session 1 since [0-9]{8}T[0-9]{6}Z: heap=sites; the profile goes to $WORK/s1.txt' hp.out"
hp stop $A
hp start $A heap=sites,depth=8,cutoff=0,file="$WORK/s2.txt"
check "session 2: a new session with its own file" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'a new session (session 2): heap=sites; the profile goes to $WORK/s2.txt' hp.out"
phase A 2 "alloc 2 2000"
hp stop $A
echo 2 >"$WORK/A/hot"
sleep 0.5
hp start $A cpu=samples,interval=1,depth=8,file="$WORK/s3.txt"
check_said "session 3: a switch to cpu=samples" '\(session 3\): cpu=samples'
sleep 2
hp stop $A
m11=$(allocs s1.txt 'Phases$Mark1') m12=$(allocs s1.txt 'Phases$Mark2')
m21=$(allocs s2.txt 'Phases$Mark1') m22=$(allocs s2.txt 'Phases$Mark2') top3=$(rank1_method s3.txt)
check "session 1's file: Mark1 allocated 1000 times, exactly; no Mark2 ($m11, $m12)" \
  test "$m11 $m12" = "1000 0"
check "session 2's file: Mark2 x2000, and none of session 1's Mark1: its window starts from zero ($m22, $m21)" \
  test "$m22 $m21" = "2000 0"
check "session 3's file: CPU samples alone, hot2 on top, the phase of its window ($top3)" \
  bash -c "[[ '$top3' == Phases.hot2 ]] && ! grep -q '^SITES BEGIN' s3.txt"
check "sessions 1 and 2: no CPU section (their options, not the third's)" \
  bash -c "! grep -q '^CPU SAMPLES BEGIN' s1.txt s2.txt"
check "each session's file is whole: one dump each, the header first" \
  bash -c "for f in s1.txt s2.txt s3.txt; do [[ \$(head -1 \$f) == JAVA\ PROFILE* && \$(grep -c '^[A-Z ]* END\$' \$f) -ge 1 ]] || exit 1; done"
check "each session's file is 0600" bash -c "[[ \$(stat -c %a s1.txt s2.txt s3.txt | sort -u) == 600 ]]"

# A switch JVMTI cannot make: this agent counts allocations exactly (the first load).
hp start $A heap=sites,alloc_sample=4096,file="$WORK/refused.txt"
expect_fail 10 "cannot switch .*alloc_sample=: this agent counts allocations exactly" \
  "a switch to sampled heap=sites after exact: refused with the reason"
check "the refused session wrote no file and left the agent idle" \
  bash -c "[[ ! -e refused.txt ]] && '$HPROF' status $A | grep -q '^HPROF: idle since'"

# Idle: the program spins in hot2; the sampler's signals do not move.
hp status $A
s1=$(signals)
sleep 1.5
hp status $A
s2=$(signals)
check "idle after stop: status says so, and names the last session's file" \
  bash -c "grep -Eq '^HPROF: idle since [0-9]{8}T[0-9]{6}Z \\(session 3 stopped; its profile is in $WORK/s3.txt\\)' hp.out"
check "idle after stop: no sampler signal while the program spins ($s1, then $s2; session 3 had some)" \
  bash -c "[[ -n '$s1' && '$s1' -gt 0 && '$s1' == '$s2' ]]"
end_phases A
check "A: the program's output is unchanged by the sessions" bash -c "[[ \$(grep -v '^WARNING\\|^OpenJDK' A.out) == \$'ready\\ndone' ]]"

# ---- B: cpu=samples, sampled heap=sites, cpu=samples ----
start_phases B
B=$PID
hp start $B cpu=samples,interval=1,depth=8,file="$WORK/b1.txt"
sleep 1.5
hp stop $B
hp start $B heap=sites,alloc_sample=1024,depth=8,cutoff=0,file="$WORK/b2.txt"
check "B: a switch from cpu=samples to sampled heap=sites" \
  bash -c "[[ $HRC == 0 ]] && grep -q '(session 2): heap=sites (sampled every 1024 bytes)' hp.out"
# Two million objects (32 MB): the JVM starts sampling a thread at its next TLAB, so
# what it allocates in the TLAB it has when the session starts (up to a few MB) is not
# sampled; at 200,000 objects that was a third of them.
phase B 1 "alloc 3 2000000"
hp stop $B
hp start $B cpu=samples,interval=1,depth=8,file="$WORK/b3.txt"
check_said "B: and back to cpu=samples" '\(session 3\): cpu=samples'
# The signal sampler's frames a sample holds were fixed at the first load (depth=8: 64).
hp set $B depth=200
check "B: set depth=200 says the 64 frames a sample holds, fixed at start, once [$(head -c 200 hp.out)]" \
  bash -c "[[ $HRC == 0 && \$(grep -c 'depth 200 cut to 64 (the frames a sample holds, fixed at start)' hp.out) == 1 ]]"
hp set $B depth=8
sleep 1.5
hp stop $B
hp start $B cpu=samples,interval=1,depth=300,file="$WORK/b4.txt"
check "B: a later session's depth=300 says the 64 frames a sample holds [$(head -c 200 hp.out)]" \
  bash -c "[[ $HRC == 0 ]] && grep -q '(session 4): cpu=samples (every 1 ms, depth 300 cut to 64 (the frames a sample holds, fixed at start))' hp.out"
hp stop $B
m3=$(allocs b2.txt 'Phases$Mark3')
check "B: the sampled session estimates Mark3's 2000000 objects ($m3, within 30%)" \
  bash -c "[[ $m3 -ge 1400000 && $m3 -le 2600000 ]] && ! grep -q '^CPU SAMPLES BEGIN' b2.txt"
top1=$(rank1_method b1.txt) top3=$(rank1_method b3.txt)
check "B: the cpu=samples sessions before and after: hot1 on top, no SITES ($top1, $top3)" \
  bash -c "[[ '$top1 $top3' == 'Phases.hot1 Phases.hot1' ]] && ! grep -q '^SITES BEGIN' b1.txt b3.txt"
hp start $B heap=sites,file="$WORK/exact.txt"
expect_fail 10 "cannot switch .*exact heap=sites needs the allocation instrumentation of the first load" \
  "B: exact heap=sites after a first load without it: refused"
hp start $B cpu=times,file="$WORK/times.txt"
expect_fail 10 "cannot switch .*cpu=times and cpu=old need the classes instrumented" "B: cpu=times: refused"
hp start $B cpu=samples,net=localhost:9
expect_fail 10 "cannot switch .*net=" "B: net=: refused"
end_phases B
check "B: the program's output is unchanged" bash -c "[[ \$(grep -v '^WARNING\\|^OpenJDK' B.out) == \$'ready\\ndone' ]]"
check "no -Xcheck:jni complaint in either program's output" bash -c "! grep -qi 'jni' A.out B.out"

# ---- C: the README's commands, as typed ----
pp() { HOME=$WORK GOCACHE=$WORK/gocache go tool pprof "$@" 2>/dev/null; }
start_phases C
C=$PID
mkdir -p "$WORK/c1" "$WORK/c2"
hp profile $C -d 2s --every 1 --keep 3 -o "$WORK/c1/cpu-%t.pb.gz" service=shop
check "C: profile --every with a label alone, no agent yet: cpu=samples, not heap=all [$(head -c 200 hp.out)]" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'profiling this JVM from now on: cpu=samples (every 10 ms, depth 64)' hp.out &&
           ! grep -q 'heap=' hp.out"
hp profile $C -d 2s -o "$WORK/cpu.html"
check "C: profile -o cpu.html: a view's 64 frames, said at start and in the text's RUN depth" \
  bash -c "[[ $HRC == 0 ]] && grep -q '(session 2): cpu=samples (every 10 ms, depth 64)' hp.out && grep -qx 'RUN depth: 64' cpu.txt"
check "C: profile -o cpu.html: no banner asking for depth=64 (the file says its depth: Phases' stacks are short, not cut)" \
  bash -c "grep -q 'Phases.hot1' cpu.html && ! grep -q 'stacks cut at depth' cpu.html hp.out hp.err"
hp stop $C
check "C: stop after a -d profile that stopped: says so, exit 0" \
  bash -c "[[ $HRC == 0 ]] && grep -Eq '^HPROF: stopped already \(session 2; its profile is in $WORK/cpu.txt\)' hp.out"
hp profile $C -d 1s -o "$WORK/cpu4.collapsed" depth=4
check "C: profile -o .collapsed depth=4: depth= given is kept" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'cpu=samples (every 10 ms, depth 4)' hp.out && grep -qx 'RUN depth: 4' cpu4.txt"
# The sampled heap profile while the program makes 4,000,000 Mark3 (24 bytes each) that
# die at once: none is live at the dump, and SITES still lists their site.
rm -f hp.out
( hp profile $C -d 4s -o "$WORK/sites.pb.gz" heap=sites,alloc_sample=524288 ) &
hpjob=$!
for _ in $(seq 100); do grep -q 'profile goes to' hp.out 2>/dev/null && break; sleep 0.1; done
phase C 1 "alloc 3 4000000"
wait $hpjob
m3=$(allocs sites.txt 'Phases$Mark3')
check "C: sampled heap=sites right after CPU sessions: Mark3's site listed though none lives, ~4000000 ($m3, within 35%)" \
  bash -c "(( $m3 >= 2600000 && $m3 <= 5400000 ))"
if have_go; then
  got=$(pprof_total sites.pb.gz alloc_objects 'Mark3')
  check "C: go tool pprof reads sites.pb.gz: Mark3's allocated objects ($got, the text's $m3)" \
    bash -c "[[ '$got' =~ ^[0-9]+$ && '$got' == '$m3' && $m3 -gt 0 ]]"
else
  skip "C: go tool pprof reads sites.pb.gz" "no go (apt-get install golang-go)"
fi
hp profile $C -d 2s --every 1 --keep 3 -o "$WORK/c2/cpu-%t.pb.gz" service=tomcat
check "C: after the sampled heap session, --every with a label alone is cpu=samples again (exit $HRC)" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'cpu=samples (every 10 ms, depth 64)' hp.out && ! grep -q 'heap=' hp.out"
if have_go; then
  f=$(ls "$WORK/c2" | head -1)
  pp -raw "c2/$f" >c2raw.txt
  pp -tags "c2/$f" >c2tags.txt
  check "C: its windows are CPU profiles (pprof's cpu nanoseconds) labelled service_name=tomcat" \
    bash -c "grep -q '^PeriodType: cpu nanoseconds' c2raw.txt && grep -A1 '^ *service_name:' c2tags.txt | grep -q ': tomcat$'"
else
  skip "C: its windows are CPU profiles labelled service_name=tomcat" "no go (apt-get install golang-go)"
fi
end_phases C
check "C: the program's output is unchanged, no -Xcheck:jni complaint" \
  bash -c "[[ \$(grep -v '^WARNING\\|^OpenJDK' C.out) == \$'ready\\ndone' ]] && ! grep -qi 'jni' C.out"
