#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rolling profiles (rotate=, keep=, hprof profile --every; src/agent/session.h), on the
# JDK under test, -Xcheck:jni, with tests/java/Phases.java:
#   R  attached: `hprof profile PID -d 4s --every 1 --keep 3 -o cpu-%t.pb.gz`: only the last
#      3 windows' files remain, 0600; go tool pprof reads each with its start time (the
#      name's %t), a duration, the period and the labels service_name, host, pid; the
#      windows follow one another; their sum has the shares of a whole-run profile;
#      --every without -d runs until Ctrl-C
#   S  at start-up, exact heap=sites with rotate=1: the Mark1 objects the program makes
#      over a few windows add up, over the windows' files, to exactly its count, as in
#      one whole-run profile; with view=collapsed and the default cutoff, the windows'
#      views add up to the same
#   F  at start-up, cpu=samples with rotate=1, tests/java/ShiftingStacks.java: a new
#      recursion depth every second, then the first again. The stacks no window sampled
#      for 2 windows are forgotten (HPROF_TABLE_STATS), those seen again are counted
#      again under new traces, and every window's text file names a TRACE for each of
#      its rows
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"
source "$HPROF_ROOT/tests/lib/views.sh"

pp() { HOME=$WORK GOCACHE=$WORK/gocache go tool pprof "$@" 2>/dev/null; }
# start_s FILE: pprof's time_nanos, from -raw's "Time:" line, as seconds.nanos.
start_s() { date -u -d "$(pp -raw "$1" | sed -n 's/^Time: \(.*\) +0000 UTC$/\1/p')" +%s.%N; }
# dur_s FILE: duration_nanos as -top says it ("Duration: 1.01s", "901.61ms", "310µs"), in s.
dur_s() {   # (the last window, cut by the stop, may be shorter than a millisecond: µs, ns)
  pp -top "$1" | sed -n 's/^Duration: \([0-9.]*\)\(s\|ms\|µs\|us\|ns\),.*/\1 \2/p' |
    awk '{ u = $2 == "ms" ? 1e-3 : $2 == "µs" || $2 == "us" ? 1e-6 : $2 == "ns" ? 1e-9 : 1; printf "%.9f\n", $1 * u }'
}
# share FILE.collapsed: the part of its samples in stacks that end in Phases.hot1.
share() { awk '{ t += $NF } /(^|;)Phases\.hot1 [0-9]+$/ { h += $NF } END { printf "%.3f\n", t ? h / t : 0 }' "$1"; }

# ---- R: attached, a pprof file per second ----
start_phases R
if [[ -z "$PID" ]]; then not_ok "the target program did not start"; exit 0; fi
R=$PID
mkdir -p "$WORK/w"
hp profile $R -d 4s --every 1 --keep 3 -o "$WORK/w/cpu-%t.pb.gz" cpu=samples,interval=1,service=shop-api
check "profile --every 1 --keep 3: exit 0, a file every 1 s said" \
  bash -c "[[ $HRC == 0 ]] && grep -q 'a file every 1 s' hp.out && grep -q 'HPROF: stopped' hp.out"
mapfile -t files < <(ls "$WORK/w" | sort)
check "keep=3: only the last 3 windows' files remain (${#files[@]}: ${files[*]})" test "${#files[@]}" = 3
check "each window's file is named by its start (cpu-YYYYMMDDTHHMMSSZ.pb.gz) and is 0600" \
  bash -c "cd w && ls | grep -Evq '^cpu-[0-9]{8}T[0-9]{6}Z\.pb\.gz$' && exit 1; [[ \$(stat -c %a * | sort -u) == 600 ]]"
if have_go; then
  ok_names=1 ok_durs=1 ok_follow=1 prev_end=""
  for f in "${files[@]}"; do
    s=$(start_s "w/$f") d=$(dur_s "w/$f")
    name=cpu-$(date -u -d "@${s%.*}" +%Y%m%dT%H%M%SZ).pb.gz
    [[ $name == "$f" ]] || { ok_names=0; echo "# $f: pprof's time_nanos says $name"; }
    awk -v d="$d" 'BEGIN { exit !(d > 0) }' ||
      { ok_durs=0; echo "# $f: duration '$d'; pprof -top says: $(pp -top "w/$f" | head -4 | tr '\n' '|')"; }
    # each window begins where the one before ended (a dump's write apart)
    [[ -z $prev_end ]] || awk -v a="$prev_end" -v b="$s" 'BEGIN { x = b - a; exit !(x > -0.5 && x < 1.5) }' ||
      { ok_follow=0; echo "# $f: starts at $s, the window before ended at $prev_end"; }
    prev_end=$(awk -v s="$s" -v d="$d" 'BEGIN { printf "%.3f", s + d }')
  done
  check "go tool pprof: each file's time_nanos is the window's start its name says" test $ok_names = 1
  check "go tool pprof: each file has a duration" test $ok_durs = 1
  check "the windows follow one another: each starts where the last ended" test $ok_follow = 1
  pp -raw "w/${files[0]}" >raw.txt
  check "pprof: period_type cpu nanoseconds, period 1 ms (interval=1)" \
    bash -c "grep -q '^PeriodType: cpu nanoseconds' raw.txt && grep -q '^Period: 1000000$' raw.txt"
  pp -tags "w/${files[0]}" >tags.txt
  check "pprof labels: service_name=shop-api, host=$(hostname), pid=$R on the samples" \
    bash -c "grep -A1 '^ *service_name:' tags.txt | grep -q ': shop-api$' && grep -A1 '^ *host:' tags.txt | grep -q \": $(hostname)\$\" &&
             grep -A1 '^ *pid:' tags.txt | grep -q ': $R\$'"
  for f in "${files[@]}"; do pprof_collapsed "w/$f"; done | merge_collapsed >windows.collapsed
  hp profile $R -d 3s -o "$WORK/whole.collapsed" cpu=samples,interval=1
  sw=$(share windows.collapsed) sh=$(share whole.collapsed)
  check "the windows' sum has the shares of a whole-run profile: hot1 $sw over the windows, $sh in one profile" \
    awk -v a="$sw" -v b="$sh" 'BEGIN { d = a - b; exit !(a > 0.3 && d < 0.15 && d > -0.15) }'
else
  skip "go tool pprof reads the windows" "no go (apt-get install golang-go)"
fi
# --every without -d: until Ctrl-C, then the last window is written.
mkdir -p "$WORK/u"
( "$HPROF" profile $R --every 1 -o "$WORK/u/t-%t.txt" cpu=samples >u.out 2>&1; echo $? >u.rc ) &
for _ in $(seq 100); do grep -q 'profile goes to' u.out 2>/dev/null && break; sleep 0.1; done
sleep 2.5
pkill -INT -f "hprof profile $R --every 1 -o $WORK/u" || true
for _ in $(seq 300); do [[ -s u.rc ]] && break; sleep 0.1; done
check "--every without -d: runs until Ctrl-C, then stops (exit 0, $(ls u | wc -l) text windows)" \
  bash -c "[[ \$(cat u.rc) == 0 ]] && grep -q 'HPROF: stopped' u.out && [[ \$(ls u | wc -l) -ge 2 ]] &&
           for f in u/*; do grep -q '^CPU SAMPLES END' \$f || exit 1; done"
hp profile $R --every 1 -o "$WORK/u/nopattern.txt"
expect_fail 2 'needs %t' "--every without %t in -o: usage error"
end_phases R

# ---- S: at start-up, exact heap=sites, a file per second; exact sums ----
mkdir -p "$WORK/x"
start_phases S "-agentpath:$HPROF_LIB=heap=sites,depth=8,cutoff=0,rotate=1,file=$WORK/x/sites-%t.txt" -- 1:30000:2500
wait_phases S
start_phases W "-agentpath:$HPROF_LIB=heap=sites,depth=8,cutoff=0,file=$WORK/whole.txt" -- 1:30000:2500
wait_phases W
nwin=$(ls x | wc -l)
sum=$(for f in x/*; do awk '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 } f && $9 == "Phases$Mark1" { n += $7 } END { print n + 0 }' "$f"; done |
      awk '{ s += $1 } END { print s + 0 }')
whole=$(awk '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 } f && $9 == "Phases$Mark1" { n += $7 } END { print n + 0 }' whole.txt)
check "rotate=1 at start-up: the allocations spread over $nwin windows' files" test "$nwin" -ge 2
check "the windows' Mark1 counts add up to exactly 30000 ($sum), as the whole-run profile's ($whole)" \
  test "$sum $whole" = "30000 30000"
check "each window's file holds one SITES section, its own, and is 0600" \
  bash -c "for f in x/*; do [[ \$(grep -c '^SITES BEGIN' \$f) == 1 && \$(stat -c %a \$f) == 600 ]] || exit 1; done"
# The windows' views hold every site whatever the text's cutoff: with cutoff=1 the text
# SITES keeps no site, and the views' Mark1 bytes still add up to the whole run's.
mkdir -p "$WORK/v"
start_phases V "-agentpath:$HPROF_LIB=heap=sites,depth=8,cutoff=1,rotate=1,view=collapsed,viewonly=y,file=$WORK/v/sites-%t.txt" -- 1:30000:2500
wait_phases V
mark1=$(awk '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 } f && $9 == "Phases$Mark1" { b += $6 } END { print b + 0 }' whole.txt)
vsum=$(cat v/*.sites.collapsed 2>/dev/null | awk '/;Phases\$Mark1 [0-9]+$/ { s += $NF } END { print s + 0 }')
check "rotate=1, view=collapsed: $(ls v | wc -l) windows' views, their Mark1 bytes the whole run's ($vsum, $mark1)" \
  test "$vsum" = "$mark1" -a "$mark1" -gt 0 -a "$(ls v | wc -l)" -ge 2
check "S, W, V: the programs ran to their end (exit 0)" bash -c "[[ \$(cat S.rc) == 0 && \$(cat W.rc) == 0 && \$(cat V.rc) == 0 ]]"
check "no -Xcheck:jni complaint" bash -c "! grep -qi 'jni' R.out S.out W.out V.out"

# ---- F: a rolling profile forgets the stacks no window samples any more ----
mkdir -p "$WORK/f"
HPROF_TABLE_STATS=1 run_java "$(agent cpu=samples,interval=1,depth=16,rotate=1,file=$WORK/f/cpu-%t.txt)" \
  ShiftingStacks 1000 1 2 3 4 5 6 1 1
cp out.txt F.out
check "F: the program ran to its end (exit $RC)" bash -c "[[ $RC == 0 ]] && grep -q '^done' F.out"
forgot=$(sed -n 's/^HPROF: tables: .* traces under .* raw keys (\([0-9]*\) forgotten)$/\1/p' F.out)
check "F: stacks no window sampled for 2 windows were forgotten (${forgot:-none said})" \
  bash -c "[[ '$forgot' =~ ^[0-9]+$ ]] && (( $forgot >= 3 ))"
# depths FILE: "DEPTH SAMPLES" for each recursion depth its CPU SAMPLES rows name (the
# level() frames of the row's TRACE), then "missing N": rows with no TRACE in the file.
depths() {
  awk '/^TRACE [0-9]+:/ { t = $2; sub(":", "", t); seen[t] = 1; d[t] = 0; next }
       /^\t/ && t != "" { if ($1 ~ /^ShiftingStacks\.level\(/) d[t]++; next }
       { t = "" }
       /^CPU SAMPLES BEGIN/ { s = 1; next } /^CPU SAMPLES END/ { s = 0 }
       s && $1 ~ /^[0-9]+$/ { row[$5] += $4 }
       END { for (r in row) { if (!(r in seen)) miss++; else if (d[r]) n[d[r]] += row[r] }
             for (k in n) print k, n[k]; print "missing", miss + 0 }' "$1"
}
mapfile -t fw < <(ls f | sort)
missing=0 all=""
for f in "${fw[@]}"; do
  depths "f/$f" >"f.$f.depths"
  missing=$((missing + $(awk '$1 == "missing" { print $2 }' "f.$f.depths")))
  all+=" $(awk '$1 != "missing" { print $1 }' "f.$f.depths" | tr '\n' ' ')"
done
seen=$(tr ' ' '\n' <<<"$all" | grep . | sort -un | tr '\n' ' ')
check "F: ${#fw[@]} windows' files, every CPU SAMPLES row with its TRACE in its own file ($missing without)" \
  bash -c "(( ${#fw[@]} >= 7 && $missing == 0 ))"
check "F: the windows saw every depth the program ran, 1 to 6 ($seen)" test "$seen" = "1 2 3 4 5 6 "
# the last window with samples (the one at exit may have none, or a few)
last=""
for ((i = ${#fw[@]} - 1; i >= 0 && ${#last} == 0; i--)); do
  last=$(awk '$1 != "missing" { printf "%s:%s ", $1, $2 }' "f.${fw[i]}.depths")
done
check "F: the last window, after depth 1's stacks were forgotten, counts them again, at depth 1 alone ($last)" \
  bash -c "[[ '$last' =~ ^1:[0-9]+\ $ ]]"
