#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The readers on structured hostile files made at test time by build/gen-hostile
# (tests/fuzz/gen_hostile.c), too big to commit: each gets a verdict (a status of 0 or 1
# and its words), never a signal, within 2 GB of memory and 60 s, limits that the readers
# which recursed, copied or multiplied by the input's counts passed by far.
# The runner exports HPROF_BIN (the build tree) and HPROF_ROOT (the checkout).
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${HPROF_BIN:-$ROOT/build}
GEN=$BIN/gen-hostile DUMP=$BIN/hprof-dump TOOL=$BIN/hprof
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-hostile-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok()     { echo "ok - hostile inputs: $*"; }
not_ok() { echo "not ok - hostile inputs: $*"; }

for b in "$GEN" "$DUMP" "$TOOL"; do
  [[ -x $b ]] || { not_ok "$b not built"; exit 1; }
done

# Under AddressSanitizer (make check) the tools reserve terabytes of shadow memory, so an
# address-space limit would stop them at start: there the bound is time alone (3x, as
# ASan is slower), and the memory bound is the plain build's (make test).
LIMIT_KIB=2097152; SECONDS_MAX=60
if ldd "$DUMP" 2>/dev/null | grep -q libasan; then LIMIT_KIB=unlimited; SECONDS_MAX=180; fi

# bounded NAME STATUS PATTERN COMMAND...: COMMAND, in 2 GB and 60 s, exits with STATUS and
# says PATTERN (an extended regex) on its stdout or stderr.
bounded() {
  local what=$1 want=$2 pattern=$3; shift 3
  (ulimit -v "$LIMIT_KIB"; exec timeout -k 5 "$SECONDS_MAX" "$@") >"$WORK/out" 2>&1
  local rc=$?
  if [[ $rc -eq $want ]] && grep -qE -- "$pattern" "$WORK/out"; then
    ok "$what"
  else
    not_ok "$what (status $rc, want $want and /$pattern/)"
    head -n 5 "$WORK/out" | sed 's/^/#   /'
  fi
}

# A chain of 300,000 classes, each the superclass of the next, one instance of the last,
# whose fields all hold the instance itself: a valid file of 23 MB.
"$GEN" chain 300000 >"$WORK/chain.hprof"
bounded "a 300,000-deep chain of superclasses: --check passes it" 0 "chain.hprof: ok, 300003 records" \
  "$DUMP" --check "$WORK/chain.hprof"
bounded "... read from a pipe (the heap dump spooled)" 0 "ok, 300003 records" \
  bash -c "cat '$WORK/chain.hprof' | '$DUMP' --check -"
bounded "... printed: a line a record and sub-record" 0 "^600005$" \
  bash -c "set -o pipefail; '$DUMP' '$WORK/chain.hprof' | wc -l"

bounded "... hprof analyze reads it (nothing is reachable: no root)" 0 "^DUMP: 300001 objects" \
  "$TOOL" analyze "$WORK/chain.hprof"
# A linked list of 1,000,000 objects from one root: dominators, paths and the report
# without recursion (each node retains the rest).
python3 "$ROOT/tests/tools/deep_chain_hprof.py" 1000000 >"$WORK/list.hprof"
bounded "hprof analyze: a 1,000,000-deep list, the head retains all" 0 "^   1     16000000           16 Link#0x1000$" \
  "$TOOL" analyze "$WORK/list.hprof" --path 0x7a21f8

# The same chain closed into a loop: the first class's superclass is the last.
"$GEN" cycle 300000 >"$WORK/cycle.hprof"
bounded "a loop of 300,000 superclasses is an error that names it" 1 \
  "CLASS_DUMP 0x10000: its chain of superclasses comes back to it \(through 0x10008\)" \
  "$DUMP" --check "$WORK/cycle.hprof"
bounded "... hprof analyze reads it, the loop's instances without references" 0 "0 references" \
  "$TOOL" analyze "$WORK/cycle.hprof"
"$GEN" cycle 1 >"$WORK/self.hprof"
bounded "a class that is its own superclass too" 1 "CLASS_DUMP 0x10000: its chain of superclasses comes back to it" \
  "$DUMP" --check "$WORK/self.hprof"

# 150,000 threads started and never ended, then 150,000 empty heap dumps: one warning a
# dump, not a look at every thread in each.
"$GEN" threads 150000 150000 >"$WORK/threads.hprof"
bounded "150,000 threads and 150,000 heap dumps: a warning a dump" 0 \
  "HEAP_DUMP: 150000 threads started and not ended have no ROOT_THREAD_OBJECT in it: 1, 2, 3, 4, \.\.\." \
  "$DUMP" --check "$WORK/threads.hprof"

# hprof view: 300,000 rows on one trace of 300,000 frames, binary and text: the rows of a
# trace add up before stacks are made.
"$GEN" deep-trace 300000 300000 >"$WORK/deep.hprof"
bounded "view: 300,000 samples on a 300,000-frame trace (binary): one stack" 0 "1 stacks, 300000 count" \
  "$TOOL" view "$WORK/deep.hprof" -o "$WORK/deep.collapsed"
"$GEN" text-trace 300000 300000 >"$WORK/deep.txt"
bounded "view: the same as a text profile" 0 "1 stacks, 300000 count" \
  "$TOOL" view "$WORK/deep.txt" -o "$WORK/deep-txt.collapsed"
# ... and 200,000 sites of as many classes on a trace of 200,000 frames: 4 x 10^10 frames.
"$GEN" text-sites 200000 200000 >"$WORK/sites.txt"
bounded "view: 200,000 classes' sites on a 200,000-frame trace are refused, saying why" 1 \
  "make stacks of 40000600000 frames in all, more than the [0-9]+ a file of this size may ask for" \
  "$TOOL" view "$WORK/sites.txt" -o "$WORK/sites.collapsed"
"$GEN" text-sites 100 100 >"$WORK/sites-small.txt"
bounded "view: 100 sites on a 100-frame trace are within the limit" 0 "100 stacks" \
  "$TOOL" view "$WORK/sites-small.txt" -o "$WORK/sites-small.collapsed"
