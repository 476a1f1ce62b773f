#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU time of cpu=times with two agent libraries and without an agent, alternating runs
# (issue #29, timing=sampled): bench/sampled-times.sh BEFORE.so AFTER.so [RUNS] [JAVA]
# Workloads: bench/java/CpuWork (4 8000 1) and Debian's Rhino on bench/js/RhinoWork.js.
# Prints "workload lib run elapsed user sys maxrss_kb" lines, then the median CPU
# (user+sys) of each and its ratio to the run without an agent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before=$1 after=$2 runs=${3:-3} java=${4:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
work=$(mktemp -d "${TMPDIR:-/tmp}/sampled-times-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$(dirname "$java")/javac" -d "$work/cls" "$root/bench/java/CpuWork.java" "$root/bench/java/Rounds.java"
declare -A cmd=(
  [cpuwork]="-cp $work/cls CpuWork 4 8000 1"
  [rhino]="-cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main $root/bench/js/RhinoWork.js 1"
)
for w in cpuwork rhino; do
  [[ $w == rhino && ! -f /usr/share/java/js.jar ]] && continue
  for ((r = 1; r <= runs; r++)); do
    for lib in none before after; do
      agent=()
      [[ $lib == before ]] && agent=("-agentpath:$before=cpu=times,file=$work/p.txt")
      [[ $lib == after ]] && agent=("-agentpath:$after=cpu=times,file=$work/p.txt")
      # shellcheck disable=SC2086
      /usr/bin/time -o "$work/t" -f "%e %U %S %M" "$java" "${agent[@]}" ${cmd[$w]} >/dev/null 2>&1
      echo "$w $lib $r $(cat "$work/t")"
    done
  done
done | tee "$work/all"
# The median CPU (user+sys) of each workload and library, and its ratio to no agent.
awk '{ print $1, $2, $5 + $6 }' "$work/all" | sort -k1,1 -k2,2 -k3,3n | awk '{ k = $1 " " $2; v[k, ++n[k]] = $3 }
  END { for (k in n) { m[k] = v[k, int((n[k] + 1) / 2)] }
        for (k in n) { split(k, p, " "); printf "%s %s median CPU %.1f s, x%.2f of no agent\n", p[1], p[2], m[k], m[k] / m[p[1] " none"] } }' | sort
