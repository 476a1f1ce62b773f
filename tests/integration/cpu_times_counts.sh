#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU TIME lists every trace whose calls it counted, whatever its time (issue 46): a row
# is kept when its time or its calls reach the cutoff's share. tests/java/LeafCalls.java
# calls the trivial leaf() exactly 54,321 times from mid(), mid() 321 times from main():
# the default output (cutoff 0.0001) of timing=sampled, timing=all and timing=gprof says
# so in the text's CPU TIME rows and in the pprof view's calls (go tool pprof -traces),
# and cpu=old in its lines; timing=all times leaf() itself (its stack has CPU time); the
# flame graph's tip gives a frame's own calls. timing=gprof: the samples in a lambda's
# hidden class (no agent may instrument it) go to its caller, so the rows with time of
# tests/java/LambdaWork.java are the rows with its 200,000 counted calls; walks that
# failed (HPROF_SAMPLER_FAULT) are no row among the methods but a line after the section.
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"

calls() { cpu_time_calls "$@"; } # FILE METHOD CALLER_REGEX (tests/lib/common.sh)
is() { [[ $1 == "$2" ]]; }
# pprof_calls FILE.pb.gz STACK [TYPE]: the value of TYPE (calls) pprof gives that stack
# (root first, ';' between frames).
pprof_calls() { pprof_collapsed "$1" "${3:-calls}" | awk -v s="$2" '{ v = $NF; $NF = "" } $0 == s " " { print v; f = 1 } END { if (!f) print 0 }'; }

set +e
BASE=$("$JAVA" -cp "$TEST_CLASSES" LeafCalls 2>&1)
set -e
for timing in sampled all gprof; do
  rm -f java.hprof*
  run_java -Xverify:all "$(agent cpu=times,timing=$timing,view=pprof+html)" LeafCalls
  check "timing=$timing: same output and status as without the agent ($BASE)" \
    bash -c "[[ $RC -eq 0 && -n '$BASE' ]] && grep -qxF '$BASE' out.txt"
  leaf=$(calls java.hprof.txt LeafCalls.leaf '^LeafCalls.mid$') mid=$(calls java.hprof.txt LeafCalls.mid '^LeafCalls.main$')
  check "timing=$timing, default cutoff: CPU TIME lists leaf() 54321 calls from mid(), mid() 321 from main() ($leaf, $mid)" \
    is "$leaf/$mid" 54321/321
  if have_go; then
    pl=$(pprof_calls java.hprof.cpu.pb.gz 'LeafCalls.main;LeafCalls.mid;LeafCalls.leaf')
    pm=$(pprof_calls java.hprof.cpu.pb.gz 'LeafCalls.main;LeafCalls.mid')
    check "timing=$timing: go tool pprof -traces, calls: main;mid;leaf 54321, main;mid 321 ($pl, $pm)" is "$pl/$pm" 54321/321
  else
    not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
  fi
  if [[ $timing == all ]]; then
    # timing=all times every call: leaf() is instrumented as any method, not counted only.
    if have_go; then
      ns=$(pprof_calls java.hprof.cpu.pb.gz 'LeafCalls.main;LeafCalls.mid;LeafCalls.leaf' cpu)
      check "timing=all: trivial leaf() is timed, its stack has CPU time of its own (${ns} ns)" test "$ns" -gt 0
    else
      not_ok "go tool pprof not found (Debian: apt-get install golang-go)"
    fi
  fi
  if [[ $timing == sampled ]]; then
    check "timing=sampled: trivial leaf() is counted, not timed: its row shows 0.00%" \
      bash -c "awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i && \$6 == \"LeafCalls.leaf\" { n++; if (\$2 != \"0.00%\") bad = 1 }
        END { exit !(n == 1 && !bad) }' java.hprof.txt"
    if have_chromium; then
      html_find "$WORK/java.hprof.cpu.html" LeafCalls.leaf >tip.txt
      check "flame graph in chromium: leaf()'s tip gives its own calls ($(grep tip= tip.txt))" \
        grep -q '^tip=LeafCalls.leaf | .* | calls of its own: 54,321$' tip.txt
      html_find "$WORK/java.hprof.cpu.html" LeafCalls.mid >tip.txt
      check "... and mid()'s its 321" grep -q '^tip=LeafCalls.mid | .* | calls of its own: 321$' tip.txt
    else
      not_ok "chromium not found (Debian: apt-get install chromium)"
    fi
  fi
done

# cpu=old lists every caller/callee pair (cutoff 0): the same counts.
run_java -Xverify:all "$(agent cpu=old,file=old.txt)" LeafCalls
check "cpu=old: leaf() 54321 calls from mid(), mid() 321 from main()" \
  bash -c "grep -q '^54321 LeafCalls.leaf(J)J LeafCalls.mid(I)V ' old.txt && grep -q '^321 LeafCalls.mid(I)V LeafCalls.main(\\[Ljava/lang/String;)V ' old.txt"

# timing=gprof with a lambda: LambdaWork.work runs under the lambda's hidden class, which
# is not instrumented. Its samples used to make a trace of their own (with the hidden
# class's frame) and a row with time and 0 calls; they go to the counted trace now.
run_java -Xverify:all "$(agent cpu=times,timing=gprof,interval=1,file=g.txt)" LambdaWork
check "LambdaWork under timing=gprof: same output (exit $RC)" bash -c "[[ $RC -eq 0 ]] && grep -qx true out.txt"
check "work() 200000 calls from lambda\$main\$0, which main() called 200000 times" \
  is "$(calls g.txt LambdaWork.work '^LambdaWork.lambda\$main\$0$')/$(calls g.txt 'LambdaWork.lambda$main$0' '^LambdaWork.main$')" 200000/200000
check "work()'s time is on its counted rows: no row of LambdaWork with time and 0 calls" \
  bash -c "rows=\$(awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i && \$6 ~ /^LambdaWork\\./' g.txt)
    [[ -n \$rows ]] && awk '\$6 == \"LambdaWork.work\" && \$2 != \"0.00%\" { t = 1 } \$2 != \"0.00%\" && \$4 == 0 { bad = 1 }
      END { exit !(t && !bad) }' <<<\"\$rows\""
check "no hidden class's frame in CPU TIME's traces, no [walk_failed] row among the methods" \
  bash -c "! grep -Eq '^\\s.*\\\$\\\$Lambda' g.txt && ! awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i' g.txt | grep -q 'walk_failed'"
check "samples left out are said after the section, in its format (if any)" \
  bash -c "! grep -q '^SAMPLES NOT IN CPU TIME' g.txt ||
    grep -Eqx 'SAMPLES NOT IN CPU TIME: [0-9]+ \\([0-9]+ ms\\), [0-9]+ whose stack could not be walked, [0-9]+ in no method counted' g.txt"

# Every stack walk made to fault (the guard on, as tests/integration/cpu_signal.sh does):
# no sample has a stack, so none is a row; the line after the section counts them.
HPROF_WALK_GUARD=1 HPROF_SAMPLER_FAULT=1 run_java "$(agent cpu=times,timing=gprof,interval=1,file=f.txt)" LambdaWork
line=$(grep '^SAMPLES NOT IN CPU TIME: ' f.txt)
check "walks that failed: counted after CPU TIME (${line#*: }), not rows; work()'s 200000 calls still listed" \
  bash -c "[[ $RC -eq 0 ]] && [[ '$line' =~ ^SAMPLES\ NOT\ IN\ CPU\ TIME:\ ([1-9][0-9]*)\ .*,\ ([1-9][0-9]*)\ whose ]] &&
    [[ \${BASH_REMATCH[1]} == \${BASH_REMATCH[2]} ]] &&
    ! awk '/^CPU TIME \\(ms\\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i' f.txt | grep -q walk_failed &&
    [[ \$(awk '/^CPU TIME/{i=1} i && \$6 == \"LambdaWork.work\" { s += \$4 } END { print s + 0 }' f.txt) == 200000 ]]"

jni_clean
