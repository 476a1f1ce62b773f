#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/churn.sh: the full thread churn of the Trust issue's item 11, with its times.
#
#   bench/churn.sh [--jdk DIR] [--platform N] [--virtual N] [--modes "times old"] [--agent PATH]
#
# Runs tests/java/ThreadChurn.java under cpu=times and cpu=old with -Xmx256m: N short
# platform threads one after another (default 100,000), then N virtual threads (default
# 1,000,000; JDK 21+ only), and prints for each run: exit status, wall time, peak RSS, the
# heap in use once a tenth of the threads had run and at the end (after a GC), the calls of
# ThreadChurn.body in the profile (exact: it must equal N) and the call stacks the agent
# made (HPROF_STACK_STATS). tests/integration/cpu_times_churn.sh runs the same checks with
# CI-sized counts.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
PLATFORM=100000
VIRTUAL=1000000
MODES="times old"
AGENT="$ROOT/build/libhprof.so"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=${2:?}; shift ;;
    --platform) PLATFORM=${2:?}; shift ;;
    --virtual) VIRTUAL=${2:?}; shift ;;
    --modes) MODES=${2:?}; shift ;;
    --agent) AGENT=${2:?}; shift ;;
    *) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-churn-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$JDK/bin/javac" -nowarn -d "$WORK" "$ROOT/tests/java/ThreadChurn.java" "$ROOT/tests/java/VirtualThreads.java" || exit 1
feature=$("$JDK/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')

printf '%-6s %-8s %9s %5s %9s %9s %12s %12s %9s %7s\n' mode kind threads exit wall_s rss_mib heap_tenth heap_end body stacks
for kind in platform virtual; do
  n=$PLATFORM
  if [[ $kind == virtual ]]; then
    [[ $feature -ge 21 ]] || continue
    n=$VIRTUAL
  fi
  for mode in $MODES; do
    out="$WORK/out.txt" prof="$WORK/prof.txt"
    HPROF_STACK_STATS=1 /usr/bin/time -f 'TIME %e %M' timeout -k 10 3600 "$JDK/bin/java" -Xmx256m \
      "-agentpath:$AGENT=cpu=$mode,cutoff=0,file=$prof" -cp "$WORK" ThreadChurn "$kind" "$n" >"$out" 2>&1
    rc=$?
    read -r wall rss < <(sed -n 's/^TIME //p' "$out")
    read -r tenth end < <(awk '/^threads [0-9]+ heap/ { print $7, $NF }' "$out")
    if [[ $mode == times ]]; then
      body=$(awk '/^CPU TIME \(ms\) BEGIN/ { i = 1 } /^CPU TIME \(ms\) END/ { i = 0 }
                  i && $6 == "ThreadChurn.body" { n += $4 } END { print n + 0 }' "$prof")
    else
      body=$(awk 'index($2, "ThreadChurn.body(") == 1 { n += $1 } END { print n + 0 }' "$prof")
    fi
    stacks=$(sed -n 's/^HPROF: cpu=times call stacks: \([0-9]*\) made.*/\1/p' "$out")
    printf '%-6s %-8s %9s %5s %9s %9s %12s %12s %9s %7s\n' "$mode" "$kind" "$n" "$rc" "${wall:-?}" \
      "$(( ${rss:-0} / 1024 ))" "${tenth:-?}" "${end:-?}" "$body" "${stacks:-?}"
  done
done
