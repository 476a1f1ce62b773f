#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof view: every profile of the original agent's examples and hand-made ones become
# collapsed stacks, a flame graph and pprof, read back with go tool pprof and headless
# chromium; totals are the sections'; --diff; 100,000 distinct stacks; files that are
# no profile are refused clearly.
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
HPROF_ROOT=$ROOT
EX=/work/shared/spec/examples
[[ -d $EX ]] || EX=$ROOT/tests/data/original
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-view-test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
source "$ROOT/tests/lib/views.sh"
DUMP=${HPROF_DUMP:-$ROOT/build/hprof-dump}

ok()     { echo "ok - hprof view: $*"; }
not_ok() { echo "not ok - hprof view: $*"; }
check()  { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
view()   { "$HPROF_TOOL" view "$@" 2>>"$WORK/view.err"; }
total_is() { [[ "$(collapsed_total "$1")" == "$2" ]] || { echo "# $1: $(collapsed_total "$1"), not $2"; return 1; }; }

[[ -x $HPROF_TOOL ]] || { not_ok "$HPROF_TOOL not built"; exit 1; }

# ---- every example profile, each view ----
have_go || not_ok "go tool pprof not found (Debian: apt-get install golang-go): its checks of each example did not run"
for f in cpu-samples.txt cpu-samples.hprof cpu-times.txt cpu-old.txt heap-sites.txt heap-sites.hprof \
         heap-dump.txt heap-dump.hprof monitor.txt; do
  [[ -f $EX/$f ]] || { not_ok "$EX/$f missing"; continue; }
  check "$f: .collapsed, .html and .pb.gz written" \
    bash -c "'$HPROF_TOOL' view '$EX/$f' -o '$f.collapsed' && '$HPROF_TOOL' view '$EX/$f' -o '$f.html' &&
             '$HPROF_TOOL' view '$EX/$f' -o '$f.pb.gz' && test -s '$f.collapsed' -a -s '$f.html' -a -s '$f.pb.gz'" 2>/dev/null
  if have_go; then
    check "$f: go tool pprof -top reads the pprof" bash -c "HOME='$WORK' GOCACHE='$WORK/gocache' go tool pprof -top '$f.pb.gz' >/dev/null 2>&1"
    # compared in a type that counts (pprof shows bytes and times scaled, in units)
    case $f in
      cpu-times.txt) t=calls ;; heap-sites.*) t=alloc_objects ;; heap-dump.hprof) t=objects ;; *) t= ;;
    esac
    pprof_collapsed "$f.pb.gz" $t >"$f.pprof"
    "$HPROF_TOOL" view ${t:+--type $t} "$EX/$f" -o "$f.count.collapsed" 2>/dev/null
    merge_collapsed <"$f.count.collapsed" >"$f.merged"
    check "$f: go tool pprof -traces gives the collapsed stacks' stacks and values" \
      bash -c "[[ -s '$f.merged' ]] && cmp -s '$f.pprof' '$f.merged'"
  fi
  check "$f: gzip -t accepts the pprof file" gzip -t "$f.pb.gz"
done

# ---- totals are the sections' ----
# Two dumps of one run: CPU sections add up; --last shows the last dump alone.
{ cat "$EX/cpu-samples.txt"; sed -n '/^CPU SAMPLES BEGIN/,/^CPU SAMPLES END/p' "$EX/cpu-samples.txt"; } >two-dumps.txt
view two-dumps.txt -o two-dumps.collapsed
view --last two-dumps.txt -o two-dumps-last.collapsed
check "two dumps of CPU SAMPLES add up (16); --last gives the last dump's 8" \
  bash -c "total_is() { [[ \$(awk '{ s += \$NF } END { print s }' \$1) == \$2 ]]; }; total_is two-dumps.collapsed 16 && total_is two-dumps-last.collapsed 8"
check "cpu-samples.txt: 8 samples, CPU SAMPLES' total" total_is cpu-samples.txt.collapsed 8
check "cpu-samples.hprof: CPU_SAMPLES' total" total_is cpu-samples.hprof.collapsed \
  "$("$DUMP" --summary "$EX/cpu-samples.hprof" | sed -n 's/^cpu_samples_total=//p')"
check "cpu-times.txt: 146 ms, CPU TIME's total (rows under the cutoff in one stack)" total_is cpu-times.txt.collapsed 146000000
check "cpu-old.txt: the calls of every pair" total_is cpu-old.txt.collapsed "$(awk 'NR > 1 { s += $1 } END { print s }' "$EX/cpu-old.txt")"
check "heap-sites.txt: the bytes allocated of every SITES row" total_is heap-sites.txt.collapsed \
  "$(awk '/^SITES BEGIN/ { on = 1; next } /^SITES END/ { on = 0 } on && $1 ~ /^[0-9]+$/ { s += $6 } END { print s }' "$EX/heap-sites.txt")"
# (JDK 8's header says 10 objects, 120 bytes more than its SITEs: one stack holds them)
check "heap-sites.hprof: the bytes allocated ALLOC_SITES' header says, more than its SITEs'" total_is heap-sites.hprof.collapsed \
  "$("$DUMP" "$EX/heap-sites.hprof" | sed -n 's/^ALLOC_SITES .* alloc_bytes=\([0-9]*\) .*/\1/p')"
check "... what the SITEs lack as one stack" grep -qx '\[rows under the cutoff\] 120' heap-sites.hprof.collapsed
objs=$("$DUMP" --summary "$EX/heap-dump.hprof" | tr ' ' '\n' | awk -F= '/^(INSTANCE_DUMP|OBJ_ARRAY_DUMP|PRIM_ARRAY_DUMP)=/ { s += $2 } END { print s }')
view --type objects "$EX/heap-dump.hprof" -o heap-objs.collapsed
check "heap-dump.hprof: --type objects counts every object of the dump ($objs)" total_is heap-objs.collapsed "$objs"
check "heap-dump.hprof: bytes by allocation stack, the class on top" grep -q '^\[no Java frames\];java.lang.String [0-9]' heap-dump.hprof.collapsed
check "heap-dump.txt (cut short, classes only): its 28 class objects" total_is heap-dump.txt.collapsed 28
check "monitor.txt (no contention): MONITOR DUMP's 7 threads by trace and status" total_is monitor.txt.collapsed 7
check "cpu-samples.txt: thread=y stacks have the thread at the root" grep -q '^thread 200006;java.lang.Thread.run;' cpu-samples.txt.collapsed

# ---- choosing what to show ----
view --section sites "$EX/cpu-samples.txt" -o none.collapsed
check "--section sites of a CPU profile: refused, saying so" grep -q 'no sites section in it' view.err
view --type inuse_space "$EX/heap-sites.hprof" -o inuse.collapsed
check "--type inuse_space: live bytes" total_is inuse.collapsed \
  "$("$DUMP" "$EX/heap-sites.hprof" | awk '/^  SITE / { for (i = 1; i <= NF; i++) if ($i ~ /^live_bytes=/) { sub(/.*=/, "", $i); s += $i } } END { print s }')"

# ---- not a profile ----
: >empty.txt
for bad in "$EX/help.txt" "$HPROF_TOOL" empty.txt; do
  : >view.err
  "$HPROF_TOOL" view "$bad" -o bad.html 2>view.err
  rc=$?
  check "$(basename "$bad"): refused with status 1 and a reason ($(head -c 80 view.err))" \
    bash -c "[[ $rc == 1 ]] && grep -Eq 'not an HPROF profile|empty' '$WORK/view.err' && [[ ! -e '$WORK/bad.html' ]]"
done
"$HPROF_TOOL" view "$EX/cpu-samples.txt" -o out.svg 2>/dev/null
check "an output extension that names no view: usage error (status 2)" test $? = 2

# ---- --diff, and a flame graph of 100,000 distinct stacks ----
mk_profile() { # mk_profile N_TRACES COUNT_OF_HOT: a text profile, trace i = main;a.F(i%10);b.G(i%100);c.H(i)
  awk -v n="$1" -v hot="$2" 'BEGIN {
    print "JAVA PROFILE 1.0.1, created Tue Nov 24 10:00:00 2026\n"
    for (i = 1; i <= n; i++) printf "TRACE %d:\n\tc.H%d(C.java:%d)\n\tb.G%d(B.java:1)\n\ta.F%d(A.java:1)\n\tApp.main(App.java:1)\n", 300000 + i, i, i % 1000 + 1, i % 100, i % 10
    printf "CPU SAMPLES BEGIN (total = %d) Tue Nov 24 10:00:01 2026\nrank   self  accum   count trace method\n", n - 1 + hot
    for (i = 1; i <= n; i++) printf "%4d 1.00%% 1.00%% %7d %d c.H%d\n", i, (i == 1 ? hot : 1), 300000 + i, i
    print "CPU SAMPLES END" }'
}
mk_profile 100000 1 >big.txt
view big.txt -o big.html
check "100,000 distinct stacks: a flame graph written" test -s big.html
mk_profile 200 1 >before.txt
mk_profile 200 400 >after.txt
view --diff before.txt after.txt -o diff.html
check "--diff: a differential flame graph written" grep -q 'diff:true' diff.html
"$HPROF_TOOL" view --diff before.txt -o x.html 2>/dev/null
check "--diff with one profile: usage error" test $? = 2
if have_chromium; then
  html_search "$WORK/big.html" '/^b\.G7$/' >big-search.txt
  check "100,000 stacks in chromium: the search for b.G7 matches its 1000 stacks" grep -qx 'matched=1000' big-search.txt
  check "... of 100000 samples, 111112 nodes (root, 10 + 100 + 100000 frames, main)" \
    bash -c "grep -qx 'total=100000' '$WORK/big-search.txt' && grep -qx 'nodes=100112' '$WORK/big-search.txt'"
  html_search "$WORK/diff.html" '' >diff-search.txt
  check "--diff in chromium: c.H1's share grew most, the others' shrank" \
    bash -c "grep -qx 'grew=c.H1' '$WORK/diff-search.txt' && grep -Eqx 'shrank=(App.main|a.F[0-9]|b.G[0-9]+|c.H[0-9]+)' '$WORK/diff-search.txt' && ! grep -qx 'shrank=c.H1' '$WORK/diff-search.txt'"
  check "screenshot of the differential flame graph kept" html_screenshot "$WORK/diff.html" "$ARTIFACTS/view-diff.png"
  html_search "$WORK/heap-sites.hprof.html" 'java.util.Locale' >sites-search.txt
  check "heap-sites.hprof's flame graph: the search says the matched share" grep -Eq '^percent=[0-9.]+%$' sites-search.txt
  # Labels, colours, tips and the depth note (issue #31): a javac-like profile 4 deep,
  # 25 samples: Attr.attribTree 5 (20%, half of Attr.attribClass), Outer$Inner.handle 3,
  # a walk failure 2.
  cat >javac4.txt <<'PROF'
JAVA PROFILE 1.0.1, created Tue Nov 24 10:00:00 2026

TRACE 301001:
	com.sun.tools.javac.comp.Attr.attribTree(Attr.java:1)
	com.sun.tools.javac.comp.Attr.attribClass(Attr.java:2)
	com.sun.tools.javac.main.JavaCompiler.compile(JavaCompiler.java:3)
	App.main(App.java:1)
TRACE 301002:
	com.sun.tools.javac.comp.Attr.visitApply(Attr.java:4)
	com.sun.tools.javac.comp.Attr.attribClass(Attr.java:2)
	com.sun.tools.javac.main.JavaCompiler.compile(JavaCompiler.java:3)
	App.main(App.java:1)
TRACE 301003:
	org.example.deep.pkg.Outer$Inner.handle(Outer.java:5)
	org.example.deep.pkg.Outer.run(Outer.java:6)
	com.sun.tools.javac.main.JavaCompiler.compile(JavaCompiler.java:3)
	App.main(App.java:1)
TRACE 301004:
	a.b.Work.loop(Work.java:1)
	a.b.Work.step(Work.java:2)
	a.b.Work.run(Work.java:3)
	App.main(App.java:1)
TRACE 301005:
	[walk_failed].unknown_Java(Unknown Source)
CPU SAMPLES BEGIN (total = 25) Tue Nov 24 10:00:01 2026
rank   self  accum   count trace method
   1 40.00% 40.00%      10 301004 a.b.Work.loop
   2 20.00% 60.00%       5 301001 com.sun.tools.javac.comp.Attr.attribTree
   3 20.00% 80.00%       5 301002 com.sun.tools.javac.comp.Attr.visitApply
   4 12.00% 92.00%       3 301003 org.example.deep.pkg.Outer$Inner.handle
   5  8.00% 100.00%      2 301005 [walk_failed].unknown_Java
CPU SAMPLES END
PROF
  "$HPROF_TOOL" view javac4.txt -o javac4.html 2>javac4.err
  html_find "$WORK/javac4.html" com.sun.tools.javac.comp.Attr.attribTree >attr.txt
  check "a narrow bar shows Attr.attribTree, not com.sun... cut ($(grep label= attr.txt))" grep -qx 'label=Attr.attribTree' attr.txt
  html_find "$WORK/javac4.html" 'org.example.deep.pkg.Outer$Inner.handle' >inner.txt
  check "a narrower one drops the outer class too: Inner.handle ($(grep label= inner.txt))" grep -qx 'label=Inner.handle' inner.txt
  html_find "$WORK/javac4.html" com.sun.tools.javac.comp.Attr.attribTree 3000 >wide.txt
  check "the same bar wide enough shows the whole name ($(grep label= wide.txt))" \
    grep -qx 'label=com.sun.tools.javac.comp.Attr.attribTree' wide.txt
  html_find "$WORK/javac4.html" App.main >main.txt
  check "the tip: whole name, 5 samples, 20% of the total, 50% of its parent ($(grep tip= attr.txt))" \
    grep -qx 'tip=com.sun.tools.javac.comp.Attr.attribTree | Java · samples: 5 | 20.00% of the total, 50.00% of its parent' attr.txt
  html_find "$WORK/javac4.html" '[walk_failed].unknown_Java' >failed.txt
  wf=$(sed -n 's/^fill=//p' failed.txt) jf=$(sed -n 's/^fill=//p' main.txt)
  wh=$(hsl_hue "$wf") jh=$(hsl_hue "$jf")
  check "[walk_failed] is drawn as a pseudo-frame ($wf), not in Java's green ($jf)" \
    bash -c "grep -qx 'family=pseudo-frame' '$WORK/failed.txt' && (( ${jh:-0} >= 95 && ${jh:-0} <= 130 )) &&
             [[ -n '$wh' ]] && (( ${wh:-0} < 95 || ${wh:-0} > 130 ))"
  note='stacks cut at depth 4: run with depth=64 (view= does this) for a readable flame graph'
  check "stacks 4 deep: the page says so" test "$(html_cut_note "$WORK/javac4.html")" = "$note"
  check "... and hprof view says it on stderr" grep -qxF "hprof view: note: $note" javac4.err
  # 64 deep: one stack of 64 frames, nine of 10
  awk 'BEGIN { print "JAVA PROFILE 1.0.1, created Tue Nov 24 10:00:00 2026\n\nTRACE 301001:"
               for (i = 64; i >= 1; i--) printf "\tp.C.m%d(C.java:1)\n", i
               print "TRACE 301002:"; for (i = 10; i >= 1; i--) printf "\tp.C.m%d(C.java:1)\n", i
               print "CPU SAMPLES BEGIN (total = 10) Tue Nov 24 10:00:01 2026\nrank   self  accum   count trace method"
               print "   1 90.00% 90.00%       9 301002 p.C.m10\n   2 10.00% 100.00%       1 301001 p.C.m64\nCPU SAMPLES END" }' >deep64.txt
  "$HPROF_TOOL" view deep64.txt -o deep64.html 2>deep64.err
  check "stacks 64 deep: no note on the page" test "$(html_cut_note "$WORK/deep64.html")" = "(none)"
  check "... nor on stderr" bash -c "! grep -q 'stacks cut' '$WORK/deep64.err'"
  check "screenshot of the labelled flame graph kept" html_screenshot "$WORK/javac4.html" "$ARTIFACTS/view-labels.png"
else
  not_ok "chromium not found (Debian: apt-get install chromium)"
fi
