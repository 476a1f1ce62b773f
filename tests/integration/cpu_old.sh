#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=old: the time column is the time of the call including its callees, as in the
# original (CallTimes: outer() spends nearly all its time in inner()).
source "$(dirname "$0")/../lib/common.sh"

# old_time CALLEE CALLER: the time column of the pair's line in o.txt.
old_time() { awk -v e="CallTimes.$1(" -v r="$2(" 'index($2, e) == 1 && index($3, r) == 1 { print $4 }' o.txt; }
# within PCT GOT WANT: GOT differs from WANT by at most PCT percent of WANT.
within() { awk -v p="$1" -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }'; }

run_java -Xverify:all "$(agent cpu=old,file=o.txt)" CallTimes
want=$(sed -n 's/^inner 500 calls //p' out.txt)
inner=$(old_time inner CallTimes.outer)
outer=$(old_time outer CallTimes.main)
check "cpu=old: the run succeeds, the old header first" \
  bash -c "[[ $RC -eq 0 ]] && head -1 o.txt | grep -qx 'count callee caller time'"
check "cpu=old: inner() by outer(): ${inner:-?} ms, within 10% of the program's ${want:-?} ms" \
  within 10 "${inner:-0}" "${want:-0}"
check "cpu=old: outer()'s time includes inner()'s: ${outer:-?} ms, within 10% of ${want:-?} ms" \
  within 10 "${outer:-0}" "${want:-0}"
jni_clean
