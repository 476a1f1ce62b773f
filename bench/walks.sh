#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/walks.sh: how much of the CPU cpu=samples sees, on javac compiling the generated
# corpus (build/bench/corpus, as bench/run.sh makes it), on each JDK:
#
#   bench/walks.sh [--runs N] [--interval MS] [--jdk DIR]... [--asprof LIB]
#
# For each JDK (default: those tests/lib/jdks.sh finds), N rounds (default 3) of: javac
# without an agent, then with cpu=samples,interval=MS (default 10), then, when
# async-profiler's library is given or found (asprof on the PATH), with it (itimer, same
# interval). It prints a Markdown table: samples; the share of them whose stack walk
# failed ([walk_failed].*); the share of the threads that are not Java threads ([JIT
# compiler], [GC], [VM], [hprof], [other native]); samples x interval against the
# process's CPU time (user + system, from wait4); and the cost: the agent's median wall
# time and CPU time over the baseline's. Numbers are medians of the N runs. The machine
# may be shared: the OTHERS column is how many CPUs other work kept busy (runstat).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

RUNS=3
INTERVAL=10
JDKS=()
ASPROF=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --interval) INTERVAL=$2; shift ;;
    --jdk) JDKS+=("$2"); shift ;;
    --asprof) ASPROF=$2; shift ;;
    -h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "walks.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "walks.sh: $*" >&2; exit 1; }

if [[ ${#JDKS[@]} -eq 0 ]]; then
  mapfile -t JDKS < <(bash tests/lib/jdks.sh)
fi
[[ ${#JDKS[@]} -gt 0 ]] || die "no JDK found (give --jdk DIR)"
if [[ -z "$ASPROF" ]] && command -v asprof >/dev/null; then
  ASPROF=$(find "$(dirname "$(readlink -f "$(command -v asprof)")")/.." -name libasyncProfiler.so 2>/dev/null | head -1)
fi

LIB=$ROOT/build/libhprof.so
[[ -f "$LIB" ]] || make -j2 >/dev/null || die "cannot build the agent"
mkdir -p build/bench
for t in runstat gen-corpus; do
  if [[ ! -x build/bench/$t || bench/$t.c -nt build/bench/$t ]]; then
    "${CC:-gcc}" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "build/bench/$t" "bench/$t.c" || die "cannot build $t"
  fi
done
CORPUS=$ROOT/build/bench/corpus
if [[ ! -f "$CORPUS/.complete" || build/bench/gen-corpus -nt "$CORPUS/.complete" ]]; then
  rm -rf "$CORPUS.new.$$" && build/bench/gen-corpus "$CORPUS.new.$$" >/dev/null || die "corpus generation failed"
  touch "$CORPUS.new.$$/.complete" && rm -rf "$CORPUS" && mv "$CORPUS.new.$$" "$CORPUS"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-walks-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# run JDK AGENTOPT OUT: javac on the corpus; "wall user sys status others" into OUT.stat.
run() {
  rm -rf "$WORK/classes" && mkdir -p "$WORK/classes"
  local -a agent=()
  [[ -n "$2" ]] && agent=("$2")
  build/bench/runstat -t 600 -o "$3.stat" -C "$CORPUS" -- "$1/bin/java" "${agent[@]}" \
    -m jdk.compiler/com.sun.tools.javac.Main -nowarn -d "$WORK/classes" "@$CORPUS/sources.txt" >"$3.log" 2>&1
}
# hprof_counts FILE: "samples failed native" of a text profile.
hprof_counts() {
  awk '/^TRACE [0-9]+:/ { t = $2; sub(/:.*/, "", t); next } /^[^\t]/ { t = "" }
    t != "" && /^\t\[(JIT compiler|GC|VM|hprof|other native)\]\./ { nat[t] = 1 }
    /^CPU SAMPLES BEGIN/ { match($0, /total = [0-9]+/); total = substr($0, RSTART + 8, RLENGTH - 8); i = 1; next }
    /^CPU SAMPLES END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ { if ($6 ~ /^\[walk_failed\]/) f += $4; if ($5 in nat) n += $4 }
    END { print total + 0, f + 0, n + 0 }' "$1"
}
# median: of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "| JDK | profiler | samples | walk failures | non-Java threads | samples x ${INTERVAL} ms / CPU time | wall vs none | CPU vs none | others (CPUs) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for jdk in "${JDKS[@]}"; do
  name=$("$jdk/bin/java" -version 2>&1 | awk -F'"' 'NR == 1 { print $2 }')
  : >"$WORK/base.tsv" && : >"$WORK/hprof.tsv" && : >"$WORK/asprof.tsv"
  for r in $(seq "$RUNS"); do
    run "$jdk" "" "$WORK/base" && read -r w _ u s st o <"$WORK/base.stat" && echo "$w $u $s $o" >>"$WORK/base.tsv"
    if run "$jdk" "-agentpath:$LIB=cpu=samples,interval=$INTERVAL,cutoff=0,file=$WORK/p.txt" "$WORK/hprof"; then
      read -r w _ u s st o <"$WORK/hprof.stat"
      echo "$w $u $s $o $(hprof_counts "$WORK/p.txt")" >>"$WORK/hprof.tsv"
    else
      echo "walks.sh: $name: hprof run $r failed (log: $(tail -3 "$WORK/hprof.log"))" >&2
    fi
    if [[ -n "$ASPROF" ]] && run "$jdk" "-agentpath:$ASPROF=start,event=itimer,interval=${INTERVAL}ms,file=$WORK/a.collapsed,collapsed" "$WORK/asprof"; then
      read -r w _ u s st o <"$WORK/asprof.stat"
      tot=$(awk '{ s += $NF } END { print s + 0 }' "$WORK/a.collapsed")
      bad=$(awk '/\[(unknown|break_|unknown_Java|not_walkable|deoptimization)/ { s += $NF } END { print s + 0 }' "$WORK/a.collapsed")
      echo "$w $u $s $o $tot $bad 0" >>"$WORK/asprof.tsv"
    fi
  done
  bw=$(awk '{ print $1 }' "$WORK/base.tsv" | median); bc=$(awk '{ print $2 + $3 }' "$WORK/base.tsv" | median)
  for p in hprof asprof; do
    [[ -s "$WORK/$p.tsv" ]] || continue
    awk -v bw="$bw" -v bc="$bc" -v iv="$INTERVAL" '{ print $5, ($5 ? 100 * $6 / $5 : 0), ($5 ? 100 * $7 / $5 : 0),
        ($2 + $3 > 0 ? $5 * iv / 10 / ($2 + $3) : 0), $1 / bw, ($2 + $3) / bc, $4 }' "$WORK/$p.tsv" >"$WORK/$p.rows"
    col() { awk -v c="$1" '{ print $c }' "$WORK/$p.rows" | median; }
    printf '| %s | %s | %.0f | %.1f%% | %.1f%% | %.0f%% | %.3f | %.3f | %.2f |\n' "$name" "$p" \
      "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" "$(col 7)"
  done
done
echo
echo "javac on $(wc -l <"$CORPUS/sources.txt") generated files, $RUNS run(s) each, medians; $(git log -1 --format=%h) $(git diff --quiet && echo clean || echo dirty)."
