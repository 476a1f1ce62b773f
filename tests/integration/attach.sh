#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Profiling a JVM that is already running: the hprof tool ($HPROF_BIN: build-asan under
# make check) against long-running programs this
# test starts (tests/java/AttachTarget.java), on the JDK under test, with -Xcheck:jni.
#   A  plain: list, stat, profile (top frame the hot method), a second and third request
#      to the loaded agent (sessions: tests/integration/sessions.sh), set, dump, stop, the JVM's heap dump, a JVM that does not
#      answer (stopped), another user, and the program's output and exit code unchanged
#   B  -XX:-UsePerfData: stat says so; the agent refuses bad options (its HPROF ERROR
#      comes back) and the JVM goes on; then the agent's own binary heap dump, read by
#      the project's reader and by VisualVM's
#   T  -Xverify:all: cpu=times attached late retransforms the loaded classes
#   G  the same with timing=gprof: the hot method's samples and calls
#   C  -XX:+DisableAttachMechanism: refused before any signal is sent
# Exit codes: tools/hprof/exits.h.
# Under make check its JVMs run without the sanitizer, its tools with it (tests/run.sh):
# hprof-test: plain-jvm
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"

# Reply folders there before this script began are no one's here (a tool killed with
# SIGKILL by an earlier run, or by hand, leaves its folder for good): not counted below.
stale_replies=$(ls -a /tmp 2>/dev/null | grep -E '^hprof-reply-' | sort)

# ---- A ----
start_target A
if [[ -z "$PID" ]]; then not_ok "the target program did not start"; exit 0; fi
A=$PID

hp list
check "list: finds the target with its main class and JDK" \
  bash -c "grep -Eq '^$A +AttachTarget +$JDK_FEATURE[.0-9]* ' hp.out"

# 10 intervals: jvmstat's heap figures move at TLAB refills and GCs, which a starved
# program on a loaded machine may not reach in 5 (seen on JDK 25).
hp stat $A 300ms 10
awk 'NR > 1 { print $2 }' hp.out >heap-used.txt
check "stat: a header and a line per interval" test "$(wc -l <hp.out)" -eq 11
check "stat: the heap figures move as the program allocates" test "$(sort -u heap-used.txt | wc -l)" -gt 1
check "stat: the uptime grows, from the JVM's start time" \
  bash -c "awk 'NR > 1 { u = \$1 + 0; if (u <= last) bad = 1; last = u } END { exit bad || last <= 0 }' hp.out"

hp profile $A -d 3s -o "$WORK/prof.txt"
check_said "profile: exit 0, said it attached" 'profiling this JVM from now on'
prof_total=$(cpu_total prof.txt)
check "profile: the signal sampler took the samples of the threads already running (no fallback)" \
  bash -c "[[ $HRC == 0 && ${prof_total:-0} -gt 0 ]] && grep -q 'profiling this JVM from now on' hp.out &&
           ! grep -q 'JVMTI sampler takes the samples' hp.out hp.err"
check "profile: the top frame of the CPU profile is the hot method" test "$(rank1_method prof.txt)" = AttachTarget.hot
cpu_rows prof.txt | head -3 | sed 's/^/# prof.txt: /' 
check "profile: the profile was written at stop" grep -q 'HPROF: stopped' hp.out

hp start $A
check "second request: reaches the loaded agent, which starts again (a new session, as the last)" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'profiling again (session 2)' hp.out"
hp start $A cpu=samples
expect_fail 9 'HPROF ERROR: hprof is already profiling this JVM' "third request: the running agent refuses a second start, and says why"
hp set $A interval=5,depth=6
check_said "set: interval and depth changed" 'every 5 ms, depth 6'
sleep 1
hp dump $A "$WORK/copy.txt"
check "dump FILE: a copy of the session's profile, with its CPU section" \
  bash -c "[[ $HRC == 0 ]] && [[ \$(grep -c '^CPU SAMPLES BEGIN' copy.txt) -ge 1 ]]"
hp stop $A
check "stop: exit 0" test "$HRC" = 0
hp stop $A
check_said "stop twice: the agent says it is stopped already, and that is no failure (exit 0)" \
  '^HPROF: stopped already \(session 2; its profile is in /'
check "stop twice: no HPROF ERROR" bash -c "! grep -q 'HPROF ERROR' hp.err hp.out"
# A view from a loaded, stopped agent: a new session, its text profile beside the view
# (prof.txt again), holding that session alone.
hp profile $A -d 2s -o "$WORK/prof.collapsed"
check "profile -o .collapsed: exit 0, the hot method in the heaviest stack" \
  bash -c "[[ $HRC == 0 ]] && sort -t' ' -k2 -nr prof.collapsed | head -1 | grep -q '^AttachTarget.main;AttachTarget.hot '"
last_total=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' prof.txt | tail -1)
check "profile -o .collapsed: the view counts its session's samples ($last_total), its file that session alone" \
  bash -c "[[ \$(awk '{ s += \$NF } END { print s }' prof.collapsed) == '$last_total' && \$(grep -c '^CPU SAMPLES BEGIN' prof.txt) == 1 ]]"
# A view elsewhere (another directory, a space in its name): a session of its own there.
mkdir -p "$WORK/other dir"
hp profile $A -d 1s -o "$WORK/other dir/view.collapsed"
check "profile -o elsewhere: a new session writes it, hot method on top" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'a new session' hp.out &&
           sort -t' ' -k2 -nr 'other dir/view.collapsed' | head -1 | grep -q '^AttachTarget.main;AttachTarget.hot '"

hp heap $A "$WORK/jvm.hprof"
check "heap: the JVM wrote a heap dump" bash -c "[[ $HRC == 0 ]] && [[ -s jvm.hprof ]]"
check "heap: the project's reader reads it whole" bash -c "'$HPROF_DUMP' --summary jvm.hprof | grep -q '^heap_dumps=1'"

# A JVM that does not answer: stopped (state T, waited for), with its attach socket up.
kill -STOP $A
for _ in $(seq 50); do [[ $(awk '{ print $3 }' /proc/$A/stat 2>/dev/null) == T ]] && break; sleep 0.1; done
before=$(awk '{ print $3 }' /proc/$A/stat 2>/dev/null)
hp dump -t 3 $A
after=$(awk '{ print $3 }' /proc/$A/stat 2>/dev/null)
kill -CONT $A
if [[ $before == T && $after == T ]]; then
  expect_fail 8 'did not answer' "a stopped JVM: the wait ends with a message"
else   # once in a full run the request was answered; the state before and after says
       # whether the target really was stopped throughout (the check means nothing if not)
  skip "a stopped JVM: the wait ends with a message" "the target was not stopped throughout the request (state $before, then $after)"
fi

# A request given up (timeout(1)'s SIGTERM, Ctrl-C) while the JVM does not answer: the
# tool ends by that signal as it would have, and takes its reply folder with it. (A
# script's background job starts with SIGINT ignored, which the tool leaves so: env sets
# it back to the default first.)
replies() { ls -d /tmp/hprof-reply-* 2>/dev/null | sort; }
kill -STOP $A
for _ in $(seq 50); do [[ $(awk '{ print $3 }' /proc/$A/stat 2>/dev/null) == T ]] && break; sleep 0.1; done
for sig in TERM INT; do
  old=$(replies)
  env --default-signal=INT "$HPROF" status $A >hp.out 2>hp.err &
  tool=$!
  mine=""
  for _ in $(seq 100); do mine=$(comm -13 <(echo "$old") <(replies)); [[ -n $mine ]] && break; sleep 0.05; done
  sleep 0.3
  kill -$sig $tool
  HRC=0; wait $tool || HRC=$?
  # (a folder new since the start may be another script's request in flight: only one
  # still there 30 s later counts)
  for _ in $(seq 30); do
    gone=yes
    for d in $mine; do [[ -e $d ]] && gone="no: $d"; done
    [[ $gone == yes ]] && break
    sleep 1
  done
  want=$((128 + $(kill -l $sig)))
  check "SIG$sig while waiting for a stopped JVM: ends by the signal, its reply folder gone [exit $HRC, $gone]" \
    bash -c "[[ -n '$mine' && $HRC == $want && '$gone' == yes ]]"
done
kill -CONT $A

# Another user's JVM: the tool run as nobody (HotSpot would refuse it too).
NOBODY=$(mktemp -d /tmp/hprof-attach-nobody-XXXXXX)
cp "$HPROF" "$NOBODY/hprof"; chmod 755 "$NOBODY" "$NOBODY/hprof"
if command -v setpriv >/dev/null && [[ $(id -u) == 0 ]]; then
  HRC=0; setpriv --reuid 65534 --regid 65534 --clear-groups "$NOBODY/hprof" start $A >hp.out 2>hp.err || HRC=$?
  expect_fail 5 "belongs to root: only that user \\(or root\\)" "another user's JVM"
  HRC=0; setpriv --reuid 65534 --regid 65534 --clear-groups "$NOBODY/hprof" list >hp.out 2>hp.err || HRC=$?
  check "list as another user: root's JVM is not listed (the list's header is)" \
    bash -c "[[ $HRC == 0 ]] && head -1 hp.out | grep -q '^PID ' && ! grep -q '^$A ' hp.out"
else
  skip "another user's JVM" "needs root and setpriv (the tool checks the JVM's user first)"
fi
rm -rf "$NOBODY"

# No such process; not a JVM (and it is not killed: no SIGQUIT sent to it).
true & GONE=$!; wait $GONE
hp stat $GONE
expect_fail 3 "no such process: $GONE" "no such process"
sleep 60 & SLEEPER=$!
hp start $SLEEPER cpu=samples
expect_fail 4 'is not a HotSpot JVM' "not a JVM"
check "not a JVM: left running" kill -0 $SLEEPER
kill $SLEEPER; wait $SLEEPER 2>/dev/null || true

end_target A
check "the program's output is unchanged by the attaches" test "$(cat A.out)" = "$(printf 'ready\ndone')"
check "the program's exit code is unchanged" test "$(cat A.rc)" = 3
check "nothing of ours on the program's stderr (only the JVM's own warning)" \
  bash -c "[[ -f A.err && -s A.rc ]] && ! grep -v '^WARNING' A.err | grep -q ."
grep -v '^WARNING' A.err | head -5 | sed 's/^/# A.err: /' 
if [[ $JDK_FEATURE -ge 21 ]]; then
  check "JDK $JDK_FEATURE: the JVM's warning about a dynamically loaded agent is shown, not hidden" \
    grep -q 'A JVM TI agent has been loaded dynamically' A.err
else
  skip "the JVM's warning about a dynamically loaded agent is shown" "JDK $JDK_FEATURE has no such warning (JDK 21)"
fi
# leftovers: the attach and reply files in WORK and /tmp. Another test's request in flight
# (tests/run.sh runs scripts side by side: the other JDK's attach.sh, sessions.sh,
# rolling.sh) has its reply folder there until the agent answers, which a stop that
# writes a profile on a loaded machine may take seconds to do: only what is still there
# 30 s later counts (a leftover stays for good).
leftovers() {
  ls -a "$WORK" /tmp 2>/dev/null | grep -E "^\.attach_pid$A\$|^hprof-reply-" | sort | comm -23 - <(echo "$stale_replies")
}
left=$(leftovers)
for _ in $(seq 30); do
  [[ -z "$left" ]] && break
  sleep 1; left=$(comm -12 <(echo "$left") <(leftovers))
done
left=$(echo $left)
check "no .attach_pid or reply files left [$left]" test -z "$left"

# ---- B: jvmstat off; refused options; the agent's own heap dump ----
start_target B -XX:-UsePerfData
B=$PID
hp stat $B
expect_fail 7 'UsePerfData' "jvmstat off: stat says there are no counters"
hp start $B cpu=samples,bogus=1
expect_fail 9 'HPROF ERROR: .*Unknown option: bogus' "the agent refuses bad options: its HPROF ERROR comes back"
hp start $B heap=dump,format=b,file=ours.hprof
check "after a refusal the JVM takes a good start" test "$HRC" = 0
hp stop $B
end_target B
check "B: output and exit code unchanged" bash -c "[[ \$(cat B.out) == \$'ready\\ndone' && \$(cat B.rc) == 3 ]]"
check "the agent's heap dump taken by attach validates (project's reader)" hprof_check "$WORK/ours.hprof"
JAR=$(dpkg -L visualvm 2>/dev/null | grep 'org-graalvm-visualvm-lib-jfluid-heap\.jar$' | head -1)
if [[ -n "$JAR" && -f "$JAR" ]]; then
  mkdir -p vv
  "$JAVA_HOME/bin/javac" -nowarn -d vv -cp "$JAR" "$HPROF_ROOT/tests/java/visualvm/HeapDumpVisualVM.java"
  "$JAVA" -cp "vv:$JAR" HeapDumpVisualVM check ours.hprof >vv.txt 2>>vv-errors.txt || true
  check "VisualVM reads the agent's heap dump, every reference resolved" \
    bash -c "grep -q '^INSTANCES [1-9]' vv.txt && grep -q '^UNRESOLVED 0$' vv.txt"
  "$JAVA" -cp "vv:$JAR" HeapDumpVisualVM check jvm.hprof >vvj.txt 2>>vv-errors.txt || true
  check "VisualVM reads hprof heap's dump" grep -q '^INSTANCES [1-9]' vvj.txt
else
  skip "VisualVM reads the agent's heap dump and hprof heap's" "VisualVM's heap library is not installed (apt-get install visualvm)"
fi

# ---- T: cpu=times attached late ----
start_target T -Xverify:all
hp profile $PID -d 3s -o "$WORK/times.txt" cpu=times
end_target T
check "cpu=times attached: says the loaded classes were retransformed" grep -q 'retransformed' hp.out
check "cpu=times attached: the hot method tops CPU TIME" \
  bash -c "awk '/^CPU TIME \\(ms\\) BEGIN/ { f = 1; next } f && \$1 == 1 { print \$6; exit }' times.txt | grep -qx AttachTarget.hot"
check "T: output and exit code unchanged" bash -c "[[ \$(cat T.out) == \$'ready\\ndone' && \$(cat T.rc) == 3 ]]"

# ---- G: cpu=times,timing=gprof attached late (calls counted by the threads themselves) ----
start_target G -Xverify:all
hp profile $PID -d 3s -o "$WORK/gprof.txt" cpu=times,timing=gprof
end_target G
check "timing=gprof attached: the hot method tops CPU TIME (its samples), its calls counted" \
  bash -c "awk '/^CPU TIME \\(ms\\) BEGIN/ { f = 1; next } f && \$1 == 1 { print \$6, (\$4 > 0); exit }' gprof.txt | grep -qx 'AttachTarget.hot 1'"
check "G: output and exit code unchanged" bash -c "[[ \$(cat G.out) == \$'ready\\ndone' && \$(cat G.rc) == 3 ]]"

# ---- C: attach disabled ----
start_target C -XX:+DisableAttachMechanism
hp start $PID cpu=samples
expect_fail 6 'DisableAttachMechanism' "attach disabled: said before any signal"
end_target C
check "attach disabled: no thread dump on the program's stdout" test "$(cat C.out)" = "$(printf 'ready\ndone')"
jni_clean
