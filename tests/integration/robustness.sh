#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing breaks with other collectors, many threads, virtual threads, big heaps, or a
# program that overflows its stack.
source "$(dirname "$0")/../lib/common.sh"

# base ARGS...: the program's output without the agent (its checksum line).
base() { set +e; "$JAVA" -cp "$TEST_CLASSES" Workers "$@" 2>&1; set -e; }
# same_as BASE: the last run printed BASE, a checksum line (an empty BASE would match any
# empty line). Exported for the checks' bash -c.
same_as() { [[ $1 =~ ^checksum\ [0-9a-f]+$ ]] && grep -qxF -- "$1" "$WORK/out.txt"; }
export -f same_as; export WORK
BASE_SMALL=$(base 4 20 10)
BASE_BIG=$(base 8 300 0)
check "without the agent: one checksum line per run, to compare the runs with" \
  bash -c "for b in '$BASE_SMALL' '$BASE_BIG'; do [[ \$b =~ ^checksum\ [0-9a-f]+\$ ]] || exit 1; done"

for gc in UseSerialGC UseParallelGC UseG1GC UseZGC UseShenandoahGC; do
  have_collector "${gc#Use}" || continue
  # Every mode with this collector, in two runs: the one that instruments bytecode, and
  # the sampler with the modes that tag objects and walk the heap.
  RUN_TIMEOUT=120 run_java -XX:+$gc -Xverify:all "$(agent cpu=times,file=gct.txt)" Workers 4 20 10
  check "-XX:+$gc cpu=times: same checksum, CPU TIME written" \
    bash -c "[[ $RC -eq 0 ]] && same_as '$BASE_SMALL' && grep -q '^CPU TIME (ms) END' gct.txt"
  RUN_TIMEOUT=120 run_java -XX:+$gc "$(agent cpu=samples,heap=all,file=gca.txt)" Workers 4 20 10
  check "-XX:+$gc cpu=samples,heap=all: same checksum, status 0, CPU samples, heap dump and sites written" \
    bash -c "[[ $RC -eq 0 ]] && same_as '$BASE_SMALL' && grep -q '^CPU SAMPLES END' gca.txt && grep -q '^HEAP DUMP END' gca.txt && grep -q '^SITES END' gca.txt"
done

run_java -Xmx4g -Xms4g "$(agent cpu=samples,file=big.txt,thread=y)" Workers 8 300 0
check "300 blocked threads + 8 busy ones: same output, profile written" \
  bash -c "[[ $RC -eq 0 ]] && same_as '$BASE_BIG' && grep -q '^CPU SAMPLES END' big.txt"
# 300 parked threads would swamp the profile with Unsafe.park if blocked threads counted
# (nearly every sample). The run takes 10-20 samples, so a park sample or two (a thread
# caught as it parks) is noise: a quarter is the bound.
check "blocked threads are not sampled as busy" bash -c "awk '/^CPU SAMPLES BEGIN/{i=1;next} /^CPU SAMPLES END/{i=0} i&&\$1~/^[0-9]+\$/{t+=\$4; if (\$6 ~ /Unsafe.park\$/) p+=\$4} END{exit !(t > 0 && p * 4 < t)}' big.txt"
check "every started thread has an END" bash -c "[[ \$(grep -c '^THREAD START.*name=\"\\(idle\\|worker\\)-' big.txt) -eq 308 && \$(grep -c '^THREAD END' big.txt) -ge 308 ]]"

# A program that overflows its stack and catches the error (tests/java/StackOver.java):
# the hooks and the samplers run in the last frames there is room for. Every mode keeps
# the program's output and status and writes its profile; the modes that count calls
# count every call of down() the program itself counted (a hook that finds no room
# throws before the method's body runs, so the two agree). The sampler gets 100 overflows,
# enough time in down() that 1 ms samples find it on a loaded machine (6 took 20 ms, and
# one run in twelve had no sample there).
# down_calls FILE MODE: the calls of StackOver.down in the profile.
down_calls() {
  if [[ $2 == cpu=old ]]; then
    awk '$2 == "StackOver.down(I)I" { c += $1 } END { print c + 0 }' "$1"
  else
    awk '/^CPU TIME \(ms\) BEGIN/ { i = 1; next } /^CPU TIME/ { i = 0 } i && $6 == "StackOver.down" { c += $4 } END { print c + 0 }' "$1"
  fi
}
for mode in cpu=times cpu=times,timing=gprof cpu=times,timing=all cpu=old heap=sites cpu=samples,interval=1; do
  rounds=5
  [[ $mode == cpu=samples* ]] && rounds=100
  RUN_TIMEOUT=120 run_java -Xverify:all "$(agent $mode,cutoff=0,file=so.txt)" StackOver $rounds
  want=$(sed -n 's/^down //p' out.txt)
  got=$want what="the profile names down()"
  if [[ $mode == cpu=times* || $mode == cpu=old ]]; then
    got=$(down_calls so.txt "$mode") what="down() called ${want:-?} times, counted $got"
  fi
  check "stack overflows caught under $mode: same output, status 0, $what" \
    bash -c "[[ $RC -eq 0 && -n '$want' && '$got' == '$want' ]] && grep -qx 'overflowed $((rounds + 1))' out.txt && grep -q 'StackOver\\.down' so.txt"
done

if [[ "$JDK_FEATURE" -ge 21 ]]; then
  run_java "$(agent cpu=samples,file=vt.txt,format=b)" Workers 0 0 200
  BASE_VT=$(base 0 0 200)
  check "200 virtual threads: same output ($BASE_VT), valid binary profile" \
    bash -c "[[ $RC -eq 0 ]] && same_as '$BASE_VT' && '$HPROF_DUMP' --check vt.txt >/dev/null"
else
  skip "200 virtual threads" "JDK $JDK_FEATURE has no virtual threads (JDK 21)"
fi

jni_clean
