#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=sites,callers=sampled (src/sources/alloc/alloc_counted.c): allocation counts exact
# per allocation site on every path, callers found on samples, a site's count split among
# its traces by them, live counts estimated from allocation samples.
#   - SitesKnown (heap_sites.sh's known counts): each class's count, summed over its sites,
#     equals exact heap=sites' and the known numbers; also with -Xint (interpreted only)
#   - SitesCounted ratio: one site called 750,000 times from a() and 250,000 from b()
#     (interleaved, compiled by C2): the two traces' counts within 2% of 750,000 and
#     250,000 (the error docs/heap-sites.md states), their sum exactly 1,000,000, both
#     rows marked *; a site with one caller (1,000,000 long[]) exact, unmarked; 200,000
#     new int[2][3] counted at each dimension
#   - SitesCounted late: a site with one caller for 2,000,000 allocations, then a second
#     caller for 200,000 of the next 400,000: the split within 2 points of the site's
#     total, exact sum, and no more walks than such a site needs (it does not start its
#     sampling over: 1,400 walks before, about 800 now)
#   - SitesCounted lambdas: 300,000 capturing lambdas (Unsafe.allocateInstance, counted in
#     Java at a site per class): exact, few stack walks, each of three callers about a
#     third; and 2,400,000 made on 8 threads at once, exact
#   - SitesCounted made: objects the VM makes (clones, Array.newInstance, one and two
#     dimensions) counted in Java at a site per call and class: exact per call, few walks
#     (one each before: 900,000), Array.newInstance's two callers split 3:1 within 2%;
#     10 ints boxed by reflection (on JDK 17 by the VM, through VMObjectAlloc)
#   - SitesCounted made-live: 200,000 of 800,000 long[64] from Array.newInstance live at
#     the end: the estimate within 25% (the samples, made in Array.newArray, held under
#     the row's frame, the call)
#   - SitesCounted hidden: `new` in hidden classes (which reach no class-file hook: the
#     agent instruments them from ClassDefiner's hook): 100,000 Item by a constructor
#     reference, 100,000 strings by `+` (a hidden class makes them from JDK 24)
#   - SitesCounted live: 400,000 of 1,600,000 byte[256] live at the end: the estimate
#     within 25% (about 830 samples of 512 KB)
#   - pprof (go tool pprof -traces) holds the exact site totals; a rolling profile's
#     windows add up exactly; attached (hprof start PID heap=sites,callers=sampled)
#   - the option's errors
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"

gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libsitesjni.so" \
  "$HPROF_ROOT/tests/java/native/sites_jni.c"

# per_class FILE: "class count" for SitesKnown's classes, summed over all their rows.
per_class() {
  awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && $9 ~ /^SitesKnown[$][A-Za-z]+(\[\])?$/ { n[$9] += $7 }
       END { for (k in n) print k, n[k] }' "$1" | sort
}
# count FILE CLASS METHOD: objects of CLASS at traces that contain METHOD.
count() {
  awk -v c="$2" -v m="$3" '
    /^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
    /^\t/ { if (index($0, m)) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 == c && ($8 in has) { s += $7 } END { print s + 0 }' "$1"
}

run_java -Xverify:all "$(agent heap=sites,depth=8,cutoff=0,file=e.txt)" SitesKnown "$WORK/libsitesjni.so"
per_class e.txt >exact.txt
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,callers=sampled,depth=8,cutoff=0,file=c.txt)" SitesKnown "$WORK/libsitesjni.so"
per_class c.txt >counted.txt
check "same output and status as without the agent" bash -c "[[ $RC -eq 0 ]] && grep -qx 'kept 23933' out.txt"
check "SITES says what is exact and what is estimated" \
  grep -q "^SITES BEGIN (ordered by live bytes; alloc'ed exact per allocation site, rows marked \* share" c.txt
check "rows keep the nine columns (a * after the class name only)" \
  bash -c "awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && \$1 ~ /^[0-9]+\$/ && !(NF == 9 || (NF == 10 && \$10 == \"*\")) { bad = 1 } END { exit bad }' c.txt"
check "every class counted as exact heap=sites counts it ($(tr '\n' ' ' <counted.txt))" diff exact.txt counted.txt
# total CLASS: its count in counted.txt
total() { awk -v c="$1" '$1 == c { print $2 }' counted.txt; }
check "12345 Foo by new in makeFoos, 300 more by reflection" \
  bash -c "[[ $(count c.txt 'SitesKnown$Foo' SitesKnown.makeFoos) -eq 12345 && $(total 'SitesKnown$Foo') -eq 12645 ]]"
check "777 int[][] and 2331 int[] from new int[3][4]" \
  bash -c "[[ $(count c.txt 'int[][]' SitesKnown.makeArrays) -eq 777 && $(count c.txt 'int[]' SitesKnown.makeArrays) -eq 2331 ]]"
check "501 Bar (500 clones), 200 long[] from Array.newInstance, 10 Heavy with 10000 Part" \
  bash -c "[[ $(count c.txt 'SitesKnown$Bar' SitesKnown.makeClones) -eq 501 && $(count c.txt 'long[]' java.lang.reflect.Array.newInstance) -eq 200 && $(total 'SitesKnown$Heavy') -eq 10 && $(total 'SitesKnown$Part') -eq 10000 ]]"
check "650 Qux from JNI AllocObject and NewObject, 16000 Baz from 16 threads" \
  bash -c "[[ $(count c.txt 'SitesKnown$Qux' SitesKnown.makeJni) -eq 650 && $(count c.txt 'SitesKnown$Baz' SitesKnown) -eq 16000 ]]"
check "an object's trace starts at its new (makeFoos), not in its constructor" \
  bash -c "awk '/^TRACE [0-9]+:/ { getline f; if (f ~ /SitesKnown.makeFoos/) ok = 1; if (f ~ /SitesKnown\\\$Foo.<init>/) bad = 1 } END { exit !(ok && !bad) }' c.txt"
check "callers were sampled, not walked for every allocation" \
  bash -c "n=\$(sed -n 's/^HPROF: callers=sampled: [0-9]* sites numbered, \([0-9]*\) samples.*/\1/p' out.txt | tail -1); [[ -n \$n && \$n -lt 5000 ]]"

run_java -Xint -Xverify:all "$(agent heap=sites,callers=sampled,depth=8,cutoff=0,file=i.txt)" SitesKnown "$WORK/libsitesjni.so"
per_class i.txt >interp.txt
check "-Xint: every class counted as exact heap=sites counts it" diff exact.txt interp.txt

# ---- allocateInstance: every capturing lambda, counted in Java at its class's site ----
# (a walk per lambda made javac twice as slow)
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,callers=sampled,depth=8,cutoff=0,file=la.txt)" SitesCounted lambdas
lam=$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 ~ /^SitesCounted[$][$]Lambda/ { n += $7 } END { print n + 0 }' la.txt)
# stack_walks: walks of whole stacks the last run made (out.txt): the fast ones less those
# of the top frame alone (JDK 17: which tell the VM's reports of the hooked natives)
stack_walks() {
  sed -n 's/^HPROF: heap=sites stacks: \([0-9]*\) by the fast walk.*; \([0-9]*\) walks of the top.*/\1 \2/p' out.txt |
    tail -1 | awk '{ print $1 - $2 }'
}
walks=$(stack_walks)
check "lambdas: runs (exit $RC); 300000 capturing lambdas counted exactly ($lam), with few walks of the stack ($walks)" \
  bash -c "[[ $RC -eq 0 && $lam -eq 300000 && -n '$walks' && '$walks' -lt 30000 ]]"
# lambda_count FILE METHOD: the lambdas at traces that contain METHOD
lambda_count() {
  awk -v m="$2" '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next } /^\t/ { if (index($0, m)) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 ~ /^SitesCounted[$][$]Lambda/ && ($8 in has) { s += $7 } END { print s + 0 }' "$1"
}
la=$(lambda_count la.txt SitesCounted.lambdaA) lb=$(lambda_count la.txt SitesCounted.lambdaB)
lc=$(lambda_count la.txt SitesCounted.lambdaC)
check "lambdas: their callers found on samples, each about a third ($la, $lb, $lc; within 10%), all marked *" \
  bash -c "(( $la + $lb + $lc == 300000 && $la >= 90000 && $la <= 110000 && $lb >= 90000 && $lb <= 110000 )) &&
    awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && \$9 ~ /^SitesCounted[\$][\$]Lambda/ && \$10 != \"*\" { bad = 1 } END { exit bad }' la.txt"

HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,callers=sampled,depth=8,cutoff=0,file=lt.txt)" SitesCounted lambda-threads
lam=$(lambda_count lt.txt SitesCounted.capture) all=$(lambda_count lt.txt SitesCounted) walks=$(stack_walks)
# (on a miss, where the rest went: the lambda rows whose trace has no SitesCounted.capture)
[[ $lam -eq 2400000 ]] || awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next } /^\t/ { if (index($0, "SitesCounted.capture")) has[tr] = 1; next }
  /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 ~ /^SitesCounted[$][$]Lambda/ && !($8 in has) { print "# not at capture:", $0 }' lt.txt
check "lambdas on 8 threads at once: runs (exit $RC); 2400000 made by capture() counted exactly in Java ($lam; with main's 8 Runnables $all; $walks stack walks)" \
  bash -c "[[ $RC -eq 0 && $lam -eq 2400000 && $all -eq 2400008 && -n '$walks' && '$walks' -lt 200000 ]] && grep -qx done out.txt"

# ---- what the VM makes: counted in Java at a site per call and class ----
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,callers=sampled,depth=16,cutoff=0,file=m.txt)" SitesCounted made
walks=$(stack_walks)
cc=$(count m.txt 'SitesCounted$Copyable' SitesCounted.copies) ac=$(count m.txt 'long[]' SitesCounted.arrayCopy)
check "made: runs (exit $RC); 300000 Copyable by super.clone() ($cc) and 200000 long[5] by clone() ($ac), exact, with few walks of the stack ($walks)" \
  bash -c "[[ $RC -eq 0 && $cc -eq 300000 && $ac -eq 200000 && -n '$walks' && '$walks' -lt 30000 ]] && grep -qx done out.txt"
# unmarked CLASS COUNT: rows of CLASS with exactly COUNT objects, not marked *
unmarked() { awk -v c="$1" -v n="$2" '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 == c && $7 == n && NF == 9' m.txt | wc -l; }
check "made: each clone's row is its call's own, not apportioned" \
  bash -c "[[ $(unmarked 'SitesCounted$Copyable' 300000) -eq 1 && $(unmarked 'long[]' 200000) -eq 1 ]]"
na=$(count m.txt 'long[]' SitesCounted.newA) nb=$(count m.txt 'long[]' SitesCounted.newB)
an=$(count m.txt 'long[]' java.lang.reflect.Array.newInstance)
marked=$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 == "long[]" && $10 == "*" { n += $7 } END { print n + 0 }' m.txt)
check "made: Array.newInstance's 400000 long[3] ($na + $nb), split 3:1 within 2%, at Array.newInstance ($an), marked * ($marked)" \
  bash -c "(( $na + $nb == 400000 && $na >= 294000 && $na <= 306000 && $an == 400000 && $marked == 400000 ))"
# JDK 17: the VM boxes a reflective call's int (its report of the object, VMObjectAlloc);
# JDK 25: Integer.valueOf does, in Java
bx=$(count m.txt java.lang.Integer SitesCounted.boxes)
# (JDK 25 links the first reflective call with method handles, which box a few of their own)
check "made: 10 ints boxed by reflective calls counted ($bx)" bash -c "[[ $bx -ge 10 && $bx -le 15 ]]"
# (newMulti's own int[] {2, 3} of the varargs call: 10000 more int[] at its trace)
check "made: Array.newInstance(int.class, 2, 3): 10000 int[][] and 20000 int[], at Array.newInstance" \
  bash -c "[[ $(count m.txt 'int[][]' SitesCounted.newMulti) -eq 10000 && $(count m.txt 'int[]' SitesCounted.newMulti) -eq 30000 &&
    $(count m.txt 'int[]' java.lang.reflect.Array.newInstance) -eq 20000 ]]"

run_java -Xverify:all "$(agent heap=sites,callers=sampled,cutoff=0,file=ml.txt)" SitesCounted made-live
live=$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $9 == "long[]" && $7 == 800000 { print $5 }' ml.txt)
check "made: live estimate of 200000 kept long[64] from Array.newInstance: $live, within 25%" \
  bash -c "[[ $RC -eq 0 && -n '$live' && $live -ge 150000 && $live -le 250000 ]]"

# ---- `new` in hidden classes ----
run_java -Xverify:all "$(agent heap=sites,callers=sampled,depth=16,cutoff=0,file=h.txt)" SitesCounted hidden
hi=$(count h.txt 'SitesCounted$Item' SitesCounted.hidden) hs=$(count h.txt java.lang.String SitesCounted.concat)
# (the first concat's linkage makes a few strings of its own under concat())
check "hidden classes: runs (exit $RC); 100000 Item by a constructor reference ($hi), 100000 strings by + ($hs)" \
  bash -c "[[ $RC -eq 0 && $hi -eq 100000 && $hs -ge 100000 && $hs -le 100100 ]] && grep -qx done out.txt"

# ---- apportioning, compiled code ----
run_java -Xverify:all "$(agent heap=sites,callers=sampled,cutoff=0,file=r.txt,view=pprof)" SitesCounted ratio
ra=$(count r.txt 'SitesCounted$Item' SitesCounted.a) rb=$(count r.txt 'SitesCounted$Item' SitesCounted.b)
check "one site, two callers 3:1: $ra and $rb, within 2% of 750000 and 250000, sum exactly 1000000" \
  bash -c "[[ $RC -eq 0 && $((ra + rb)) -eq 1000000 && $ra -ge 735000 && $ra -le 765000 ]]"
check "its two rows marked * (apportioned)" \
  bash -c "[[ \$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && \$9 == \"SitesCounted\$Item\" && \$10 == \"*\"' r.txt | wc -l) -eq 2 ]]"
check "a site with one caller: 1000000 long[] on one unmarked row, exact bytes" \
  bash -c "awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && \$9 == \"long[]\" && \$7 == 1000000 && NF == 9 { ok = 1 } END { exit !ok }' r.txt && [[ $(count r.txt 'long[]' SitesCounted.single) -eq 1000000 ]]"
check "200000 new int[2][3]: 200000 int[][] and 400000 int[]" \
  bash -c "[[ $(count r.txt 'int[][]' SitesCounted.multi) -eq 200000 && $(count r.txt 'int[]' SitesCounted.multi) -eq 400000 ]]"
if command -v go >/dev/null; then
  timeout 120 go tool pprof -sample_index=alloc_objects -traces r.sites.pb.gz >traces.txt 2>&1 || true
  # the objects of each sample whose top frame is the class SitesCounted$Item
  pp=$(awk '/^ +[0-9]+ +SitesCounted\$Item/ { s += $1 } END { print s + 0 }' traces.txt)
  check "pprof: the Item samples add up to exactly 1000000 ($pp), the apportioned ones named so" \
    bash -c "[[ $pp -eq 1000000 ]] && grep -q 'SitesCounted\$Item (apportioned)' traces.txt"
else
  skip "pprof: the exact site totals" "go is not installed"
fi

# ---- a second caller found late: the site goes on at the pace its count has reached ----
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,callers=sampled,cutoff=0,file=lt2.txt)" SitesCounted late
la=$(count lt2.txt 'SitesCounted$Item' SitesCounted.lateA) lb=$(count lt2.txt 'SitesCounted$Item' SitesCounted.lateB)
walks=$(stack_walks)
check "late second caller: $la and $lb, sum exactly 2400000, lateB within 2 points of the site's total of 200000" \
  bash -c "[[ $RC -eq 0 && $((la + lb)) -eq 2400000 && $lb -ge 152000 && $lb -le 248000 ]] && grep -qx done out.txt"
check "late second caller: the site's sampling does not start over ($walks stack walks, fewer than 1100)" \
  bash -c "[[ -n '$walks' && $walks -lt 1100 ]]"

# ---- live estimates ----
run_java -Xverify:all "$(agent heap=sites,callers=sampled,cutoff=0,file=l.txt)" SitesCounted live
live=$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $9 == "byte[]" && $7 == 1600000 { print $5 }' l.txt)
check "live estimate of 400000 kept byte[256]: $live, within 25%" \
  bash -c "[[ -n '$live' && $live -ge 300000 && $live -le 500000 ]]"

# ---- a rolling profile: the windows add up exactly ----
mkdir -p "$WORK/x"
start_phases S "-agentpath:$HPROF_LIB=heap=sites,callers=sampled,depth=8,cutoff=0,rotate=1,file=$WORK/x/sites-%t.txt" -- 1:30000:2500
wait_phases S
sum=$(cat x/* | awk '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 } f && $9 == "Phases$Mark1" { n += $7 } END { print n + 0 }')
check "rotate=1: $(ls x | wc -l) windows, their Mark1 counts add up to exactly 30000 ($sum)" \
  bash -c "[[ \$(ls x | wc -l) -ge 2 && $sum -eq 30000 ]]"

# ---- timeline=gc: each interval's exact allocations (the counts read after each GC) ----
run_java -XX:+UseSerialGC -Xmn64m -Xverify:all "$(agent heap=sites,callers=sampled,timeline=gc,file=tl.txt)" TimelineAlloc counts tl.txt
known=$(awk '/^ALLOCS LIVE BEGIN/ { n++; a[n] = 0 } n && $7 ~ /^TimelineAlloc\$Known/ { a[n] = $2 }
  END { for (i = 1; i <= 4; i++) printf "%s|", a[i] }' tl.txt)
check "timeline=gc: 1000 Known allocated in each of 3 intervals, then none ($known)" \
  bash -c "[[ $RC -eq 0 && '$known' == '1000|1000|1000|0|' ]]"
check "timeline=gc: the GC records count the same allocations as the intervals" bash -c "
  awk '/^ALLOCS LIVE BEGIN/ { a = \$10 } /^GC [0-9]/ { if (\$0 !~ (\"allocated \" a \" objects\")) bad = 1 } END { exit bad }' tl.txt"

# ---- attached: a session in this mode ----
start_phases A
if [[ -n "$PID" ]]; then
  hp start "$PID" heap=sites,callers=sampled,depth=8,cutoff=0,file="$WORK/a.txt"
  check_said "attached: hprof start heap=sites,callers=sampled" 'heap=sites'
  echo "alloc 2 2000" >"$WORK/A/cmd.1"
  for _ in $(seq 600); do [[ -f "$WORK/A/ack.1" ]] && break; sleep 0.1; done
  hp stop "$PID"
  n=$(awk '/^SITES BEGIN/ { n = 0; f = 1; next } /^SITES END/ { f = 0 } f && $9 == "Phases$Mark2" { n += $7 } END { print n + 0 }' a.txt)
  check "attached: the 2000 Mark2 made in the session counted exactly ($n)" test "$n" -eq 2000
  hp start "$PID" heap=sites,file="$WORK/a2.txt"
  expect_fail 10 "callers=: whether allocations are counted" "a later session with callers=all: refused"
  end_phases A
else
  not_ok "the program to attach to did not start"
fi

# ---- options ----
for bad in "cpu=samples,callers=sampled|callers=sampled needs heap=sites" \
           "heap=sites,alloc_sample=4096,callers=sampled|callers=sampled counts every allocation" \
           "heap=sites,callers=maybe|callers option value must be all|sampled"; do
  opt=${bad%%|*} msg=${bad#*|}
  run_java "$(agent "$opt")" SitesCounted ratio
  check "$opt: HPROF ERROR, the JVM does not start" bash -c "[[ $RC -ne 0 ]] && grep -q 'HPROF ERROR' out.txt && grep -qF '$msg' out.txt"
done
jni_clean
