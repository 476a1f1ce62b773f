#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every bytecode family under the real agent: cpu=times and heap=sites with -Xverify:all
# on a program with both switches, wide locals, long jumps, a near-64 KiB method,
# invokedynamic lambdas, nested try/finally, odd constructors, and jsr/ret classes of
# versions 49 and 45.0 (hand-assembled by tools/cf-rewrite).
source "$(dirname "$0")/../lib/common.sh"

bash "$HPROF_ROOT/tests/java/cf/gen-generated.sh" gen
"$JAVA_HOME/bin/javac" -nowarn -d prog "$HPROF_ROOT/tests/java/cf/prog/cfprog/Main.java" gen/cfprog/Generated.java \
  >javac.txt 2>&1 || { not_ok "the test program compiles: $(head -3 javac.txt)"; exit 0; }
"$HPROF_BIN/cf-rewrite" --emit-jsr jsr >/dev/null 2>&1 || not_ok "cf-rewrite --emit-jsr"
run() {  # run CLASSPATH CLASS [agent options]: output in $WORK/run.txt, status in RC
  local cp=$1 cls=$2 opts=${3:-}
  set +e
  if [[ -n "$opts" ]]; then
    timeout 300 "$JAVA" -Xverify:all -Xcheck:jni "$(agent "$opts")" -cp "$cp" "$cls" >run.txt 2>&1
  else
    timeout 300 "$JAVA" -Xverify:all -cp "$cp" "$cls" >run.txt 2>&1
  fi
  RC=$?
  set -e
  cat run.txt >>all-runs.txt
}

run prog cfprog.Main; cp run.txt plain.txt
for mode in "cpu=times,cutoff=0,file=t.txt" "heap=sites,cutoff=0,file=s.txt" "cpu=old,file=o.txt"; do
  run prog cfprog.Main "$mode"
  [[ $mode == heap=sites* ]] && cp run.txt sout.txt
  check "${mode%%,*}: every bytecode family runs the same as without the agent" \
    bash -c "[[ $RC -eq 0 ]] && grep -q . plain.txt && diff <(grep -v '^Dumping\|^HPROF: ' run.txt) plain.txt >/dev/null && ! grep -q VerifyError run.txt"
done
# Exact counts: main() calls nestedFinally() 5 times and table() 7 times.
calls() { awk -v m="$1" '/^CPU TIME \(ms\) BEGIN/{i=1;next} /^CPU TIME/{i=0} i && $6 == m { s += $4 } END { print s + 0 }' t.txt; }
check "nestedFinally() counted 5 times" test "$(calls cfprog.Main.nestedFinally)" -eq 5
check "table() counted 7 times (tableswitch)" test "$(calls cfprog.Main.table)" -eq 7
check "lookup() counted 5 times (lookupswitch)" test "$(calls cfprog.Main.lookup)" -eq 5
check "heap=sites: the near-64 KiB method (9000 allocations) is left as it was, and said so" \
  bash -c "grep -q '^HPROF: 1 method was left as it was' sout.txt && ! grep -qP '^\tcfprog.Generated.nearLimit' s.txt"

for cls in cfjsr.Jsr cfjsr.Old; do
  run jsr $cls; cp run.txt jplain.txt
  run jsr $cls "cpu=times,cutoff=0,file=j.txt"
  check "$cls (jsr/ret) under cpu=times: same output" bash -c "[[ $RC -eq 0 ]] && grep -q . jplain.txt && diff <(grep -v '^Dumping' run.txt) jplain.txt >/dev/null"
done
jni_clean
