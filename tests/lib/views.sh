# SPDX-License-Identifier: Apache-2.0
# Helpers for the tests of the views (view=, hprof view): reading them back with real
# tools. Sourced after WORK is set. Needs go (Debian golang-go) and chromium.
# The hprof tool of the tree under test (HPROF_BIN: build-asan under make check).
HPROF_TOOL=${HPROF_BIN:-${HPROF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/build}/hprof
ARTIFACTS=${HPROF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/build/test-artifacts

have_go()       { command -v go >/dev/null 2>&1; }
have_chromium() { command -v chromium >/dev/null 2>&1; }

# collapsed_total FILE: the sum of a collapsed file's counts.
collapsed_total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }

# merge_collapsed: collapsed lines on stdin, the same stacks' counts added, sorted.
merge_collapsed() { awk '{ n = $NF; $NF = ""; sub(/ $/, ""); c[$0] += n } END { for (k in c) printf "%s %.0f\n", k, c[k] }' | LC_ALL=C sort; }

# pprof_collapsed FILE.pb.gz [SAMPLE_INDEX]: go tool pprof -traces, read back into
# collapsed lines (root first) of the sample type's values, merged and sorted (the
# samples' labels, which -traces lists above each stack, left out).
pprof_collapsed() {
  HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -traces ${2:+-sample_index=$2} "$1" 2>/dev/null | awk '
    function out(  s, i) { if (!n) return; s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; print s " " v; n = 0 }
    /^-+\+-+$/ { out(); started = 1; next }
    !started || /^ *$/ { next }
    n == 0 && /^ *[A-Za-z_][A-Za-z_0-9]*: / { next }   # a label (service_name:  shop), not a frame
    n == 0 { v = $1; sub(/^ *[^ ]+ +/, ""); f[++n] = $0; next }
    { sub(/^ +/, ""); f[++n] = $0 }
    END { out() }' | merge_collapsed
}

# pprof_total FILE.pb.gz [SAMPLE_INDEX [FOCUS]]: the total go tool pprof -top reports; with
# FOCUS, of the stacks with a frame matching that regex only. (pprof's "of N total" is
# every sample's, focus or not: the focused sum is the "accounting for" figure, with no
# node left out.)
pprof_total() {
  local out
  out=$(HOME=$WORK GOCACHE=$WORK/gocache go tool pprof -top -nodefraction=0 -nodecount=1000000 \
    ${2:+-sample_index=$2} ${3:+"-focus=$3"} "$1" 2>/dev/null)
  if [[ -n "${3:-}" ]]; then
    sed -n 's/.*accounting for \([0-9.]*[a-zA-Z]*\), .*/\1/p' <<<"$out" | head -1
  else
    sed -n 's/.* of \([0-9.]*[a-zA-Z]*\) total.*/\1/p' <<<"$out" | head -1
  fi
}

# chromium_run ARGS...: headless chromium with a profile of its own under WORK.
chromium_run() {
  TMPDIR=$WORK timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$WORK/chromium" --virtual-time-budget=10000 "$@" 2>/dev/null
}

# html_search FILE.html TEXT: opens the page with #search=TEXT and prints what it wrote
# into its #result element (search=, matched=, total=, percent=, type=, nodes= lines).
html_search() {
  chromium_run --dump-dom "file://$1#search=$2" |
    awk '/<pre id="result"/ { on = 1; sub(/.*<pre id="result"[^>]*>/, "") } on { if (sub(/<\/pre>.*/, "")) { print; exit } print }'
}

# html_screenshot FILE.html PNG [SEARCH]
html_screenshot() {
  mkdir -p "$(dirname "$2")"
  chromium_run --window-size=1400,900 --screenshot="$2" "file://$1${3:+#search=$3}" >/dev/null
  [[ -s "$2" ]]
}

# text_collapsed FILE SECTION: collapsed lines made by awk from a text profile's TRACE
# records and the rows of its last SECTION ("CPU SAMPLES": count; "SITES": bytes
# allocated, the class on top): what the views of the same run must hold.
text_collapsed() {
  awk -v want="$2" '
    /^TRACE [0-9]+:/ { t = $2; sub(/:/, "", t); n[t] = 0; cur = t; next }
    cur != "" && /^\t/ { f = substr($0, 2); if (f == "<empty>") next; sub(/\([^()]*\)$/, "", f); fr[cur, ++n[cur]] = f; next }
    { cur = "" }
    index($0, want " BEGIN") == 1 { inside = 1; rows = 0; next }
    index($0, want " END") == 1 { inside = 0; next }
    inside && $1 ~ /^[0-9]+$/ {
      if (want == "SITES") { r_t[++rows] = $8; r_v[rows] = $6; r_top[rows] = $9 }
      else { r_t[++rows] = $5; r_v[rows] = $4; r_top[rows] = "" }
    }
    END {
      for (i = 1; i <= rows; i++) {
        t = r_t[i]; s = ""
        for (k = n[t]; k >= 1; k--) s = s (s == "" ? "" : ";") fr[t, k]
        if (n[t] == 0) s = "[no Java frames]"
        if (r_top[i] != "") s = s ";" r_top[i]
        print s " " r_v[i]
      }
    }' "$1" | merge_collapsed
}

# html_find FILE.html NAME [WIDTH]: opens the page WIDTH pixels wide (1000 by default) with
# #find=NAME and prints what it says of the first frame called NAME: label= (as drawn),
# fill=, family=, tip= (lines joined by " | ").
html_find() {
  chromium_run --window-size="${3:-1000},800" --dump-dom "file://$1#find=$(printf %s "$2" | sed 's/%/%25/g; s/#/%23/g; s/&/%26/g')" |
    awk '/<pre id="result"/ { on = 1 } on && /^(find|found|label|fill|family|tip)=/ { sub(/<\/pre>.*/, ""); print }
         on && /<\/pre>/ { exit }' |
    sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g'
}

# hsl_hue "hsl(H,S%,L%)": H.
hsl_hue() { sed -n 's/^hsl(\([0-9]*\),.*/\1/p' <<<"$1"; }

# html_cut_note FILE.html: the depth note the page shows, "(none)" when it hides it.
html_cut_note() {
  chromium_run --window-size=1000,800 --dump-dom "file://$1" |
    sed -n 's/.*<div id="cut">\([^<]*\)<\/div>.*/\1/p; s/.*<div id="cut" hidden="">.*/(none)/p'
}
