#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=times measures short calls finely: tiny() (about 1 us, called 54321 times from 32
# call paths, each a trace of under 2 ms with depth=6, among longer work) is listed in
# every run, its time (the sum of its rows) within 10% of what the program measured
# (tests/java/CallTimes.java). The program gives two measures: its calls that stalled
# (over 10 us, descheduled or not) counted as 1 us, and counted whole; a stall the thread
# spent on the CPU cannot be told from work, so the time may lie anywhere between the two
# (at least 90% of the first, at most 110% of the second).
source "$(dirname "$0")/../lib/common.sh"

# tiny_row FILE: "calls ms" of CallTimes.tiny in CPU TIME, but for its calls from warmUp()
# (ms is each row's share of the total).
tiny_row() {
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); n = 0; next }
       /^\t/ { if (++n == 2) caller[tr] = $1; next }
       /^CPU TIME \(ms\) BEGIN/ { match($0, /total = [0-9]+/); total = substr($0, RSTART + 8, RLENGTH - 8); i = 1; next }
       /^CPU TIME \(ms\) END/ { i = 0 }
       i && $6 == "CallTimes.tiny" && caller[$5] !~ /^CallTimes\.warmUp\(/ { p = $2; sub("%", "", p); ms += p * total / 100; calls += $4; rows++ }
       END { if (rows) printf "%d %.3f\n", calls, ms; else print "missing" }' "$1"
}
# tiny_ok CALLS GOT LOW HIGH: the run succeeded, every call counted, the time no less
# than 90% of LOW and no more than 110% of HIGH.
tiny_ok() {
  [[ $RC -eq 0 && $1 == 54321 ]] &&
    awk -v g="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(lo > 0 && hi >= lo && g >= lo * 0.9 && g <= hi * 1.1) }'
}

for run in 1 2 3; do
  run_java -Xverify:all "$(agent cpu=times,depth=6,file=t$run.txt)" CallTimes
  want=$(sed -n 's/^tiny 54321 calls //p' out.txt)
  read -r stalls whole <<<"$(sed -n 's/^tiny stalls //p' out.txt)"
  read -r calls got <<<"$(tiny_row "t$run.txt")"
  check "run $run: tiny() listed: ${calls:-?} calls, ${got:-?} ms (the program measured ${want:-?} ms, ${whole:-?} with its ${stalls:-?} stalled calls whole; within 10%)" \
    tiny_ok "$calls" "${got:-0}" "${want:-0}" "${whole:-0}"
done
jni_clean
