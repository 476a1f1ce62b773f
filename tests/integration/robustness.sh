#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing breaks with other collectors, many threads, virtual threads, big heaps.
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

if [[ "$JDK_FEATURE" -ge 21 ]]; then
  run_java "$(agent cpu=samples,file=vt.txt,format=b)" Workers 0 0 200
  BASE_VT=$(base 0 0 200)
  check "200 virtual threads: same output ($BASE_VT), valid binary profile" \
    bash -c "[[ $RC -eq 0 ]] && same_as '$BASE_VT' && '$HPROF_DUMP' --check vt.txt >/dev/null"
else
  skip "200 virtual threads" "JDK $JDK_FEATURE has no virtual threads (JDK 21)"
fi

jni_clean
