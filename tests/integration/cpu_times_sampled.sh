#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=times, timing=sampled (the default): a method found cheap is timed by sample, and
# still every call is counted. SampledTimes calls cheap() 3,000,000 times and slow()
# (about 2 ms) 20 times: each run counts them exactly, slow()'s time is near what the
# program measured with the default as with timing=all, and the agent says
# (HPROF_TIMING_STATS) that cheap() was timed by sample in the default only.
source "$(dirname "$0")/../lib/common.sh"

# row_of FILE METHOD: "calls ms" of METHOD's rows in CPU TIME (ms is each row's share of the total).
row_of() {
  awk -v m="$2" '/^CPU TIME \(ms\) BEGIN/ { match($0, /total = [0-9]+/); total = substr($0, RSTART + 8, RLENGTH - 8); i = 1; next }
       /^CPU TIME \(ms\) END/ { i = 0 }
       i && $6 == m { p = $2; sub("%", "", p); ms += p * total / 100; calls += $4; rows++ }
       END { if (rows) printf "%d %.3f\n", calls, ms; else print "missing" }' "$1"
}
# near GOT WANT: GOT from 50% to 125% of WANT (WANT > 0). Loose below: the time the thread
# was off the CPU is cut from a batch's longest gaps, slow()'s here, so on a busy machine
# they lose some of their time whatever the timing (timing=all as much).
near() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(w > 0 && g >= w * 0.5 && g <= w * 1.25) }'; }

for timing in sampled all; do
  opts=cpu=times,cutoff=0,file=$timing.txt
  [[ $timing == all ]] && opts=$opts,timing=all
  HPROF_TIMING_STATS=1 run_java "$(agent "$opts")" SampledTimes
  cp out.txt "out-$timing.txt"
  check "timing=$timing: the run succeeded" test "$RC" -eq 0
  read -r cheap _ <<<"$(row_of "$timing.txt" SampledTimes.cheap)"
  read -r spin _ <<<"$(row_of "$timing.txt" SampledTimes.spin)"
  read -r slow got <<<"$(row_of "$timing.txt" SampledTimes.slow)"
  want=$(sed -n 's/^slow 20 calls //p' out.txt)
  check "timing=$timing: every call counted (cheap ${cheap:-?} of 3000000, spin ${spin:-?} of 30, slow ${slow:-?} of 20)" \
    test "${cheap:-0}" = 3000000 -a "${spin:-0}" = 30 -a "${slow:-0}" = 20
  check "timing=$timing: slow() ${got:-?} ms, the program measured ${want:-?} ms (50% to 125%)" near "${got:-0}" "${want:-0}"
done
check "timing=sampled: the agent says cheap() was timed by sample" \
  grep -q '^HPROF: timed by sample: SampledTimes.cheap(I)I, mean [0-9]* ns$' out-sampled.txt
# Only a call with an end that read no clock is charged its mean: the count shows that the
# Tracker itself skipped the clock, not only that the agent flagged the method.
charged=$(sed -n 's/^HPROF: cpu=times timing=sampled: [0-9]* methods timed by sample, \([0-9]*\) calls charged their mean$/\1/p' out-sampled.txt)
check "timing=sampled: most of cheap()'s 3,000,000 calls read no clock (${charged:-?} charged their mean)" \
  test "${charged:-0}" -ge 1000000
check "timing=all: nothing timed by sample" bash -c "! grep -q 'timed by sample' out-all.txt"
check "the legend says how calls are timed by sample" grep -q 'timing=sampled (the default)' sampled.txt
jni_clean
