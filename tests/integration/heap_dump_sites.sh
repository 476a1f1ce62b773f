#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=dump with heap=sites (heap=all): each object the allocation tracker counted carries
# its site's trace in the heap dump (text trace=, binary stack trace serial), exact and
# sampled; the site counts survive the dump; heap=dump alone keeps the empty trace.
source "$(dirname "$0")/../lib/common.sh"

MARKED='HeapDumpSites$Marked'
M_RE='HeapDumpSites\$Marked'                 # the same, in a regular expression
# field VALUE-NAME LINE: the value of NAME= in a line of hprof-dump output
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
# callers FRAMES: the frames as Class.method, the constructors of $MARKED left out
callers() { sed 's/(.*//' | grep -vxF "$MARKED.<init>"; }
# text_site FILE LINE-REGEX [TRACES-FILE]: for each OBJ/ARR line matching, the first frame
# of its trace that is not a constructor of Marked ("-" for the empty trace)
text_site() {
  local t
  for t in $(grep -E "$2" "$1" | sed -n 's/.* trace=\([0-9]*\),.*/\1/p'); do
    if [[ $t == 300000 ]]; then echo -; else trace_frames "${3:-$1}" "$t" | callers | head -1; fi
  done
}
# bin_frames DUMP SERIAL: the frames of TRACE SERIAL as Class.method, top first
bin_frames() {
  awk -v s="$2" '
    /^FRAME / { id = $2; sub("id=", "", id); m = $3; sub("method=", "", m)
                c = $0; sub(/.* class=[0-9]+\(/, "", c); sub(/\).*/, "", c); name[id] = c "." m }
    /^TRACE / && $2 == "serial=" s { fr = $5; sub("frames=", "", fr) }
    END { n = split(fr, a, ","); for (i = 1; i <= n; i++) print name[a[i]] }' "$1"
}
# bin_site DUMP LINE-REGEX: for each heap sub-record matching, what text_site gives
bin_site() {
  local t
  for t in $(grep -E "$2" "$1" | field trace); do
    if [[ $t == 300000 ]]; then echo -; else bin_frames "$1" "$t" | callers | head -1; fi
  done
}
all_make_them() { [[ $(wc -l <"$1") -eq $2 ]] && ! grep -vqxF HeapDumpSites.makeThem "$1"; }

# ---- text, heap=all ----
run_java -Xverify:all "$(agent heap=all,file=s.txt)" HeapDumpSites
check "heap=all text run exits 0" bash -c "[[ $RC -eq 0 ]] && grep -qx ready out.txt"
text_site s.txt "^OBJ .*class=$M_RE@" >marked.txt
check "each of the 3 Marked objects: a trace made in makeThem (under Marked.<init>)" all_make_them marked.txt 3
text_site s.txt "^ARR .*elem type=$M_RE\[\]@" >arr.txt
text_site s.txt '^ARR .*nelems=3, elem type=long\[\]\)' >longs.txt
cat arr.txt longs.txt >arrays.txt
check "the Marked[] and the long[3]: traces whose top frame is makeThem" all_make_them arrays.txt 2
T=$(sed -n "s/^OBJ .* trace=\([0-9]*\), class=$MARKED@.*/\1/p" s.txt | head -1)
check "the TRACE record comes before the heap dump" \
  bash -c "[[ \$(grep -n '^TRACE ${T:-x}:' s.txt | cut -d: -f1) -lt \$(grep -n '^HEAP DUMP BEGIN' s.txt | cut -d: -f1) ]]"
check "objects made before the tracker started keep the empty trace" \
  grep -Eq '^OBJ .*trace=300000, class=java.lang.String@' s.txt
check "SITES after the dump: the 3 Marked live at their site (the tracker's tags put back)" \
  bash -c "awk '/^SITES BEGIN/ { i = 1 } i && \$8 == \"${T:-x}\" && \$9 == \"$MARKED\" && \$5 == 3 { f = 1 } END { exit !f }' s.txt"

# ---- binary, heap=all ----
run_java -Xverify:all "$(agent heap=all,format=b,file=s.hprof)" HeapDumpSites
check "binary file validates (every trace written before a record names it)" hprof_check s.hprof
"$HPROF_DUMP" s.hprof >dump.txt 2>&1 || true
bin_site dump.txt "^  INSTANCE_DUMP .*\($M_RE\)" >bmarked.txt
check "INSTANCE DUMP of each Marked: a trace made in makeThem" all_make_them bmarked.txt 3
bin_site dump.txt "^  OBJ_ARRAY_DUMP .*\($M_RE\[\]\)" >barr.txt
bin_site dump.txt '^  PRIM_ARRAY_DUMP .* n=3 type=long$' >blongs.txt
check "OBJECT ARRAY DUMP and PRIMITIVE ARRAY DUMP: traces whose top frame is makeThem" \
  bash -c "[[ \$(cat barr.txt) == HeapDumpSites.makeThem && \$(grep -cxF HeapDumpSites.makeThem blongs.txt) -eq 1 ]]"

# ---- heap=dump alone: unchanged ----
run_java "$(agent heap=dump,file=d.txt)" HeapDumpSites
check "heap=dump text: every OBJ and ARR has the empty trace" \
  bash -c "[[ $RC -eq 0 ]] && grep -q '^OBJ .*$MARKED@' d.txt && ! grep -E '^(OBJ|ARR) ' d.txt | grep -vq 'trace=300000,'"
run_java "$(agent heap=dump,format=b,file=d.hprof)" HeapDumpSites
"$HPROF_DUMP" d.hprof >ddump.txt 2>&1 || true
check "heap=dump binary: every instance and array has the empty trace" \
  bash -c "grep -q 'INSTANCE_DUMP .*$MARKED' ddump.txt && ! grep -E '^  (INSTANCE|OBJ_ARRAY|PRIM_ARRAY)_DUMP ' ddump.txt | grep -vq ' trace=300000 '"

# ---- a SIGQUIT dump, then the one at exit: the second still knows the sites ----
sigquit_dump q.out "$(agent heap=all,file=q.txt)" HeapDumpSites wait
awk '/^HEAP DUMP BEGIN/ { n++ } { print > ("part" n ".txt") }' q.txt
text_site part2.txt "^OBJ .*class=$M_RE@" q.txt >q2m.txt
check "two dumps" test "$(grep -c '^HEAP DUMP END' q.txt)" -eq 2
check "in the second, the Marked objects still carry makeThem traces" all_make_them q2m.txt 3

# ---- alloc_sample: only the sampled objects have a site ----
run_java "$(agent heap=all,alloc_sample=4096,file=a.txt)" HeapDumpSites many
grep -E '^(OBJ|ARR) ' a.txt | grep -v 'trace=300000,' | sed -n 's/.* trace=\([0-9]*\), .*\(class\|elem type\)=\([^@)]*\).*/\1 \3/p' | sort -u >a_pairs.txt
awk '/^SITES BEGIN/ { i = 1 } i && $1 ~ /^[0-9]+$/ { print $8, $9 }' a.txt | sort -u >a_sites.txt
check "alloc_sample: some Many objects carry their site's trace, made in makeMany" \
  bash -c "t=\$(awk '\$2 == \"HeapDumpSites\$Many\" { print \$1 }' a_pairs.txt | head -1); [[ -n \$t ]] && grep -q 'HeapDumpSites.makeMany' <(awk -v s=\"TRACE \$t:\" 'index(\$0, s) == 1 { i = 1; next } /^[^\t]/ { i = 0 } i' a.txt)"
check "alloc_sample: every object's trace and class is one of the SITES rows" \
  bash -c "[[ -s a_pairs.txt ]] && ! comm -23 a_pairs.txt a_sites.txt | grep -q ."
check "alloc_sample: fewer objects with a site than objects (only the sampled ones)" \
  bash -c "[[ \$(grep -c '^OBJ .*trace=300000, class=HeapDumpSites\$Many@' a.txt) -gt 50000 ]]"
jni_clean
