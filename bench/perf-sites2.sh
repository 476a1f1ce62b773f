#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/perf-sites2.sh: CPU time (user+sys), peak RSS and output sizes of exact heap=sites
# on one workload, with no agent and with one or more agent libraries, run in turn so that
# each sees the same drift in machine load.
#
#   bench/perf-sites2.sh [--jdk DIR] [--runs N] [--workload ant|rhino|alloc|javac]
#                        [--opts "heap=sites,..."] [--rounds R] [--perf FILE] LIB...
#
# LIB "none" is the run without an agent. Prints one line per run (label, wall, user+sys,
# peak RSS KB, bytes of each output file) and the median CPU of each LIB at the end.
# --rounds R (ant and javac): R rounds of the work in each JVM; each line then ends with
# the round times (ms), and the end gives, for each LIB, the median of the second half's
# rounds over all its runs (the cost once the JIT is done) and of its first rounds.
# --perf FILE: one more run of the first LIB under `perf record -g` into FILE.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JDK=/usr/lib/jvm/java-17-openjdk-amd64 RUNS=3 WL=ant OPTS="heap=sites" PERF="" ROUNDS=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --workload) WL=$2; shift 2 ;;
    --opts) OPTS=$2; shift 2 ;;
    --perf) PERF=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) break ;;
  esac
done
LIBS=("$@")
[[ ${#LIBS[@]} -gt 0 ]] || LIBS=(none "$ROOT/build/libhprof.so")
# shellcheck source=bench/inputs.sh
source "$ROOT/bench/inputs.sh"
CLASSES=$ROOT/build/bench/perf-sites2-$(basename "$JDK")
if [[ ! -f "$CLASSES/.stamp" ]]; then
  mkdir -p "$CLASSES" && "$JDK/bin/javac" -nowarn -d "$CLASSES" "$ROOT"/bench/java/{Rounds,AllocWork,AntRounds,JavacRounds}.java &&
    touch "$CLASSES/.stamp" || exit 2
fi
case "$WL" in
  ant) mkdir -p "$ROOT/build/bench"
    [[ -x $ROOT/build/bench/gen-corpus ]] || gcc -std=c11 -D_GNU_SOURCE -O2 -o "$ROOT/build/bench/gen-corpus" "$ROOT/bench/gen-corpus.c"
    IN=$(prepare_ant "$ROOT/build/bench/gen-corpus") || exit 2
    CMD=(-cp "$ANT_LIB/ant.jar:$ANT_LIB/ant-launcher.jar:$CLASSES" AntRounds "$ROUNDS" "$IN/build.xml" all) ;;
  rhino) CMD=(-cp "$RHINO_JAR" org.mozilla.javascript.tools.shell.Main "$ROOT/bench/js/RhinoWork.js" 1) ;;
  alloc) CMD=(-cp "$CLASSES" AllocWork 2 1000000 1) ;;
  javac) mkdir -p "$ROOT/build/bench"  # the corpus bench/run.sh makes (229 files)
    [[ -x $ROOT/build/bench/gen-corpus ]] || gcc -std=c11 -D_GNU_SOURCE -O2 -o "$ROOT/build/bench/gen-corpus" "$ROOT/bench/gen-corpus.c"
    CORPUS=$ROOT/build/bench/corpus
    [[ -f $CORPUS/.complete ]] || { "$ROOT/build/bench/gen-corpus" "$CORPUS" >/dev/null && touch "$CORPUS/.complete"; } || exit 2
    sed "s|^|$CORPUS/|" "$CORPUS/sources.txt" >"$CLASSES/sources.txt" || exit 2 # the runs' directory is not its
    CMD=(-cp "$CLASSES" JavacRounds "$ROUNDS" -nowarn -encoding UTF-8 -d . "@$CLASSES/sources.txt") ;;
  *) echo "unknown workload $WL" >&2; exit 2 ;;
esac
WORK=$(mktemp -d /tmp/perf-sites2.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# run_one LIB [PREFIX...]: one run in a fresh directory; prints its line.
run_one() {
  local lib=$1; shift
  local dir=$WORK/run; rm -rf "$dir"; mkdir -p "$dir"
  local -a agent=()
  [[ $lib != none ]] && agent=("-agentpath:$lib=$OPTS,file=$dir/out")
  (cd "$dir" && /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" "$JDK/bin/java" "${agent[@]}" "${CMD[@]}" \
    >"$dir/log" 2>&1) || { echo "$lib: FAILED"; tail -5 "$dir/log"; return; }
  local sizes
  sizes=$(cd "$dir" && find . -maxdepth 1 -name 'out*' -printf '%f=%s ' | sort)
  read -r wall user sys rss <"$dir/time"
  local rounds
  rounds=$(sed -n 's/^round [0-9]*: \([0-9.]*\) ms$/\1/p' "$dir/log" | tr '\n' ' ')
  printf '%s\t%s\t%.2f\t%s\t%s\t%s\n' "$(basename "$(dirname "$lib")")/$(basename "$lib")" "$wall" \
    "$(echo "$user + $sys" | bc)" "$rss" "$sizes" "$rounds" | tee -a "$WORK/all"
}
for ((r = 0; r < RUNS; r++)); do
  for lib in "${LIBS[@]}"; do run_one "$lib"; done
done
[[ -n $PERF ]] && run_one "${LIBS[0]}" perf record -g -o "$PERF" --
echo "median CPU s:"
cut -f1 "$WORK/all" | sort -u | while read -r k; do
  awk -F'\t' -v k="$k" '$1 == k && $3 != "" { print $3 }' "$WORK/all" | sort -n |
    awk -v k="$k" '{ a[NR] = $1 } END { if (NR) printf "  %s %s (%d runs)\n", k, a[int((NR + 1) / 2)], NR }'
done
if ((ROUNDS > 1)); then
  echo "median round ms: first, and rounds $((ROUNDS / 2 + 1))-$ROUNDS:"
  cut -f1 "$WORK/all" | sort -u | while read -r k; do
    first=$(awk -F'\t' -v k="$k" '$1 == k { split($6, r, " "); if (r[1] != "") print r[1] }' "$WORK/all" | sort -n |
      awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
    steady=$(awk -F'\t' -v k="$k" -v from=$((ROUNDS / 2 + 1)) '$1 == k { n = split($6, r, " ");
        for (i = from; i <= n; i++) print r[i] }' "$WORK/all" | sort -n |
      awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
    echo "  $k first $first, steady $steady"
  done
fi
