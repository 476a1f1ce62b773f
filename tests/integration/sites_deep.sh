#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Exact heap=sites deeper than one code site names (view= takes 64 frames): the trace of
# an allocation from compiled code is found by the chain of frames read from the stack
# (sources/alloc/alloc_deep.c), through recursion, interpreted callers, the VM's call of
# a static initializer, reflection (on JDK 17 a native method that calls back into
# Java) and a second thread. Every site, count and frame must be what a walk of every
# allocation finds (HPROF_DEEP_CHAINS=0), and most allocations must be found by chains.
source "$(dirname "$0")/../lib/common.sh"

# ours FILE: "class objs bytes frames" of each site under SitesDeepChain's own methods,
# hidden classes' addresses left out (they differ between runs).
ours() {
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && ($9 == "SitesDeepChain$Node" || $9 == "int[]") &&
         fr[$8] ~ /SitesDeepChain\.(leaf|init)|SitesDeepChain\$Init/ { print $9, $7, $6, fr[$8] }' "$1" |
    sed 's/0x[0-9a-f]*/0x/g' | sort
}
# total CLASS FILE: objects of CLASS over the sites of `ours`
total() { awk -v c="$1" '$1 == c { n += $2 } END { print n + 0 }' "$2"; }
# deep WHICH FILE: traces found by deep chains (WHICH 1), of them across a call into Java (2)
deep() { sed -n 's/^HPROF: heap=sites deep chains: \([0-9]*\) traces, \([0-9]*\) of them across a call into Java$/\1 \2/p' "$2" | tail -1 | awk -v k="$1" '{ print $k + 0 }'; }
# through METHOD FILE: objects at sites whose frames name METHOD
through() { awk -v m="$1" 'index($0, m) { n += $2 } END { print n + 0 }' "$2"; }

for d in 16 32; do
  HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,depth=$d,cutoff=0,file=on.txt)" SitesDeepChain
  cp out.txt on.out
  ours on.txt >on_sites.txt
  HPROF_STACK_STATS=1 HPROF_DEEP_CHAINS=0 run_java -Xverify:all "$(agent heap=sites,depth=$d,cutoff=0,file=off.txt)" SitesDeepChain
  cp out.txt off.out
  ours off.txt >off_sites.txt
  check "depth=$d: same output and status" bash -c "[[ $RC -eq 0 ]] && grep -qx done on.out && grep -qx done off.out"
  check "depth=$d: 2804000 Nodes (500000 in the static initializer) and 2304000 int[] ($(total 'SitesDeepChain$Node' on_sites.txt) $(total 'int[]' on_sites.txt))" \
    bash -c "[[ $(total 'SitesDeepChain$Node' on_sites.txt) -eq 2804000 && $(total 'int[]' on_sites.txt) -eq 2304000 &&
               $(through 'SitesDeepChain$Init.<clinit>' on_sites.txt) -eq 500000 ]]"
  check "depth=$d: the same sites, counts and frames as a walk of every allocation ($(wc -l <on_sites.txt) sites)" \
    bash -c "[[ -s off_sites.txt ]] && cmp -s on_sites.txt off_sites.txt && [[ $(deep 1 off.out) -eq 0 ]]"
  check "depth=$d: most traces found by their chain of frames ($(deep 1 on.out) of 5108000)" \
    test "$(deep 1 on.out)" -gt 4000000
  # Across the VM's call of the static initializer, and (JDK 17) of reflection's native
  # method: most of those allocations.
  across=$(( 400000 + $(through NativeMethodAccessorImpl.invoke0 on_sites.txt) * 8 / 10 ))
  check "depth=$d: across calls into Java ($(deep 2 on.out); at least $across)" \
    test "$(deep 2 on.out)" -ge "$across"
done
# A class unloaded under learnt chains: DeepPayloadA's interpreted frames are in the
# chains of 200,000 allocations; then it is unloaded and DeepPayloadB, the same code,
# makes 200,000 more, where its methods may lie in A's memory (a Method* of A's read
# again). Each must be counted under its own frames, as a walk finds them. (On JDK 17
# and 25 the metaspace did not give B A's memory in our tries, so these checks hold the
# counts across an unload without showing a stale chain.) Then DeepPayloadC makes
# 200,000 more while 40 classes are loaded and kept: with jvmstat's count of unloaded
# classes its chains stay good; counting classes prepared (HPROF_UNLOAD_EPOCH=0, as
# without jvmstat) learns them again after each.
# payload FILE: objects of SitesDeepUnload$Node under each payload's frames, and the
# sites with frames (hidden classes' addresses out).
payload() {
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && $9 == "SitesDeepUnload$Node" && fr[$8] ~ /DeepPayload/ { print $7, fr[$8] }' "$1" |
    sed 's/0x[0-9a-f]*/0x/g' | sort
}
under() { awk -v p="$1" 'index($0, p) { n += $1 } END { print n + 0 }' "$2"; }
# again FILE: chains learnt again, as HPROF_STACK_STATS says
again() { sed -n 's/^HPROF: heap=sites deep chains learnt: .*, \([0-9]*\) again .*/\1/p' "$1" | tail -1; }
for m in on off prep; do
  chains=1 epoch=1; [[ $m == off ]] && chains=0; [[ $m == prep ]] && epoch=0
  HPROF_STACK_STATS=1 HPROF_DEEP_CHAINS=$chains HPROF_UNLOAD_EPOCH=$epoch run_java -Xverify:all -XX:CompileCommand=quiet \
    '-XX:CompileCommand=exclude,DeepPayload*.*' "-Xlog:class+unload=info:file=$WORK/unload-$m.log" \
    "$(agent heap=sites,depth=16,cutoff=0,file=u-$m.txt)" SitesDeepUnload
  cp out.txt u-$m.out
  payload u-$m.txt >u-$m-sites.txt
done
check "unload: both runs end as without the agent" bash -c "[[ $RC -eq 0 ]] && grep -q '^done' u-on.out && grep -q '^done' u-off.out"
check "unload: DeepPayloadA was unloaded before DeepPayloadB ran" grep -q 'DeepPayloadA' unload-on.log
check "unload: 200000 Nodes under each payload's frames ($(under DeepPayloadA.down u-on-sites.txt) $(under DeepPayloadB.down u-on-sites.txt) $(under DeepPayloadC.down u-on-sites.txt))" \
  bash -c "[[ $(under DeepPayloadA.down u-on-sites.txt) -eq 200000 && $(under DeepPayloadB.down u-on-sites.txt) -eq 200000 &&
             $(under DeepPayloadC.down u-on-sites.txt) -eq 200000 ]]"
check "unload: the same sites, counts and frames as a walk of every allocation ($(wc -l <u-on-sites.txt) sites)" \
  bash -c "[[ -s u-off-sites.txt ]] && cmp -s u-on-sites.txt u-off-sites.txt"
check "unload: most found by their chain of frames ($(deep 1 u-on.out) of 800000, the 200000 before the payloads with them)" \
  test "$(deep 1 u-on.out)" -gt 700000
check "unload: classes loaded, none unloaded, outdate no chain: learnt again $(again u-on.out) times, 40 and more fewer than by classes prepared ($(again u-prep.out))" \
  bash -c "[[ -n '$(again u-on.out)' && -n '$(again u-prep.out)' ]] && (( $(again u-prep.out) >= $(again u-on.out) + 40 ))"
# Frames interpreted, then compiled: SitesDeepNamed makes 64 traces with fan() run by
# the interpreter, then, once the JIT compiled fan, the same 64 again. A chain's
# interpreted frames are named by the walk that confirmed it, so the chains of the
# second round (fan's frames now compiled) are the first round's: none is learnt anew
# (without the names, each of the 64 was learnt and walked again). The SIGQUIT between
# the rounds asks for a dump, whose HPROF_STACK_STATS lines count what was learnt so far.
# named NAME [ENV...]: a run, output NAME.out, profile NAME.txt.
named() {
  local name=$1; shift
  env HPROF_STACK_STATS=1 "$@" timeout -k 10 300 "$JAVA" -Xcheck:jni -Xbatch -cp "$TEST_CLASSES" \
    "$(agent heap=sites,depth=32,cutoff=0,file=$name.txt)" SitesDeepNamed "$name.txt" >"$name.out" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q ready "$name.out" 2>/dev/null && break; sleep 0.1; done
  kill -QUIT $pid 2>/dev/null
  wait $pid
}
# learnt FILE: chains learnt at each dump, one line each
learnt() { sed -n 's/^HPROF: heap=sites deep chains learnt: \([0-9]*\) .*/\1/p' "$1"; }
# nodes FILE: "objects frames" of each site of SitesDeepNamed$Node, sorted
nodes() {
  awk '/^TRACE [0-9]+:/ { tr = $2; sub(":", "", tr); fr[tr] = ""; next }
       /^\t/ { fr[tr] = fr[tr] "|" substr($0, 2); next }
       /^SITES BEGIN/ { i = 1; delete out; next } /^SITES END/ { i = 0 }
       i && $1 ~ /^[0-9]+$/ && $9 == "SitesDeepNamed$Node" { out[$8] = $7 " " fr[$8] }
       END { for (k in out) print out[k] }' "$1" | sort
}
named named-on
named named-off HPROF_DEEP_CHAINS=0
nodes named-on.txt >named-on-sites.txt
nodes named-off.txt >named-off-sites.txt
# The first dump's count (the SIGQUIT's) and the last (at exit); chains found by names.
first=$(learnt named-on.out | head -1) last=$(learnt named-on.out | tail -1)
by_names=$(sed -n "s/^HPROF: heap=sites deep chains learnt: .*, \([0-9]*\) found by their frames' names, .*/\1/p" named-on.out | tail -1)
check "named: both runs end as without the agent, after the SIGQUIT's dump" \
  bash -c "grep -qx done named-on.out && grep -qx done named-off.out && [[ \$(grep -c '^Dumping allocation sites' named-on.out) -ge 2 ]]"
check "named: 21,024 Nodes at 65 sites, the same as a walk of every allocation finds ($(wc -l <named-on-sites.txt) sites)" \
  bash -c "[[ \$(awk '{ n += \$1 } END { print n }' named-on-sites.txt) -eq 21024 && \$(wc -l <named-on-sites.txt) -eq 65 ]] &&
           cmp -s named-on-sites.txt named-off-sites.txt"
check "named: the second round learnt no chain, the first round's named its frames (learnt ${first:-?} then ${last:-?}; ${by_names:-?} found by names)" \
  bash -c "[[ -n '$first' && -n '$last' && -n '$by_names' ]] && (( $first >= 64 && $last <= $first + 4 && $by_names >= 64 ))"
jni_clean
