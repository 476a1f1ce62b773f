#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent's native memory follows the live threads (tests/java/ContendedChurn.java):
# short threads started one after another, a few at once, contending for a monitor,
# waiting on it now and then, allocating. The program reads its resident memory (VmRSS)
# each time a tenth of the threads have run; the last eight tenths give eight growths,
# and their median times eight is the run's growth with the one-time steps left out (a
# cache or an arena filled once; seen: 23 MiB in one tenth, none after). Less the same
# figure without the agent, it must stay under LIMIT_KIB in each mode, where a leak grows
# in every tenth: the agent kept about 200 bytes for every thread that ever ran (the
# thread table's entry and names, monitor=y's slot by serial), 15 MiB over 80,000
# threads; the limit is 78 bytes a thread (3 MiB over 40,000: a leak of 100 bytes a thread
# planted in ThreadStart read 86 and 109 bytes a thread, and failed; a run over the limit
# is made twice and the lower counts, as a leak grows in every run). The heap is fixed and touched
# at start (-Xms = -Xmx, AlwaysPreTouch), and no timing is asserted. Also: every thread
# has its THREAD START and THREAD END, and MONITOR DUMP lists every thread (those that
# ended as ZO, as the original did: 4 bytes a thread). CHURN_THREADS changes the number of
# threads (default 50000: each run costs about 20 s of CPU, three runs per JDK; the
# agent's growth read 4 bytes a thread, as with 100,000).
# hprof-test: two-slots
source "$(dirname "$0")/../lib/common.sh"

THREADS=${CHURN_THREADS:-50000}
LIMIT_KIB=${CHURN_LIMIT_KIB:-$((THREADS * 4 / 5 * 78 / 1024))}
RUN_TIMEOUT=${CHURN_TIMEOUT:-900}
# Under AddressSanitizer (tests/check.sh), freed memory waits in a quarantine of 256 MB
# before it is used again: a small one keeps RSS for what is really held.
[[ -n "${ASAN_OPTIONS:-}" ]] && export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=8"
HEAP=(-Xms64m -Xmx64m -XX:+AlwaysPreTouch)

# growth: KiB the resident memory grew by over the last eight tenths, one-time steps left
# out (the median of the eight growths, times eight).
growth() {
  awk '$1 == "rss" && NF == 13 && $12 == "threads" {
         for (i = 1; i <= 8; i++) d[i] = $(i + 3) - $(i + 2)
         for (i = 1; i <= 8; i++) for (j = i + 1; j <= 8; j++) if (d[j] < d[i]) { t = d[i]; d[i] = d[j]; d[j] = t }
         print 4 * (d[4] + d[5]) }' "$WORK/out.txt"
}
# below LIMIT VALUE: VALUE is a number less than LIMIT.
below() { [[ $2 =~ ^-?[0-9]+$ ]] && (( $2 < $1 )); }
ended() { [[ $RC -eq 0 ]] && grep -Eq "^rss( [0-9]+)+ threads $THREADS\$" "$WORK/out.txt"; }

run_java "${HEAP[@]}" ContendedChurn "$THREADS"
BASE=$(growth)
check "without the agent: the run ends, RSS grew by ${BASE:-?} KiB over $((THREADS * 4 / 5)) threads" ended
[[ $BASE =~ ^-?[0-9]+$ ]] || BASE=0

# Two runs cover the four modes whose tables follow threads (one run each cost twice the
# time, and a leak of either mode of a pair shows the same).
for MODE in cpu=samples,monitor=y cpu=times,heap=sites; do
  F=$(echo "$MODE" | tr '=,' '--').txt
  run_java "${HEAP[@]}" "$(agent "$MODE,file=$F")" ContendedChurn "$THREADS"
  G=$(growth)
  AGENT=$(( ${G:-999999999} - BASE ))
  check "$MODE: the run ends (exit $RC)" ended
  # Over the limit: once more, and the lower growth counts. A leak grows in every run;
  # the allocator's arenas do not (JDK 25, cpu=times,heap=sites: 20 to 94 bytes a
  # thread over runs of the same build, most under 40).
  if ! below "$LIMIT_KIB" "$AGENT"; then
    cp "$WORK/out.txt" "$WORK/out-first.txt"
    run_java "${HEAP[@]}" "$(agent "$MODE,file=again-$F")" ContendedChurn "$THREADS"
    G=$(growth)
    AGAIN=$(( ${G:-999999999} - BASE ))
    echo "# $MODE: the agent's RSS grew by $AGENT KiB, then by $AGAIN KiB in a second run"
    (( AGAIN < AGENT )) && AGENT=$AGAIN
    cp "$WORK/out-first.txt" "$WORK/out.txt"
  fi
  check "$MODE: the agent's RSS grew by $AGENT KiB ($(( AGENT * 1024 / (THREADS * 4 / 5) )) bytes a thread) over $((THREADS * 4 / 5)) threads (< $LIMIT_KIB KiB)" \
    below "$LIMIT_KIB" "$AGENT"
  STARTS=$(grep -c '^THREAD START' "$F" || true)
  ENDS=$(grep -c '^THREAD END' "$F" || true)
  check "$MODE: every thread has its THREAD START and THREAD END ($STARTS, $ENDS; $THREADS started by the program)" \
    bash -c "(( $STARTS > $THREADS && $ENDS >= $THREADS && $STARTS - $ENDS < 20 ))"
  if [[ $MODE == *monitor=y* ]]; then
    LISTED=$(sed -n '/^MONITOR DUMP BEGIN/,/^MONITOR DUMP END/p' "$F" | grep -c '^    THREAD ' || true)
    ZOMBIES=$(sed -n '/^MONITOR DUMP BEGIN/,/^MONITOR DUMP END/p' "$F" | grep -c '^    THREAD .*status: ZO$' || true)
    check "monitor=y: MONITOR DUMP lists every thread ($LISTED of $STARTS), the $ZOMBIES that ended as ZO" \
      bash -c "(( $LISTED == $STARTS && $ZOMBIES >= $THREADS && $LISTED - $ZOMBIES < 20 ))"
    check "monitor=y: contention was seen (MONITOR TIME names ContendedChurn.work)" \
      bash -c "grep -q 'ContendedChurn.work' '$F'"
  fi
done
jni_clean
