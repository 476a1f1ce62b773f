#!/usr/bin/env bash
# cpu=times measures short calls finely: tiny() (about 1 us, called 54321 times from 32
# call paths, each a trace of under 2 ms with depth=6, among longer work) is listed in
# every run, its time (the sum of its rows) within 10% of what the program measured
# (tests/java/CallTimes.java).
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
# within PCT GOT WANT: GOT differs from WANT by at most PCT percent of WANT.
within() { awk -v p="$1" -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; }
# tiny_ok CALLS GOT WANT: the run succeeded, every call counted, the time within 10%.
tiny_ok() { [[ $RC -eq 0 && $1 == 54321 ]] && within 10 "$2" "$3"; }

for run in 1 2 3; do
  run_java -Xverify:all "$(agent cpu=times,depth=6,file=t$run.txt)" CallTimes
  want=$(sed -n 's/^tiny 54321 calls //p' out.txt)
  read -r calls got <<<"$(tiny_row "t$run.txt")"
  check "run $run: tiny() listed: ${calls:-?} calls, ${got:-?} ms (the program measured ${want:-?} ms; within 10%)" \
    tiny_ok "$calls" "${got:-0}" "${want:-0}"
done
jni_clean
