#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=dump: known objects dumped in both formats; values, roots and references checked
# (binary with the independent reader tests/java/HeapDumpRead.java), SIGQUIT dumps, the
# default heap=all, a full disk.
source "$(dirname "$0")/../lib/common.sh"

gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libhdjni.so" \
  "$HPROF_ROOT/tests/java/native/heapdump_jni.c"
NATIVE=()
[[ $JDK_FEATURE -ge 22 ]] && NATIVE=(--enable-native-access=ALL-UNNAMED)
KNOWN='HeapDumpKnown$Known'

# ---- binary: written from the JDK's own dump (the default), and by the JVMTI walk ----
for DUMPER in jdk jvmti; do
  export HPROF_HEAP_DUMPER=$DUMPER HPROF_HEAP_TIMES=1
  VIA="[$DUMPER] "
  run_java "${NATIVE[@]}" "$(agent heap=dump,format=b,file=k.hprof)" HeapDumpKnown "$WORK/libhdjni.so"
  check "${VIA}binary run exits 0 and says it dumped the heap" bash -c "[[ $RC -eq 0 ]] && grep -q 'Dumping Java heap ... done.' out.txt"
  check "${VIA}heap=dump is honoured without a warning: no HPROF WARNING or ERROR" \
    bash -c "grep -q 'Dumping Java heap' out.txt && ! grep -Eq '^HPROF (WARNING|ERROR)' out.txt"
  check "${VIA}reader validates the dump (every reference resolves, byte counts match)" hprof_check k.hprof
  "$HPROF_DUMP" k.hprof >dump.txt 2>&1 || true
  check "${VIA}header JAVA PROFILE 1.0.2" has_line dump.txt '^HEADER version="JAVA PROFILE 1\.0\.2" idsize=4'
  check "${VIA}HEAP DUMP SEGMENT records closed by HEAP DUMP END" \
    bash -c "grep -q '^HEAP_DUMP_SEGMENT' dump.txt && [[ \$(grep -c '^HEAP_DUMP_END' dump.txt) -eq 1 ]]"
  check "${VIA}LOAD CLASS for array classes, named as in Java" \
    bash -c "grep -q '^LOAD_CLASS .*name=\"int\[\]\"' dump.txt && grep -q '^LOAD_CLASS .*name=\"java.lang.String\[\]\[\]\"' dump.txt"
  check "${VIA}every sub-record kind: class, instance, object array, primitive array" \
    bash -c "grep -q '^  CLASS_DUMP .*name=HeapDumpKnown\$Known .*fields=z:boolean,b:byte,c:char,s:short,i:int,j:long,f:float,d:double,str:object,self:object' dump.txt && grep -q '^  INSTANCE_DUMP' dump.txt && grep -q '^  OBJ_ARRAY_DUMP' dump.txt && grep -q '^  PRIM_ARRAY_DUMP' dump.txt"

  "$JAVA" -cp "$TEST_CLASSES" HeapDumpRead k.hprof "$KNOWN" HeapDumpKnown 'HeapDumpKnown$Node' \
    'HeapDumpKnown$Konst2' >read.txt 2>&1
  obj_block() { awk -v c="OBJ $1 " 'index($0, c) == 1 { on = 1; next } /^[^ ]/ { on = 0 } on' read.txt; }
  obj_block "$KNOWN" >known.txt
  printf '  %s\n' z=true b=123 c=Q s=-12345 i=305419896 j=1234605616436508552 f=1.5 d=-2.25 >want_known.txt
  check "${VIA}instance: every primitive field with its value, own fields first" bash -c "head -8 known.txt | diff - want_known.txt"
  check "${VIA}instance: a String field with its text" grep -q '^  str=@[0-9a-f]* "hprof-known-text"$' known.txt
  KID=$(awk -v c="OBJ $KNOWN " 'index($0, c) == 1 { print $3 }' read.txt)
  check "${VIA}instance: a reference to itself" grep -q "^  self=@$KID $KNOWN\$" known.txt
  check "${VIA}instance: the super class's fields after its own" \
    bash -c "tail -2 known.txt | tr '\n' ' ' | grep -q '^  baseInt=47710   baseRef=@[0-9a-f]* \"base-ref-text\"'"
  check "${VIA}static fields with values" \
    bash -c "grep -q '^STATIC HeapDumpKnown.sInt=987654321$' read.txt && grep -q '^STATIC HeapDumpKnown.sLong=-5$' read.txt && grep -q '^STATIC HeapDumpKnown.sBool=true$' read.txt && grep -q '^STATIC HeapDumpKnown.sDouble=3.5$' read.txt && grep -q '^STATIC HeapDumpKnown.sChar=x$' read.txt && grep -q '^STATIC HeapDumpKnown.sStr=@[0-9a-f]* \"static-text\"$' read.txt && grep -q '^STATIC HeapDumpKnown\$Known.knownStatic=77$' read.txt"
  check "${VIA}interface static field" grep -q '^STATIC HeapDumpKnown$Konst2.NAME=@[0-9a-f]* "konst2-name"$' read.txt
  check "${VIA}arrays of every primitive type with their values" \
    bash -c "grep -q '^STATIC HeapDumpKnown.za=@[0-9a-f]* \[true, false, true\]$' read.txt && grep -q '^STATIC HeapDumpKnown.ba=@[0-9a-f]* \[1, -2, 3\]$' read.txt && grep -q '^STATIC HeapDumpKnown.ca=@[0-9a-f]* \[a, b\]$' read.txt && grep -q '^STATIC HeapDumpKnown.sa=@[0-9a-f]* \[-1, 300\]$' read.txt && grep -q '^STATIC HeapDumpKnown.ia=@[0-9a-f]* \[1, 2, 3, -4\]$' read.txt && grep -q '^STATIC HeapDumpKnown.ja=@[0-9a-f]* \[1099511627776, -1\]$' read.txt && grep -q '^STATIC HeapDumpKnown.fa=@[0-9a-f]* \[0.5, -8.0\]$' read.txt && grep -q '^STATIC HeapDumpKnown.da=@[0-9a-f]* \[1.0E100, -0.25\]$' read.txt && grep -q '^STATIC HeapDumpKnown.empty=@[0-9a-f]* \[\]$' read.txt"
  check "${VIA}object arrays with nulls and references" \
    bash -c "grep -q '^STATIC HeapDumpKnown.oa=@[0-9a-f]* \[null, @[0-9a-f]*, null\]$' read.txt && grep -q '^STATIC HeapDumpKnown.ssa=@[0-9a-f]* \[@[0-9a-f]*, null\]$' read.txt"
  obj_block 'HeapDumpKnown$Node' >nodes.txt
  check "${VIA}a cycle: two nodes naming each other" \
    bash -c "[[ \$(grep -c 'next=@[0-9a-f]* HeapDumpKnown\$Node' nodes.txt) -eq 2 ]] && grep -q 'name=@[0-9a-f]* \"cycle-a\"' nodes.txt && grep -q 'name=@[0-9a-f]* \"cycle-b\"' nodes.txt"
  STACK_SERIAL=$(sed -n 's/^START_THREAD serial=\([0-9]*\) .*name="stack-holder".*/\1/p' dump.txt | head -1)
  STACK_OBJ=$(sed -n 's/^START_THREAD serial=[0-9]* obj=0x\([0-9a-f]*\) .*name="stack-holder".*/\1/p' dump.txt | head -1)
  check "${VIA}an object held only by a thread's stack: Java frame root of that thread" \
    grep -Eq "^ROOT JAVA_FRAME [0-9a-f]+ HeapDumpKnown\\\$OnStack thread=$STACK_SERIAL frame=[0-9]+\$" read.txt
  check "${VIA}the thread object's root carries the ID and serial of its START THREAD" \
    grep -q "^ROOT THREAD_OBJECT $STACK_OBJ java.lang.Thread thread=$STACK_SERIAL\$" read.txt
  check "${VIA}thread block roots" grep -q "^ROOT THREAD_BLOCK $STACK_OBJ java.lang.Thread thread=$STACK_SERIAL\$" read.txt
  check "${VIA}an object held only by a JNI global reference: JNI global root" grep -q '^ROOT JNI_GLOBAL [0-9a-f]* HeapDumpKnown$ByJni$' read.txt
  check "${VIA}an object whose monitor a thread holds: monitor used root" grep -q '^ROOT MONITOR_USED [0-9a-f]* HeapDumpKnown$ByMonitor$' read.txt
  check "${VIA}system classes are sticky class roots" grep -q '^ROOT STICKY_CLASS [0-9a-f]* class:java.lang.String$' read.txt
  check "${VIA}independent reader: every reference resolves, no object twice" \
    bash -c "grep -q '^UNRESOLVED 0$' read.txt && grep -q '^DUPLICATES 0$' read.txt"
  if [[ $DUMPER == jdk ]]; then
    check "${VIA}the JVM wrote the dump, the agent rewrote it" grep -q '^heap dump: jvm dump' out.txt
  else
    check "${VIA}the agent walked the heap through JVMTI" \
      bash -c "! grep -q '^heap dump: jvm dump' out.txt && grep -q '^heap dump: walk ' out.txt"
  fi
done
unset HPROF_HEAP_DUMPER HPROF_HEAP_TIMES

# ---- primfields=n,primarrays=n: no primitive values or elements, the file still whole ----
for DUMPER in jdk jvmti; do
  export HPROF_HEAP_DUMPER=$DUMPER
  VIA="[$DUMPER] primfields=n,primarrays=n: "
  run_java "${NATIVE[@]}" "$(agent heap=dump,format=b,primfields=n,primarrays=n,file=p.hprof)" HeapDumpKnown "$WORK/libhdjni.so"
  check "${VIA}the run exits 0 and the file passes --check" bash -c "[[ $RC -eq 0 ]] && '$HPROF_DUMP' --check p.hprof >/dev/null 2>&1"
  "$HPROF_DUMP" p.hprof >pdump.txt 2>&1 || true
  check "${VIA}every primitive array is written with no elements" \
    bash -c "grep -q '^  PRIM_ARRAY_DUMP ' pdump.txt && ! grep '^  PRIM_ARRAY_DUMP ' pdump.txt | grep -vq ' n=0 '"
  "$JAVA" -cp "$TEST_CLASSES" HeapDumpRead p.hprof "$KNOWN" HeapDumpKnown >pread.txt 2>&1 || true
  awk -v c="OBJ $KNOWN " 'index($0, c) == 1 { on = 1; next } /^[^ ]/ { on = 0 } on' pread.txt >pknown.txt
  check "${VIA}instance: primitive fields 0, references kept (the one to itself too)" \
    bash -c "grep -qx '  i=0' pknown.txt && grep -qx '  j=0' pknown.txt && grep -qx '  d=0.0' pknown.txt && grep -qx '  z=false' pknown.txt && grep -q '^  self=@[0-9a-f]* $KNOWN\$' pknown.txt && grep -q '^  baseRef=@[0-9a-f]' pknown.txt"
  check "${VIA}statics: primitive ones 0, references kept, arrays empty" \
    bash -c "grep -qx 'STATIC HeapDumpKnown.sInt=0' pread.txt && grep -q '^STATIC HeapDumpKnown.sStr=@[0-9a-f]* \"\"$' pread.txt && grep -q '^STATIC HeapDumpKnown.ia=@[0-9a-f]* \[\]$' pread.txt"
  check "${VIA}the independent reader: every reference resolves" grep -q '^UNRESOLVED 0$' pread.txt
done
unset HPROF_HEAP_DUMPER

# ---- the JVM cannot write its file: the agent walks the heap instead ----
# (net= puts the JVM's file in $TMPDIR; one that does not exist makes the JVM fail)
"$HPROF_BIN/hprof-listen" port.txt netk.hprof 2>listen.err &
LPID=$!
for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
NETOPT="heap=dump,format=b,net=127.0.0.1:$(cat port.txt)"
export TMPDIR=/nonexistent-hprof-dir HPROF_HEAP_TIMES=1
run_java "${NATIVE[@]}" "$(agent "$NETOPT")" HeapDumpKnown "$WORK/libhdjni.so"
unset TMPDIR HPROF_HEAP_TIMES
wait $LPID || true
check "the JVM's dump fails: the heap is walked, the dump arrives whole with the known instance" \
  bash -c "[[ $RC -eq 0 ]] && grep -q '^heap dump: jvm failed' out.txt && grep -q '^heap dump: walk' out.txt && '$HPROF_DUMP' --check netk.hprof >/dev/null 2>&1 && '$HPROF_DUMP' netk.hprof | grep -q 'CLASS_DUMP .*name=HeapDumpKnown\$Known '"

# ---- text ----
run_java "${NATIVE[@]}" "$(agent heap=dump,file=k.txt)" HeapDumpKnown "$WORK/libhdjni.so"
check "text run exits 0" test "$RC" -eq 0
check "TRACE 300000 (<empty>), which JNI global roots name, is written before HEAP DUMP BEGIN" \
  bash -c "awk '/^TRACE 300000:/ { getline l; if (l == \"\\t<empty>\") e = NR } /^HEAP DUMP BEGIN/ { exit !e }' k.txt && grep -q 'trace=300000)' k.txt"
check "HEAP DUMP BEGIN (N objects, M bytes) <date> ... HEAP DUMP END" \
  bash -c "grep -Eq '^HEAP DUMP BEGIN \([0-9]+ objects, [0-9]+ bytes\) [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$' k.txt && [[ \$(tail -1 k.txt) == 'HEAP DUMP END' ]]"
TKID=$(sed -n 's/^OBJ \([0-9a-f]*\) (sz=[0-9]*, trace=300000, class=HeapDumpKnown\$Known@[0-9a-f]*)$/\1/p' k.txt)
check "OBJ line of the instance: size, trace and class@id" test -n "$TKID"
awk -v id="OBJ $TKID " 'index($0, id) == 1 { on = 1; next } /^[^\t]/ { on = 0 } on' k.txt >tknown.txt
check "OBJ field lines: short names with two tabs, the reference to itself" \
  bash -c "grep -qP '^\tstr\t\t[0-9a-f]+$' tknown.txt && grep -qP '^\tself\t\t$TKID$' tknown.txt && grep -qP '^\tbaseRef\t\t[0-9a-f]+$' tknown.txt"
STR=$(grep -P '^\tstr\t' tknown.txt | awk '{print $2}')
check "the String field names a java.lang.String object" grep -Eq "^OBJ $STR \\(sz=[0-9]+, trace=300000, class=java.lang.String@[0-9a-f]+\\)$" k.txt
check "ARR lines: primitive arrays with their element type" grep -Eq '^ARR [0-9a-f]+ \(sz=[0-9]+, trace=300000, nelems=4, elem type=int\[\]\)$' k.txt
check "ARR lines: object arrays with class@id and [index] lines" \
  bash -c "grep -A1 -E '^ARR [0-9a-f]+ \(sz=[0-9]+, trace=300000, nelems=3, elem type=java.lang.Object\[\]@[0-9a-f]+\)$' k.txt | grep -qP '^\t\[1\]\t\t[0-9a-f]+$'"
check "CLS line with super, loader and static references" \
  bash -c "grep -A4 -E '^CLS [0-9a-f]+ \(name=HeapDumpKnown, trace=300000\)$' k.txt | grep -qP '^\tsuper\t\t[0-9a-f]+$' && grep -A6 -E '^CLS [0-9a-f]+ \(name=HeapDumpKnown, trace=300000\)$' k.txt | grep -qP '^\tloader\t\t[0-9a-f]+$' && grep -A30 -E '^CLS [0-9a-f]+ \(name=HeapDumpKnown, trace=300000\)$' k.txt | grep -qP '^\tstatic sStr\t[0-9a-f]+$'"
ONSTACK=$(sed -n 's/^OBJ \([0-9a-f]*\) (sz=[0-9]*, trace=300000, class=HeapDumpKnown\$OnStack@[0-9a-f]*)$/\1/p' k.txt)
BYJNI=$(sed -n 's/^OBJ \([0-9a-f]*\) (sz=[0-9]*, trace=300000, class=HeapDumpKnown\$ByJni@[0-9a-f]*)$/\1/p' k.txt)
BYMON=$(sed -n 's/^OBJ \([0-9a-f]*\) (sz=[0-9]*, trace=300000, class=HeapDumpKnown\$ByMonitor@[0-9a-f]*)$/\1/p' k.txt)
check "ROOT lines: Java stack, JNI global ref, busy monitor, thread, system class" \
  bash -c "grep -Eq '^ROOT $ONSTACK \(kind=<Java stack>, thread=2[0-9]{5}, frame=[0-9]+\)$' k.txt && grep -Eq '^ROOT $BYJNI \(kind=<JNI global ref>, id=[0-9a-f]+, trace=300000\)$' k.txt && grep -Eq '^ROOT $BYMON \(kind=<busy monitor>\)$' k.txt && grep -Eq '^ROOT [0-9a-f]+ \(kind=<thread>, id=2[0-9]{5}, trace=3[0-9]{5}\)$' k.txt && grep -Eq '^ROOT [0-9a-f]+ \(kind=<system class>, name=java.lang.String\)$' k.txt"

# ---- SIGQUIT: each dump complete and separate ----
sigquit_run() {  # sigquit_run OPTIONS: two SIGQUITs, then the program is ended
  sigquit_dumps 2 kill q.out "${NATIVE[@]}" "$(agent "$1")" HeapDumpKnown "$WORK/libhdjni.so" wait
}
sigquit_run heap=dump,format=b,file=q.hprof
check "binary: two SIGQUIT dumps and the one at exit, each closed, the file valid" \
  bash -c "'$HPROF_DUMP' --check q.hprof >/dev/null 2>&1 && [[ \$('$HPROF_DUMP' q.hprof | grep -c '^HEAP_DUMP_END') -eq 3 ]]"
sigquit_run heap=dump,file=q.txt
begins=$(grep -c '^HEAP DUMP BEGIN' q.txt || true); ends=$(grep -c '^HEAP DUMP END' q.txt || true)
said=$(grep -c 'Dumping Java heap' q.out || true)
check "text: two SIGQUIT dumps and the one at exit, each BEGIN with its END ($begins BEGIN, $ends END, $said said)" \
  test "$begins $ends" = "3 3"

# ---- heap=all, the default ----
run_java "$(agent format=b,file=all.hprof)" HotMethod 200
check "no options (heap=all): the dump at exit holds a heap dump" \
  bash -c "'$HPROF_DUMP' --check all.hprof >/dev/null 2>&1 && '$HPROF_DUMP' all.hprof | grep -q '^HEAP_DUMP_END'"
check "heap=all,format=b: no ID defined twice (the empty trace 300000 once)" \
  bash -c "'$HPROF_DUMP' --summary all.hprof | grep -qx 'duplicate_definitions=0' && [[ \$('$HPROF_DUMP' all.hprof | grep -c '^TRACE serial=300000 ') -eq 1 ]]"

# ---- a full disk ----
if [[ -w /dev/full ]]; then
  run_java "$(agent heap=dump,format=b,file=/dev/full)" HotMethod 200
  check "full disk: one HPROF ERROR, the program goes on and exits 0" \
    bash -c "[[ $RC -eq 0 && \$(grep -c 'HPROF ERROR' out.txt) -eq 1 ]]"
else
  skip "full disk" "no writable /dev/full here"
fi
jni_clean
