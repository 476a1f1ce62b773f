#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=sites: exact allocation counts per site, live counts after a GC, text and binary.
source "$(dirname "$0")/../lib/common.sh"

gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libsitesjni.so" \
  "$HPROF_ROOT/tests/java/native/sites_jni.c"
set +e
# (its stdout: on JDK 22+ stderr has the JVM's warning about System.load)
BASE=$("$JAVA" -cp "$TEST_CLASSES" SitesKnown "$WORK/libsitesjni.so" 2>/dev/null)
set -e

HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,cutoff=0,file=s.txt)" SitesKnown "$WORK/libsitesjni.so"
cp out.txt s.out
# walks KIND FILE: how many stacks the HPROF_STACK_STATS line says were taken that way
walks() { sed -n "s/^HPROF: heap=sites stacks: \([0-9]*\) by the fast walk, \([0-9]*\) by GetStackTrace, \([0-9]*\) by the code site.*/\1 \2 \3/p" "$2" | tail -1 | awk -v k="$1" '{ print (k == "fast" ? $1 : k == "code" ? $3 : $2) + 0 }'; }
export -f walks
check "same output and status as without the agent ($BASE)" bash -c "[[ $RC -eq 0 && '$BASE' =~ ^kept\ [0-9]+\$ ]] && grep -qxF '$BASE' out.txt"
check "SITES section with the original's headers" bash -c "grep -Eq '^SITES BEGIN \\(ordered by live bytes\\) [A-Z][a-z]{2} ' s.txt && grep -qx \"          percent          live          alloc'ed  stack class\" s.txt && grep -qx ' rank   self  accum     bytes objs     bytes  objs trace name' s.txt && grep -qx 'SITES END' s.txt"
awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $1 ~ /^[0-9]+$/' s.txt >rows.txt
check "rows have the original's layout" bash -c "[[ -s rows.txt ]] && awk '{ r = sprintf(\"%5d %5.2f%% %5.2f%% %9d %4d %9d %5d %5d %s\", \$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8, \$9); if (r != \$0) bad = 1 } END { exit bad }' rows.txt"

check "TRACE 300000 (<empty>) and every trace a row names come before SITES BEGIN, as in the original" \
  bash -c "awk '/^TRACE 300000:/ { e = NR } /^TRACE [0-9]+:/ { t = \$2; sub(\":\", \"\", t); seen[t] = 1 }
                /^SITES BEGIN/ { s = NR; exit } END { exit !(e && s && e < s) }' s.txt &&
           awk 'FNR == NR { if (/^TRACE [0-9]+:/) { t = \$2; sub(\":\", \"\", t); seen[t] = 1 }; if (/^SITES BEGIN/) nextfile; next }
                { if (!(\$8 in seen)) bad = 1 } END { exit bad }' s.txt rows.txt"
# Sums over all rows of one class (a class can be allocated at several sites).
sum() { awk -v c="$1" -v f="$2" '$9 == c { s += $f } END { print s + 0 }' rows.txt; }
# The row whose trace's top frames name these methods.
site_of() {  # site_of CLASS METHOD: alloc objs of CLASS at traces containing METHOD
  awk -v c="$1" -v m="$2" '
    /^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
    /^\t/ { if (index($0, m)) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 == c && ($8 in has) { s += $7 } END { print s + 0 }' s.txt
}
check "12345 Foo allocated by new in makeFoos" test "$(site_of 'SitesKnown$Foo' SitesKnown.makeFoos)" -eq 12345
check "6173 of them live (the even ones kept)" test "$(awk '$9 == "SitesKnown$Foo" && $7 == 12345 { print $5 }' rows.txt)" -eq 6173
check "300 Foo from Constructor.newInstance" test "$(( $(sum 'SitesKnown$Foo' 7) - 12345 ))" -eq 300
# A MethodHandle's construction (JDK 18+ reflection, JDK 24+ lambdas) is counted by
# its constructor, at the code that asked for it, not where the VM made the object.
made_by_vm() {  # the SitesKnown objects counted at a trace with Unsafe.allocateInstance on top
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); getline f; top[tr] = f; next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $9 ~ /^SitesKnown/ && top[$8] ~ /Unsafe\.allocateInstance/ { s += $7 } END { print s + 0 }' s.txt
}
check "reflective constructions and lambdas counted by their constructor ($(made_by_vm) at allocateInstance)" \
  bash -c "[[ $(made_by_vm) -eq 0 && \$(awk '/^TRACE [0-9]+:/ { getline f; if (f ~ /SitesKnown\\\$Foo\.<init>/) n++ } END { print n + 0 }' s.txt) -ge 2 ]]"
check "777 int[][] from new int[3][4], 100 live" bash -c "[[ $(site_of 'int[][]' SitesKnown.makeArrays) -eq 777 && \$(awk '\$9 == \"int[][]\" && \$7 == 777 { print \$5 }' rows.txt) -eq 100 ]]"
check "2331 int[] (3 per int[3][4]), 300 live" bash -c "[[ $(site_of 'int[]' SitesKnown.makeArrays) -eq 2331 && \$(awk '\$9 == \"int[]\" && \$7 == 2331 { print \$5 }' rows.txt) -eq 300 ]]"
check "500 Bar from clone()" test "$(site_of 'SitesKnown$Bar' SitesKnown.makeClones)" -eq 501
check "200 long[] from Array.newInstance" test "$(site_of 'long[]' SitesKnown.makeReflective)" -eq 200
check "10 Heavy by reflection, each counted once though its constructor made 1000 Part and a clone" \
  bash -c "[[ $(sum 'SitesKnown$Heavy' 7) -eq 10 && $(sum 'SitesKnown$Part' 7) -eq 10000 && $(sum 'SitesKnown$Heavy' 5) -eq 10 ]]"
check "650 Qux from JNI AllocObject + NewObject, counted once each" test "$(sum 'SitesKnown$Qux' 7)" -eq 650
check "16 threads x 1000 Baz: no count lost" test "$(sum 'SitesKnown$Baz' 7)" -eq 16000
check "live never exceeds allocated" bash -c "awk '\$4 > \$6 || \$5 > \$7 { bad = 1 } END { exit bad }' rows.txt"

# The fast stack walk (AsyncGetCallTrace) must find the very frames GetStackTrace finds:
# the same program with JVMTI stacks only gives the same sites, traces and counts.
# (Sites of the 16 racing threads and of the JDK's own start-up are left out.)
# Live counts are left out: whether main's locals still hold its objects at the exit's
# dump depends on whether main was compiled by then.
sites_by_frames() {  # one line per site: class, allocated, then its frames (hidden classes' addresses left out)
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && fr[$8] ~ /SitesKnown\.(make|main)/ && fr[$8] !~ /worker/ {
         line = $9 " " $7 " " fr[$8]; gsub(/0x[0-9a-f]+/, "", line); print line }' "$1" | sort
}
sites_by_frames s.txt >fast.txt
HPROF_STACK_STATS=1 HPROF_JVMTI_STACKS=1 run_java -Xverify:all "$(agent heap=sites,cutoff=0,file=slow.txt)" SitesKnown "$WORK/libsitesjni.so"
check "the fast walk took the stacks ($(walks fast s.out) fast, $(walks jvmti s.out) by GetStackTrace); HPROF_JVMTI_STACKS=1 turns it off" \
  bash -c "[[ \$(walks fast s.out) -gt 16000 && \$(walks fast out.txt) -eq 0 && \$(walks jvmti out.txt) -gt 16000 ]]"
sites_by_frames slow.txt >slow.txt.sites
check "fast stack walk: the same $(wc -l <fast.txt) sites as with GetStackTrace" bash -c "[[ \$(wc -l <fast.txt) -ge 8 ]] && diff fast.txt slow.txt.sites"

# Virtual threads (JDK 21+): the fast walk cannot follow a virtual thread's frozen
# frames, so those stacks must come out exactly as GetStackTrace gives them.
vt_sites() {  # Item sites of FILE: allocated count, then the frames (hidden classes' addresses left out)
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { f = substr($0, 2); sub(/\(.*/, "", f); gsub(/0x[0-9a-f]+/, "", f); fr[tr] = fr[tr] "|" f; next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $9 == "SitesVirtual$Item" { n[fr[$8]] += $7 } END { for (k in n) print n[k], k }' "$1" | sort
}
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,depth=10,cutoff=0,file=v.txt)" SitesVirtual 60 100
cp out.txt v.out
check "virtual threads: same output" bash -c "[[ $RC -eq 0 ]] && grep -qx 'items 6000' out.txt"
vt_sites v.txt >vfast.txt
HPROF_JVMTI_STACKS=1 run_java -Xverify:all "$(agent heap=sites,depth=10,cutoff=0,file=v2.txt)" SitesVirtual 60 100
vt_sites v2.txt >vslow.txt
check "virtual threads: 6000 Item counted, at the same traces as with GetStackTrace" \
  bash -c "[[ \$(awk '{ s += \$1 } END { print s }' vfast.txt) -eq 6000 ]] && diff vfast.txt vslow.txt"
check "virtual threads: stacks that left a virtual thread's frames fell back to GetStackTrace ($(walks jvmti v.out))" \
  bash -c "grep -q '^SITES END' v.txt && { ! grep -q 'java.lang.VirtualThread' v.txt || [[ \$(walks jvmti v.out) -gt 0 ]]; }"
check "virtual threads: no trace runs from make() into a carrier's frames" \
  bash -c "grep -q 'SitesVirtual.make' vfast.txt && ! grep -E 'SitesVirtual.make.*(ForkJoin|Continuation.run|enterSpecial)' vfast.txt"

# thread=y: each Item is counted at a trace of the thread that made it: a virtual thread
# (JDK 21+; group VirtualThreads), never its carrier.
run_java -Xverify:all "$(agent heap=sites,depth=10,cutoff=0,thread=y,file=vy.txt)" SitesVirtual 60 100
groups=$(awk '/^THREAD START/ { match($0, /id = [0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5)
    match($0, /group="[^"]*"/); g[id] = substr($0, RSTART + 7, RLENGTH - 8) }
  /^TRACE [0-9]+: \(thread=/ { t = $2; sub(/:/, "", t); th = $3; gsub(/[^0-9]/, "", th); of[t] = th }
  /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
  i && $9 == "SitesVirtual$Item" { n[g[of[$8]]] += $7 } END { for (k in n) print k "=" n[k] }' vy.txt | sort | tr '\n' ' ')
want=main; grep -qx 'virtual=true' out.txt && want=VirtualThreads
check "virtual threads, thread=y: the 6000 Items are counted at their own threads' traces ($groups)" \
  bash -c "[[ $RC -eq 0 && '$groups' == '$want=6000 ' ]]"

# Binary: HEAP SUMMARY and ALLOC SITES agree with the text output of the same program.
run_java -Xverify:all "$(agent heap=sites,cutoff=0,format=b,file=s.hprof)" SitesKnown "$WORK/libsitesjni.so"
check "binary file validates" hprof_check s.hprof
"$HPROF_DUMP" s.hprof >dump.txt
check "ALLOC SITES: 12345 Foo at one site, 6173 live" has_line dump.txt '^  SITE array=0 class=[0-9]+\(SitesKnown\$Foo\) trace=[0-9]+ live_bytes=[0-9]+ live_objs=6173 alloc_bytes=[0-9]+ alloc_objs=12345$'
check "ALLOC SITES: int[][] marked as an array of objects, 777 allocated" has_line dump.txt '^  SITE array=2 class=[0-9]+\(int\[\]\[\]\) .*alloc_objs=777$'
check "ALLOC SITES: int[] marked as an int array (10)" has_line dump.txt '^  SITE array=10 class=[0-9]+\(int\[\]\) .*alloc_objs=2331$'
check "HEAP SUMMARY written" has_line dump.txt '^HEAP_SUMMARY live_bytes=[0-9]+ live_objs=[0-9]+ alloc_bytes=[0-9]+ alloc_objs=[0-9]+'

# The runs that count traces found by code sites compile in the foreground (-Xbatch): how
# many allocations run interpreted before their methods are compiled (and are walked)
# then depends on invocation counts only, not on how busy the machine's CPUs are.
BATCH=-Xbatch

# Hot compiled code: most traces come from the return address into the compiled code
# (the JIT's inlining records), not from a walk. Counts and frames must be the same as
# with a walk on every allocation (HPROF_CODE_SITES=0).
deep_sites() {  # the four SitesDeep sites: class, allocated, frames
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && fr[$8] ~ /SitesDeep\.make/ { print $9, $7, fr[$8] }' "$1" | sort
}
HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH "$(agent heap=sites,cutoff=0,file=deep.txt)" SitesDeep
cp out.txt deep.out
deep_sites deep.txt >deep_on.txt
check "compiled code: same output and status" bash -c "[[ $RC -eq 0 ]] && grep -qx done deep.out"
check "compiled code: Node and Leaf, 500000 each from a1 and a2 ($(awk '{ printf "%s ", $2 }' deep_on.txt))" \
  bash -c "[[ \$(awk '\$2 == 500000 && \$3 ~ /SitesDeep\\.a[12]/' deep_on.txt | wc -l) -eq 4 && \$(wc -l <deep_on.txt) -eq 4 ]]"
check "compiled code: traces found by the return address ($(walks code deep.out) of 2000000)" \
  test "$(walks code deep.out)" -gt 100000
HPROF_STACK_STATS=1 HPROF_CODE_SITES=0 run_java -Xverify:all "$(agent heap=sites,cutoff=0,file=deep0.txt)" SitesDeep
cp out.txt deep0.out
deep_sites deep0.txt >deep_off.txt
check "compiled code: the same sites, counts and frames with a walk on every allocation (HPROF_CODE_SITES=0)" \
  bash -c "[[ -s deep_off.txt ]] && cmp -s deep_on.txt deep_off.txt && [[ $(walks code deep0.out) -eq 0 ]]"
# Sites where the JIT inlined fewer frames than the depth: the return address into the
# compiled caller names the rest of the trace.
NOINLINE="-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,SitesCaller::make -XX:CompileCommand=dontinline,SitesCaller::pair -XX:CompileCommand=dontinline,SitesCaller::a1 -XX:CompileCommand=dontinline,SitesCaller::a2"
caller_sites() {  # the SitesCaller sites: class, allocated, frames
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && fr[$8] ~ /SitesCaller\.(make|pair)/ { print $9, $7, fr[$8] }' "$1" | sort
}
# pairs FILE: traces named by a site and its caller (the HPROF_STACK_STATS line)
pairs() { sed -n 's/^HPROF: heap=sites code sites: \([0-9]*\) of those with their caller.s$/\1/p' "$1" | tail -1; }
HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH $NOINLINE "$(agent heap=sites,depth=3,cutoff=0,file=caller.txt)" SitesCaller
cp out.txt caller.out
caller_sites caller.txt >caller_on.txt
check "callers' code: Node 500000 from a1 and from pair, Pair 500000 from a2 ($(awk '{ printf "%s ", $2 }' caller_on.txt))" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx done caller.out && [[ \$(wc -l <caller_on.txt) -eq 3 ]] &&
           grep -q '^SitesCaller\$Node 500000 |SitesCaller\$Node.<init>(SitesCaller.java:[0-9]*)|SitesCaller.make(SitesCaller.java:[0-9]*)|SitesCaller.a1(' caller_on.txt &&
           grep -q '^SitesCaller\$Node 500000 |SitesCaller\$Node.<init>(SitesCaller.java:[0-9]*)|SitesCaller.make(SitesCaller.java:[0-9]*)|SitesCaller.pair(' caller_on.txt &&
           grep -q '^SitesCaller\$Pair 500000 |SitesCaller\$Pair.<init>(SitesCaller.java:[0-9]*)|SitesCaller.pair(SitesCaller.java:[0-9]*)|SitesCaller.a2(' caller_on.txt"
check "callers' code: traces found by two return addresses ($(pairs caller.out) of 1500000)" \
  test "$(pairs caller.out)" -gt 100000
HPROF_STACK_STATS=1 HPROF_CODE_SITES=0 run_java -Xverify:all $NOINLINE "$(agent heap=sites,depth=3,cutoff=0,file=caller0.txt)" SitesCaller
caller_sites caller0.txt >caller_off.txt
check "callers' code: the same sites, counts and frames with a walk on every allocation" \
  bash -c "[[ -s caller_off.txt ]] && cmp -s caller_on.txt caller_off.txt"

# Deeper traces than the allocating method and its caller inlined: the return addresses
# of the compiled callers further up name the rest (three sites for each of the three
# sites at depth=4; four for Node from pair at depth=5, the others reach main's end).
for d in 4 5; do
  HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH $NOINLINE "$(agent heap=sites,depth=$d,cutoff=0,file=chain.txt)" SitesCaller
  cp out.txt chain.out
  caller_sites chain.txt >chain_on.txt
  HPROF_CODE_SITES=0 run_java -Xverify:all $NOINLINE "$(agent heap=sites,depth=$d,cutoff=0,file=chain0.txt)" SitesCaller
  caller_sites chain0.txt >chain_off.txt
  want=$(( d == 4 ? 1000000 : 200000 ))
  check "callers' code, depth=$d: Node 1000000 and Pair 500000 ($(awk '{ n[$1] += $2 } END { for (c in n) printf "%s %s ", c, n[c] }' chain_on.txt))" \
    bash -c "[[ \$(awk '\$1 == \"SitesCaller\$Node\" { n += \$2 } END { print n }' chain_on.txt) == 1000000 &&
               \$(awk '\$1 == \"SitesCaller\$Pair\" { n += \$2 } END { print n }' chain_on.txt) == 500000 ]]"
  check "callers' code, depth=$d: traces found by the return addresses of $(( d - 1 )) compiled methods ($(pairs chain.out) of 1500000)" \
    test "$(pairs chain.out)" -gt "$want"
  check "callers' code, depth=$d: the same sites, counts and frames with a walk on every allocation" \
    bash -c "[[ -s chain_off.txt ]] && cmp -s chain_on.txt chain_off.txt"
done

# Compiled code called by the interpreter (a loop compiled on stack replacement, its
# callers run once): the chain of return addresses ends with the interpreted callers,
# named by the Method* and bytecode pointer in their frames (checked once against a walk).
interp_sites() {  # the SitesInterp sites: class, allocated, frames
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && fr[$8] ~ /SitesInterp\.loop/ { print $9, $7, fr[$8] }' "$1" | sort
}
for d in 3 4; do
  HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH "$(agent heap=sites,depth=$d,cutoff=0,file=interp.txt)" SitesInterp
  cp out.txt interp.out
  interp_sites interp.txt >interp_on.txt
  HPROF_CODE_SITES=0 run_java -Xverify:all "$(agent heap=sites,depth=$d,cutoff=0,file=interp0.txt)" SitesInterp
  interp_sites interp0.txt >interp_off.txt
  check "interpreted callers, depth=$d: four sites of 400000 Nodes, from first and second ($(awk '{ printf "%s ", $2 }' interp_on.txt))" \
    bash -c "[[ \$(grep -c '^SitesInterp\$Node 400000 |.*|SitesInterp.loop(SitesInterp.java:[0-9]*)|SitesInterp.\(first\|second\)(' interp_on.txt) -eq 4 &&
               \$(awk '{ print \$3 }' interp_on.txt | sort -u | wc -l) -eq 4 ]] && { [[ $d == 3 ]] || [[ \$(grep -c '|SitesInterp.main(' interp_on.txt) -eq 4 ]]; }"
  check "interpreted callers, depth=$d: traces found by return addresses and interpreted frames ($(pairs interp.out) of 1600000)" \
    test "$(pairs interp.out)" -gt 1000000
  check "interpreted callers, depth=$d: the same sites, counts and frames with a walk on every allocation" \
    bash -c "[[ -s interp_off.txt ]] && cmp -s interp_on.txt interp_off.txt"
done

# Arrays from compiled code: the return address of the call after the array's bytecode
# names the trace (with its caller's when the allocating method was not inlined).
array_sites() {  # the SitesArrays sites: class, allocated, frames
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && fr[$8] ~ /SitesArrays\.make/ { print $9, $7, fr[$8] }' "$1" | sort
}
# per_class FILE: allocated per class over its SitesArrays sites, and the callers seen
per_class() { awk '{ n[$1] += $2; if ($3 ~ /SitesArrays\.a1/) a1 = 1; if ($3 ~ /SitesArrays\.a2/) a2 = 1 }
  END { for (c in n) print c, n[c]; print "callers", a1 + a2 }' "$1" | sort | tr '\n' ' '; }
want_arrays='callers 2 int[] 1500000 int[][] 500000 java.lang.String[] 500000 long[] 500000 '
for inl in inlined not-inlined; do
  opts=(); [[ $inl == not-inlined ]] && opts=(-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,SitesArrays::make)
  HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH "${opts[@]}" "$(agent heap=sites,depth=3,cutoff=0,file=arr.txt)" SitesArrays
  cp out.txt arr.out
  array_sites arr.txt >arr_on.txt
  HPROF_CODE_SITES=0 run_java -Xverify:all "${opts[@]}" "$(agent heap=sites,depth=3,cutoff=0,file=arr0.txt)" SitesArrays
  array_sites arr0.txt >arr_off.txt
  check "arrays, make() $inl: every array counted, at both callers ($(per_class arr_on.txt))" \
    bash -c "[[ $RC -eq 0 ]] && grep -qx done arr.out && [[ '$(per_class arr_on.txt)' == '$want_arrays' ]]"
  if [[ $inl == inlined ]]; then
    check "arrays, make() inlined: traces found by the return address ($(walks code arr.out) of 2000000)" \
      test "$(walks code arr.out)" -gt 500000
  else
    check "arrays, make() not inlined: traces found by two return addresses ($(pairs arr.out) of 2000000)" \
      test "$(pairs arr.out)" -gt 500000
  fi
  check "arrays, make() $inl: the same sites, counts and frames with a walk on every allocation" \
    bash -c "[[ -s arr_off.txt ]] && cmp -s arr_on.txt arr_off.txt"
done

# Copies made by clone() in compiled code, which the VM does not report: every one counted
# once, at the trace of the call, whether the VM or the hook after the call saw it.
run_java -Xverify:all "$(agent heap=sites,depth=3,cutoff=0,file=clone.txt)" SitesClone
cp out.txt clone.out
clones() {  # clones CLASS METHOD: allocated CLASS at traces whose frames name METHOD
  awk -v c="$1" -v m="$2" '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
    /^\t/ { if (index($0, m)) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 == c && ($8 in has) { s += $7 } END { print s + 0 }' clone.txt
}
check "clone() in compiled code: 300000 each of Bar, int[], Plain, DeepSub and long[], one site each ($(clones 'SitesClone$Bar' SitesClone.bars) $(clones 'int[]' SitesClone.ints) $(clones 'SitesClone$Plain' SitesClone.plains) $(clones 'SitesClone$DeepSub' 'SitesClone$Deep.clone') $(clones 'long[]' 'SitesClone$Deep.clone'))" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx done clone.out && [[ '$(clones 'SitesClone$Bar' SitesClone.bars) $(clones 'int[]' SitesClone.ints) $(clones 'SitesClone$Plain' SitesClone.plains) $(clones 'SitesClone$DeepSub' 'SitesClone$Deep.clone') $(clones 'long[]' 'SitesClone$Deep.clone')' == '300000 300000 300000 300000 300000' ]] &&
           [[ \$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && \$7 == 300000' clone.txt | wc -l) -eq 5 ]]"
clone_tops() {  # the top frame of each site of 300000 copies
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); getline f; top[tr] = f; next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $7 == 300000 { print top[$8] }' clone.txt | sort | uniq -c | awk '{ $1 = $1; print }'
}
check "clone() in compiled code: each copy's trace has Object.clone on top ($(clone_tops))" \
  test "$(clone_tops)" == "5 java.lang.Object.clone(Object.java:Native method)"

# What C2 would allocate without running the counting bytecode (string concatenation,
# dropped boxes, allocating intrinsics): the agent turns those optimizations off.
run_java -Xverify:all "$(agent heap=sites,depth=16,cutoff=0,file=jit.txt)" SitesJit
cp out.txt jit.out
jit() {  # jit CLASS METHOD: allocated CLASS at the loop's traces (not a bootstrap's few) under SitesJit.METHOD(
  awk -v c="$1" -v m="SitesJit.$2(" '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
    /^\t/ { if (index($0, m)) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 == c && ($8 in has) && $7 >= 1000 { s += $7 } END { print s + 0 }' jit.txt
}
JIT_COUNTS="$(jit java.lang.StringBuilder sb) $(jit java.lang.String sb) $(jit java.lang.Integer box) $(jit 'long[]' reflect) $(jit 'java.lang.String[]' copy) $(jit java.lang.String concat)"
check "compiled code: StringBuilder and String in sb, Integer in box, long[] in reflect, String[] in copy, String in concat: 200000 each ($JIT_COUNTS)" \
  bash -c "[[ $RC -eq 0 ]] && grep -qx 'done true' jit.out && [[ '$JIT_COUNTS' == '200000 200000 200000 200000 200000 200000' ]]"

# Compiled code thrown away and compiled again meanwhile: no count moves between sites.
HPROF_STACK_STATS=1 run_java -Xverify:all $BATCH "$(agent heap=sites,cutoff=0,file=deopt.txt)" SitesDeopt
cp out.txt deopt.out
makers() { awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
  /^\t/ { if (index($0, "SitesDeopt$M1.make")) m[tr] = 1; else if (index($0, "SitesDeopt$M2.make")) m[tr] = 2; next }
  /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
  i && $9 == "SitesDeopt$Node" && ($8 in m) { s[m[$8]] += $7 } END { print s[1] + 0, s[2] + 0 }' deopt.txt; }
check "deoptimized code: Node 750000 at M1.make and 750000 at M2.make ($(makers); $(walks code deopt.out) by the code site)" \
  bash -c "[[ $RC -eq 0 && '$(makers)' == '750000 750000' && $(walks code deopt.out) -gt 100000 ]]"

# Many traces in turn from one thread (1728, each with 100 allocations): the agent's
# per-thread caches of traces and sites grow meanwhile, and no count is lost or moved.
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,cutoff=0,file=w.txt)" SitesWide
wide() {  # wide CLASS: "rows allocs min max" of the rows of CLASS at traces through SitesWide.l3
  awk -v c="$1" '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); next }
    /^\t/ { if (index($0, "SitesWide.l3")) has[tr] = 1; next }
    /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
    i && $9 == c && ($8 in has) { n++; s += $7; if (!min || $7 < min) min = $7; if ($7 > max) max = $7 }
    END { print n + 0, s + 0, min + 0, max + 0 }' w.txt
}
check "many traces: same output and status" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
slots=$(sed -n 's/^HPROF: heap=sites caches: up to \([0-9]*\) slots per thread$/\1/p' out.txt | tail -1)
check "many traces: the thread's caches grew past their first 512 slots ($slots)" test "${slots:-0}" -ge 1024
for c in 'int[]:288 28800' 'long[]:288 28800' 'java.lang.String[]:288 28800' 'SitesWide$Cell:864 86400'; do
  cls=${c%%:*}; want=${c#*:}
  got=$(wide "$cls")
  check "many traces: $cls at ${want% *} sites, 100 each (${got})" test "$got" = "$want 100 100"
done

# alloc_sample=<bytes>: no instrumentation, estimates labelled as such, near the truth.
run_java "$(agent heap=sites,alloc_sample=65536,cutoff=0,file=e.txt)" SitesMany
check "alloc_sample: same output" bash -c "[[ $RC -eq 0 ]] && grep -qx 'kept 500000' out.txt"
check "alloc_sample: the SITES header says the numbers are estimates, and how each is made" \
  has_line e.txt "^SITES BEGIN \\(ordered by live bytes, estimated from allocation samples every 65536 bytes; a sample of n bytes counts as 65536/n objects, at least 1, in alloc'ed and, while it lives, in live\\) "
est=$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $9 == "SitesMany$Cell" { s += $7 } END { print s + 0 }' e.txt)
live=$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $9 == "SitesMany$Cell" { s += $5 } END { print s + 0 }' e.txt)
check "alloc_sample: 2,000,000 Cells estimated within 35% ($est)" bash -c "[[ $est -ge 1300000 && $est -le 2700000 ]]"
check "alloc_sample: 500,000 live Cells estimated within 50% ($live)" bash -c "[[ $live -ge 250000 && $live -le 750000 ]]"
# alloc_sample, three dumps (two SIGQUITs, then exit): each walk puts the tags back, so
# every dump estimates the same live Many objects.
set +e
"$JAVA" -Xcheck:jni "$(agent heap=sites,alloc_sample=4096,file=q.txt)" -cp "$TEST_CLASSES" HeapDumpSites many wait >q.out 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q ready q.out 2>/dev/null && break; sleep 0.1; done
for n in 1 2; do
  kill -QUIT $pid
  for _ in $(seq 600); do [[ $(grep -c '^SITES END' q.txt 2>/dev/null) -ge $n ]] && break; sleep 0.1; done
done
kill $pid
wait $pid
cat q.out >>"$WORK/all-runs.txt"
set -e
awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 == "HeapDumpSites$Many" { print $5 }' q.txt >q_live.txt
check "alloc_sample: three dumps, each with the same live Many estimate ($(tr '\n' ' ' <q_live.txt))" \
  bash -c "[[ \$(wc -l <q_live.txt) -eq 3 && \$(sort -u q_live.txt | wc -l) -eq 1 && \$(head -1 q_live.txt) -ge 50000 ]]"
run_java -Xlog:class+load=info "$(agent heap=sites,alloc_sample=65536,file=e2.txt)" HotMethod 100
check "alloc_sample: no bytecode instrumentation" bash -c "[[ $RC -eq 0 ]] && ! grep -q 'hprof.Tracker' out.txt"

# Lambdas: each capturing lambda is counted once, at its own constructor; from JDK 24 on
# the VM reports each one too, and that report is told from its class alone, with no
# stack walk.
HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,cutoff=0,file=lam.txt)" SitesLambdas
lambdas=$(awk '/^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 } i && $9 ~ /^SitesLambdas\$\$Lambda/ { s += $7 } END { print s + 0 }' lam.txt)
check "lambdas: 100000 counted, once each ($lambdas)" bash -c "[[ $RC -eq 0 ]] && grep -qx 'sum 5000050000' out.txt && [[ $lambdas -eq 100000 ]]"
lam_walks=$(( $(walks fast out.txt) + $(walks jvmti out.txt) ))
if [[ $JDK_FEATURE -ge 24 ]]; then
  check "lambdas: the VM's 100000 reports need no stack walk ($lam_walks walks in all)" test "$lam_walks" -lt 20000
else
  skip "lambdas: the VM's reports need no stack walk" "JDK $JDK_FEATURE makes capturing lambdas with new, reported by no VM event"
fi
jni_clean
