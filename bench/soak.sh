#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/soak.sh: runs bench/java/Soak.java (class loaders made and dropped in a loop, short
# threads contending for a lock, steady allocation into a fixed live set) for a long time
# under each mode, with a SIGQUIT dump every minute, and reports whether the agent holds up:
#   - memory: the process's RSS (native) and the live Java heap after a full GC, at each
#     minute; with a `none` run beside them, the agent's share is the difference;
#   - the agent's own Java objects (classes named hprof.*) in the heap histogram;
#   - every dump readable: text sections balanced (each BEGIN has its END) and one dump
#     per SIGQUIT plus the one at exit; binary files pass `hprof-dump --check`;
#   - throughput: the program's rounds per 10 s tick, median of the first minutes after
#     warm-up against the median of the last ones.
#
#   bench/soak.sh [--minutes 30] [--modes "none;cpu=samples;..."] [--parallel N]
#                 [--jdk DIR] [--agent LIB] [--xmx 512m] [--out DIR]
#
# Modes are separated by ';' (default: none, cpu=samples, cpu=times, heap=sites,
# heap=dump with format=b, monitor=y). --parallel runs that many modes at once (default: all;
# they share the machine, so throughput is compared within each run, never across runs).
# Results: DIR/results.md (also on stdout) and DIR/<n>/ per mode (minutes.tsv with the
# per-minute figures, stdout, stderr; the profile itself is removed once checked, unless bad).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

MINUTES=30
MODES="none;cpu=samples;cpu=times;heap=sites;heap=dump,format=b;monitor=y"
PARALLEL=0
JDK=""
AGENT="$ROOT/build/libhprof.so"
XMX=512m
OUT="$ROOT/build/soak"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) MINUTES=${2:?}; shift ;;
    --modes) MODES=${2:?}; shift ;;
    --parallel) PARALLEL=${2:?}; shift ;;
    --jdk) JDK=${2:?}; shift ;;
    --agent) AGENT=${2:?}; shift ;;
    --xmx) XMX=${2:?}; shift ;;
    --out) OUT=${2:?}; shift ;;
    -h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
JDK=${JDK:-${JAVA_HOME:-$(tests/lib/jdks.sh --first)}}
[[ -x "$JDK/bin/java" ]] || { echo "soak.sh: no JDK (use --jdk)" >&2; exit 2; }
[[ -f "$AGENT" && -x build/hprof-dump ]] || { echo "soak.sh: run make first" >&2; exit 2; }

CLASSES=$OUT/classes
mkdir -p "$CLASSES"
"$JDK/bin/javac" -nowarn -d "$CLASSES" bench/java/Soak.java bench/java/SoakPayload.java \
  tests/java/OneClassLoader.java || exit 1

# One minute's figures for a running JVM: rss_kib live_heap_bytes agent_heap_bytes.
# GC.class_histogram runs a full GC first, so "live" means what survives it.
measure() {
  local pid=$1 rss hist
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  hist=$("$JDK/bin/jcmd" "$pid" GC.class_histogram 2>/dev/null)
  printf '%s\t%s\t%s\n' "${rss:-0}" \
    "$(awk '/^Total/ {print $3}' <<<"$hist")" \
    "$(awk '$4 ~ /^hprof\./ {s += $3} END {print s + 0}' <<<"$hist")"
}

# Checks the profile: prints "ok N" (N dumps found) or "BAD reason".
check_dumps() {
  local file=$1 mode=$2 quits=$3
  [[ "$mode" == none ]] && { echo "ok -"; return; }
  [[ -s "$file" ]] || { echo "BAD no output"; return; }
  if [[ "$mode" == *format=b* ]]; then
    build/hprof-dump --check "$file" >/dev/null 2>"$file.check" ||
      { echo "BAD check: $( (grep -m1 '^error' "$file.check" || head -n1 "$file.check") | head -c 300)"; return; }
    local n; n=$(build/hprof-dump --summary "$file" | awk -F= '/^heap_dumps=/ {print $2}')
    [[ "${n:-0}" -ge $((quits + 1)) ]] && echo "ok $n" || echo "BAD only ${n:-0} heap dumps"
    return
  fi
  # Text: every section closes, in order; count the mode's own section (CPU TIME (ms) too).
  awk -v quits="$quits" '
    / BEGIN/ && /^[A-Z][A-Z ()a-z]* BEGIN/ { t = $0; sub(/ BEGIN.*/, "", t); if (open != "") bad = "nested " t; open = t; n[t]++ }
    /^[A-Z][A-Z ()a-z]* END$/ { t = $0; sub(/ END$/, "", t); if (open != t) bad = "unbalanced " t; open = "" }
    END {
      if (open != "") bad = "unclosed " open
      if (bad != "") { print "BAD " bad; exit }
      m = 0; for (t in n) if (n[t] > m) m = n[t]
      print (m >= quits + 1 ? "ok " : "BAD only ") m
    }' "$file"
}

# Runs one mode for MINUTES, writing DIR/minutes.tsv and DIR/summary.
run_mode() {
  local idx=$1 mode=$2 dir=$OUT/$1
  rm -rf "$dir"; mkdir -p "$dir"
  local file=$dir/profile agentopt=()
  [[ "$mode" != none ]] && agentopt=("-agentpath:$AGENT=$mode,file=$file")
  "$JDK/bin/java" -Xmx"$XMX" "${agentopt[@]}" -cp "$CLASSES" Soak $((MINUTES * 60)) 10 \
    >"$dir/stdout" 2>"$dir/stderr" &
  local pid=$! quits=0 m
  printf 'minute\trss_kib\tlive_heap\tagent_heap\tprofile_bytes\n' >"$dir/minutes.tsv"
  for ((m = 1; m < MINUTES; m++)); do
    sleep 40; kill -0 "$pid" 2>/dev/null || break
    kill -QUIT "$pid" && quits=$((quits + 1))
    sleep 20; kill -0 "$pid" 2>/dev/null || break
    printf '%s\t%s\t%s\n' "$m" "$(measure "$pid")" "$(stat -c %s "$file" 2>/dev/null || echo 0)" >>"$dir/minutes.tsv"
  done
  wait "$pid"; local rc=$?
  local dumps; dumps=$(check_dumps "$file" "$mode" "$quits")
  [[ "$dumps" == BAD* ]] || rm -f "$file" "$file.check"   # kept to look into when bad
  printf '%s\t%s\t%s\t%s\n' "$mode" "$rc" "$quits" "$dumps" >"$dir/summary"
}

# Figures of one mode's minutes.tsv: RSS and live heap at minute 5 (or the first minute
# of a shorter run) and at the end, in MiB, and the RSS trend (least squares from minute 5
# on, MiB per 10 minutes).
minute_figures() {
  awk -F'\t' 'NR > 1 && $2 > 0 {
      if (!have || $1 <= 5) { r5 = $2; h5 = $3; have = 1 }
      rl = $2; hl = $3
      if ($1 >= 5 || !n5) { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2; n5 = ($1 >= 5) }
    }
    END {
      slope = (n > 1 && n * sxx != sx * sx) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0
      printf "%.0f %.0f %.1f %.1f %.1f %+.1f\n", r5 / 1024, rl / 1024, h5 / 1048576, hl / 1048576, 0, slope * 10 / 1024
    }' "$1"
}

# Throughput: median rounds per tick over the first 5 minutes after a minute of warm-up,
# and over the last 5 minutes (thirds of the run when it is shorter).
throughput() {
  grep '^tick ' "$1" | sed 's/.*rounds=\([0-9]*\).*/\1/' | awk '
    { v[NR] = $1 }
    function med(lo, hi,   i, j, k, t, a) { k = 0; for (i = lo; i <= hi; i++) a[++k] = v[i];
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k ? a[int((k + 1) / 2)] : 0 }
    END { w = 30; if (NR < 6 + 2 * w) w = int((NR - 6) / 2); if (w < 1) { print "-"; exit }
      f = med(7, 6 + w); l = med(NR - w + 1, NR); printf "%d -> %d (%.2f)", f, l, f ? l / f : 0 }'
}

# The report: one row per mode; with a `none` run, the agent's share is the difference.
report() {
  local n=$1 base="" idx
  echo "Soak: $MINUTES min per mode, -Xmx$XMX, $(basename "$(readlink -f "$JDK")"), SIGQUIT every minute, $(date -u +%F)"
  echo
  echo "| mode | exit | dumps checked | RSS min 5 -> end (MiB) | RSS trend (MiB/10 min) | RSS over none, min 5 -> end (MiB) | live heap min 5 -> end (MiB) | rounds/10 s, first -> last 5 min (ratio) |"
  echo "|---|---|---|---|---|---|---|---|"
  for ((idx = 0; idx < n; idx++)); do
    local dir=$OUT/$idx mode rc quits dumps r5 rl h5 hl _ trend share="-"
    IFS=$'\t' read -r mode rc quits dumps <"$dir/summary"
    read -r r5 rl h5 hl _ trend <<<"$(minute_figures "$dir/minutes.tsv")"
    [[ "$mode" == none ]] && base="$r5 $rl"
    if [[ -n "$base" && "$mode" != none ]]; then
      share=$(awk -v a="$r5" -v b="$rl" -v base="$base" 'BEGIN { split(base, x, " "); printf "%+d -> %+d", a - x[1], b - x[2] }')
    fi
    printf '| `%s` | %s | %s | %s -> %s | %s | %s | %s -> %s | %s |\n' "$mode" "$rc" "$dumps" \
      "$r5" "$rl" "$trend" "$share" "$h5" "$hl" "$(throughput "$dir/stdout")"
  done
  echo
  echo "Reproduce: bench/soak.sh --minutes $MINUTES --xmx $XMX --jdk $JDK --modes \"$MODES\""
}

IFS=';' read -r -a mode_list <<<"$MODES"
count=${#mode_list[@]}
[[ "$PARALLEL" -gt 0 ]] || PARALLEL=$count
for ((i = 0; i < count; i++)); do
  run_mode "$i" "${mode_list[$i]}" &
  while [[ $(jobs -rp | wc -l) -ge $PARALLEL ]]; do wait -n; done
done
wait
report "$count" | tee "$OUT/results.md"
