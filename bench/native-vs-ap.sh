#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=samples' native frames beside async-profiler's on the same javac run (the
# generated corpus, as bench/run.sh's javac workload): each profiler's self-time share of
# the 20 heaviest native functions (the leaf frames that are C or C++ code: libjvm's,
# libc's, zlib's ...), and the difference. The two run one after the other, RUNS times
# each, alternating; the shares are of all samples, summed over the runs.
#   bench/native-vs-ap.sh [--jdk DIR] [--runs N] [--asprof LIB]
# async-profiler: --asprof, else $ASPROF, else /tmp/ap/build/lib/libasyncProfiler.so
# (built from its sources when they are at hand: cd async-profiler && make); without it
# the script says so and shows the agent's shares alone. Needs `make` first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
JDK=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
RUNS=3
AP=${ASPROF:-/tmp/ap/build/lib/libasyncProfiler.so}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jdk) JDK=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --asprof) AP=$2; shift ;;
    *) echo "usage: $0 [--jdk DIR] [--runs N] [--asprof LIB]" >&2; exit 2 ;;
  esac
  shift
done
[[ -f build/libhprof.so ]] || { echo "build/libhprof.so missing: run make" >&2; exit 2; }
mkdir -p build/bench
[[ -x build/bench/gen-corpus ]] || gcc -std=c11 -O2 -o build/bench/gen-corpus bench/gen-corpus.c
CORPUS=$ROOT/build/bench/corpus
[[ -f "$CORPUS/.complete" ]] || { build/bench/gen-corpus "$CORPUS" >/dev/null && touch "$CORPUS/.complete"; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-nvap-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
have_ap=0
if [[ -f "$AP" ]]; then have_ap=1; else echo "# async-profiler not found ($AP): the agent's shares alone"; fi

javac_run() {  # javac_run AGENT_ARG: the corpus compiled once
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  (cd "$CORPUS" && "$JDK/bin/java" "$1" -m jdk.compiler/com.sun.tools.javac.Main -nowarn -d "$WORK/out" @sources.txt) \
    >"$WORK/run.log" 2>&1 || { echo "javac failed ($1): $(tail -2 "$WORK/run.log")" >&2; exit 1; }
}
for ((i = 1; i <= RUNS; i++)); do
  javac_run "-agentpath:$ROOT/build/libhprof.so=cpu=samples,interval=10,depth=256,view=collapsed,viewonly=y,file=$WORK/h$i.collapsed"
  ((have_ap)) && javac_run "-agentpath:$AP=start,event=itimer,interval=10ms,collapsed,file=$WORK/a$i.collapsed"
done

# shares FILES...: "function<TAB>percent of all samples" of the leaf frames that are
# native code, the library prefix taken off ("libjvm.so.Compile::Optimize" ->
# "Compile::Optimize"; async-profiler's are bare names, its Java frames have dots or
# slashes and its kernel frames end in _[k]).
shares() {
  cat "$@" | awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); leaf = f[k]; total += n
      if (leaf ~ /^[^;.]*\.so(\.[0-9]+)*\./) { sub(/^[^;.]*\.so(\.[0-9]+)*\./, "", leaf); s[leaf] += n }
      else if (leaf !~ /[.\/]/ && leaf !~ /^\[/ && leaf !~ /_\[[kj]\]$/) s[leaf] += n }
    END { for (x in s) printf "%s\t%.2f\n", x, 100 * s[x] / total }' | sort -t$'\t' -k2,2nr
}
shares "$WORK"/h*.collapsed >"$WORK/h.tsv"
if ((have_ap)); then shares "$WORK"/a*.collapsed >"$WORK/a.tsv"; else : >"$WORK/a.tsv"; fi
echo "# javac on $(basename "$JDK"), $RUNS runs each; self-time share of all samples (%)"
printf '| function | hprof | async-profiler | difference |\n|---|---|---|---|\n'
head -20 "$WORK/h.tsv" | while IFS=$'\t' read -r fn h; do
  a=$(awk -F'\t' -v f="$fn" '$1 == f { print $2; exit }' "$WORK/a.tsv")
  printf '| `%s` | %s | %s | %s |\n' "$fn" "$h" "${a:--}" "$(awk -v h="$h" -v a="${a:-}" 'BEGIN { if (a == "") print "-"; else printf "%+.2f", h - a }')"
done
