#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=times follows a depth changed while the program runs (`hprof set PID depth=N`):
# tests/java/DepthTarget.java runs with cpu=times,depth=1, main() calling
# AttachTarget.hot() over and over; once the depth is 2, the calls of hot() counted after
# it show under the trace hot() <- main(), though main's frame was on the stack, with its
# one-frame trace, when the depth changed (the replay keeps each frame's trace and the
# steps between them: both must follow the new depth).
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"
export HPROF_AGENT=$HPROF_LIB # the tool reaches the agent the target loaded

# hot_calls FILE FRAMES: the calls of AttachTarget.hot in the last CPU TIME section of
# FILE under a trace of that many frames, main() second when 2.
hot_calls() {
  awk -v want="$2" '
    /^TRACE [0-9]+:/ { t = $2; sub(":", "", t); n[t] = 0; next }
    /^\t/ { n[t]++; if (n[t] == 2) second[t] = $1; next }
    /^CPU TIME \(ms\) BEGIN/ { i = 1; calls = 0; next }
    /^CPU TIME \(ms\) END/ { i = 0 }
    i && $6 == "AttachTarget.hot" && n[$5] == want && (want == 1 || second[$5] ~ /^DepthTarget\.main\(/) { calls += $4 }
    END { print calls + 0 }' "$1"
}

touch "$WORK/run.flag"
( timeout -k 10 300 "$JAVA" -Xcheck:jni "$(agent cpu=times,depth=1,file=$WORK/start.txt)" -cp "$TEST_CLASSES" \
    DepthTarget "$WORK/run.flag" 240 >"$WORK/D.out" 2>"$WORK/D.err"; echo $? >"$WORK/D.rc" ) &
for _ in $(seq 600); do grep -q ready "$WORK/D.out" 2>/dev/null && break; sleep 0.1; done
PID=$(pgrep -f "DepthTarget $WORK/run.flag" | while read -r p; do
        [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
if [[ -z "$PID" ]]; then not_ok "the target program did not start"; exit 0; fi
sleep 2
hp dump $PID "$WORK/before.txt"
check "depth=1: hot() counted under a one-frame trace ($(hot_calls before.txt 1) calls), none under two" \
  bash -c "[[ $HRC == 0 && $(hot_calls before.txt 1) -gt 0 && $(hot_calls before.txt 2) == 0 ]]"
hp set $PID depth=2
check_said "set depth=2: the agent says so" 'depth 2'
sleep 2
hp dump $PID "$WORK/after.txt"
check "depth=2: hot() <- main() counted since ($(hot_calls after.txt 2) calls)" \
  bash -c "[[ $HRC == 0 && $(hot_calls after.txt 2) -gt 0 ]]"
rm -f "$WORK/run.flag"
for _ in $(seq 3000); do [[ -s "$WORK/D.rc" ]] && break; sleep 0.1; done
cat "$WORK/D.out" "$WORK/D.err" >>"$WORK/all-runs.txt"
check "the program ends as without the agent" bash -c "[[ \$(cat D.rc) == 0 ]] && grep -q '^done' D.out"
jni_clean
