#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Class-loader churn (tests/java/ClassChurn.java): 6 rounds of 250 loaders, each defining
# ChurnPayload afresh, making one and calling it; the loaders are dropped and unloaded
# after each round. What the agent keeps follows the classes loaded, not all those ever
# loaded, and the records count every copy in one row:
#   - cpu=times: ChurnPayload's methods one row each, every call counted (a copy unloaded
#     before its calls were counted too, named when it was prepared); its classes
#     numbered again from the same bytes;
#   - heap=sites: one site for ChurnPayload with every object; its class entries and the
#     jmethodIDs and raw trace keys of unloaded copies swept;
#   - heap=all,format=b: the dump written at the end is well formed;
#   - heap=dump,format=b with SIGQUIT dumps while loaders define the class all the time
#     (tests/java/ChurnKeep.java): every dump well formed.
# HPROF_TABLE_STATS=1 makes the agent say how big its tables are at the end.
source "$(dirname "$0")/../lib/common.sh"

ROUNDS=6
COPIES=250
TOTAL=$((ROUNDS * COPIES))

# rows FILE METHOD: "calls rows" of CPU TIME for ChurnPayload.METHOD.
rows() {
  awk -v m="ChurnPayload.$2" '/^CPU TIME \(ms\) BEGIN/ { i = 1; next } /^CPU TIME \(ms\) END/ { i = 0 }
       i && $6 == m { n += $4; r++ } END { print n + 0, r + 0 }' "$1"
}
# stat PATTERN: the first number sed's PATTERN (with one group) finds in the run's output.
stat() { sed -n "s/$1/\1/p" "$WORK/out.txt" | head -1; }
at_most() { [[ $2 =~ ^[0-9]+$ ]] && (( $2 <= $1 )); }
at_least() { [[ $2 =~ ^[0-9]+$ ]] && (( $2 >= $1 )); }
ran() { [[ $RC -eq 0 ]] && grep -q "^copies $TOTAL " "$WORK/out.txt"; }

# The heap=sites run beside the cpu=times ones (each round of either sleeps 1.2 s).
HPROF_TABLE_STATS=1 start_java "$WORK/sites-out.txt" -Xverify:all "$(agent heap=sites,cutoff=0,file=sites.txt)" \
  ClassChurn $ROUNDS $COPIES 1200
SITES_PID=$JPID
HPROF_TABLE_STATS=1 run_java -Xverify:all "$(agent cpu=times,cutoff=0,file=times.txt)" ClassChurn $ROUNDS $COPIES 1200
check "cpu=times: the churn runs to its end (exit $RC)" ran
check "cpu=times: ChurnPayload.applyAsLong in one row, $TOTAL calls ($(rows times.txt applyAsLong))" \
  [ "$(rows times.txt applyAsLong)" = "$TOTAL 1" ]
check "cpu=times: ChurnPayload.step in one row, $((TOTAL * 16)) calls ($(rows times.txt step))" \
  [ "$(rows times.txt step)" = "$((TOTAL * 16)) 1" ]
check "cpu=times: ChurnPayload.<init> in one row, $TOTAL calls ($(rows times.txt '<init>'))" \
  [ "$(rows times.txt '<init>')" = "$TOTAL 1" ]
check "cpu=times: no call left unnamed" bash -c "grep -q '^CPU TIME (ms) END' times.txt && ! grep -q 'Unknown Method' times.txt"
most=$(stat '^HPROF: tables: [0-9]* numbered classes, at most \([0-9]*\) for one name$')
check "cpu=times: at most ${most:-?} classes numbered under one name for $TOTAL copies (<= $((2 * COPIES)))" \
  at_most $((2 * COPIES)) "$most"
swept=$(stat '^HPROF: tables: swept [0-9]* class entries, \([0-9]*\) numbered classes.*')
check "cpu=times: ${swept:-?} numbered classes of unloaded loaders made vacant (>= $((TOTAL - 2 * COPIES)))" \
  at_least $((TOTAL - 2 * COPIES)) "$swept"

# A few copies, their calls still in the Tracker's buffer when the loaders are collected
# (a round's System.gc): the methods were named as each class was prepared, not at their
# first counted call, by when no copy of the bytes is left to name them (the rows were
# <Unknown Method>, and under load a whole round of the run above was).
run_java -Xverify:all "$(agent cpu=times,cutoff=0,file=few.txt)" ClassChurn 2 5 100
check "cpu=times, 2 rounds of 5 copies collected before their calls are counted: applyAsLong in one row, 10 calls ($(rows few.txt applyAsLong))" \
  [ "$(rows few.txt applyAsLong)" = "10 1" ]
check "cpu=times, 2 rounds of 5 copies: no call left unnamed" bash -c "grep -q '^CPU TIME (ms) END' few.txt && ! grep -q 'Unknown Method' few.txt"

wait_java $SITES_PID "$WORK/sites-out.txt"
cp "$WORK/sites-out.txt" "$WORK/out.txt"
check "heap=sites: the churn runs to its end (exit $RC)" ran
site=$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 == "ChurnPayload" { print $7; n++ }
            END { if (n != 1) print "rows " n + 0 }' sites.txt)
check "heap=sites: one site of ChurnPayload with $TOTAL objects ($site)" [ "$site" = "$TOTAL" ]
most=$(stat '^HPROF: tables: [0-9]* class entries ([0-9]* vacant), at most \([0-9]*\) for one name.*')
check "heap=sites: at most ${most:-?} class entries for one name for $TOTAL copies (<= $((2 * COPIES)))" \
  at_most $((2 * COPIES)) "$most"
ids=$(stat '^HPROF: tables: swept [0-9]* class entries, [0-9]* numbered classes, \([0-9]*\) jmethodIDs.*')
raw=$(stat '^HPROF: tables: swept .*jmethodIDs, \([0-9]*\) raw keys$')
check "heap=sites: jmethodIDs (${ids:-?}) and raw trace keys (${raw:-?}) of unloaded copies swept (>= $((TOTAL - 2 * COPIES)))" \
  bash -c "[[ '$ids' =~ ^[0-9]+$ && '$raw' =~ ^[0-9]+$ ]] && (( $ids >= $((TOTAL - 2 * COPIES)) && $raw >= $((TOTAL - 2 * COPIES)) ))"

run_java "$(agent heap=all,format=b,file=all.hprof)" ClassChurn 3 $COPIES 1200
check "heap=all,format=b: the churn runs to its end, its dump passes hprof-dump --check" \
  bash -c "[[ $RC -eq 0 ]] && '$HPROF_DUMP' --check all.hprof >check.txt 2>&1"
# Dumps taken while classes of one name are defined by new loaders all the time: the
# copies loaded between the agent's list of classes and the JVM's dump are many of one
# name, and each must be written (with its objects) and referred to rightly.
sigquit_dumps 3 wait "$WORK/keep.txt" "$(agent heap=dump,format=b,file=keep.hprof)" ChurnKeep 8 400
dumps=$("$HPROF_DUMP" --summary keep.hprof 2>/dev/null | sed -n 's/^heap_dumps=//p')
check "heap=dump,format=b during churn: runs to its end (exit $RC), 4 dumps (${dumps:-?})" \
  bash -c "[[ $RC -eq 0 && '${dumps:-0}' == 4 ]] && grep -q '^copies ' '$WORK/keep.txt'"
check "heap=dump,format=b during churn: every dump passes hprof-dump --check ($(grep -m1 '^error' keep-check.txt 2>/dev/null))" \
  bash -c "'$HPROF_DUMP' --check keep.hprof >keep-check.txt 2>&1"
jni_clean
