# SPDX-License-Identifier: Apache-2.0
# Stacks of a text profile's last CPU SAMPLES section, for the scripts that check what
# a stack holds (cpu_native.sh, cpu_kernel.sh). Sourced after common.sh.

# stacks FILE: one line per row of the last CPU SAMPLES section, "count<TAB>frame;frame..."
# (top first; each frame without its "(file:line)").
stacks() {
  awk '/^TRACE [0-9]+:/ { t = $2; sub(/:.*/, "", t); fr[t] = ""; next }
    /^\t/ && t != "" { f = substr($0, 2); sub(/\([^()]*\)$/, "", f); fr[t] = fr[t] (fr[t] == "" ? "" : ";") f; next }
    /^[^\t]/ { t = "" }
    /^CPU SAMPLES BEGIN/ { n = 0; delete rows; inside = 1; next } /^CPU SAMPLES END/ { inside = 0 }
    inside && $1 ~ /^[0-9]+$/ { rows[++n] = $4 "\t" fr[$5] }
    END { for (i = 1; i <= n; i++) print rows[i] }' "$1"
}
# share FILE ALL_RE WANT_RE: "want of all" samples, among the stacks matching ALL_RE, of
# those that also match WANT_RE (regexes over the ";"-joined frames).
share() {
  stacks "$1" | awk -F'\t' -v all="$2" -v want="$3" '$2 ~ all { t += $1; if ($2 ~ want) w += $1 } END { printf "%d of %d", w, t }'
}
# percent "W of T" MIN: W is at least MIN percent of T (and T > 0).
at_least() { awk -v s="$1" -v min="$2" 'BEGIN { split(s, a, " of "); exit !(a[2] > 0 && 100 * a[1] >= min * a[2]) }'; }
at_most() { awk -v s="$1" -v max="$2" 'BEGIN { split(s, a, " of "); exit !(a[2] > 0 && 100 * a[1] <= max * a[2]) }'; }
