#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=dump read by a real reader: VisualVM's heap library (Debian package visualvm) loads
# our binary dump, every reference resolves, and its class histogram agrees with the one of
# a dump of the same program state written by the JDK itself (jcmd GC.heap_dump).
source "$(dirname "$0")/../lib/common.sh"

JAR=$(dpkg -L visualvm 2>/dev/null | grep 'org-graalvm-visualvm-lib-jfluid-heap\.jar$' | head -1)
if [[ -z "$JAR" || ! -f "$JAR" ]]; then
  skip "VisualVM's heap library reads our dumps" "VisualVM's heap library is not installed (apt-get install visualvm)"
  exit 0
fi
mkdir -p vv
"$JAVA_HOME/bin/javac" -nowarn -d vv -cp "$JAR" "$HPROF_ROOT/tests/java/visualvm/HeapDumpVisualVM.java"
vv() { "$JAVA" -cp "vv:$JAR" HeapDumpVisualVM "$@" 2>>vv-errors.txt; }

gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libhdjni.so" \
  "$HPROF_ROOT/tests/java/native/heapdump_jni.c"
NATIVE=()
[[ $JDK_FEATURE -ge 22 ]] && NATIVE=(--enable-native-access=ALL-UNNAMED)

# The program waits; the JDK dumps it (twice: the first starts the attach machinery), then
# we do (SIGQUIT). doe=n: only that one dump in our file.
set +e
"$JAVA" -Xcheck:jni "${NATIVE[@]}" "$(agent heap=dump,format=b,file=ours.hprof,doe=n)" -cp "$TEST_CLASSES" \
  HeapDumpKnown "$WORK/libhdjni.so" wait >run.out 2>&1 &
PID=$!
for _ in $(seq 300); do grep -q ready run.out 2>/dev/null && break; sleep 0.1; done
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$WORK/warm.hprof" >/dev/null 2>&1
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$WORK/jdk.hprof" >/dev/null 2>&1
kill -QUIT $PID
for _ in $(seq 600); do grep -q 'Dumping Java heap ... done' run.out && break; sleep 0.1; done
kill $PID; wait $PID
cat run.out >>"$WORK/all-runs.txt"
set -e

check "our dump validates" hprof_check ours.hprof
vv check ours.hprof >vv.txt
check "VisualVM loads our dump" grep -q '^INSTANCES [1-9]' vv.txt
check "VisualVM: every reference resolves (fields, statics, roots)" grep -q '^UNRESOLVED 0$' vv.txt
check "VisualVM: the known instance's values" grep -q '^KNOWN i=305419896 j=1234605616436508552 d=-2.25 c=Q self=true$' vv.txt
check "VisualVM: roots of every kind we write" \
  bash -c "grep -Eq '^ROOTS .*JNI_global=[1-9].*Java_frame=[1-9].*monitor_used=[1-9].*sticky_class=[1-9].*thread_block=[1-9].*thread_object=[1-9]' vv.txt"
check "VisualVM loads the JDK's dump too" test -s jdk.hprof
# Every class loaded has its LOAD CLASS: every class the JDK's dump names, ours names
# (the JDK writes "java/lang/String", "[I", "[Ljava/lang/Object;": named as in Java here).
"$HPROF_DUMP" jdk.hprof | sed -n 's/^LOAD_CLASS .*name="\(.*\)"$/\1/p' | awk '
  { n = $0; d = 0; while (substr(n, 1, 1) == "[") { d++; n = substr(n, 2) }
    if (d > 0 && substr(n, 1, 1) == "L") n = substr(n, 2, length(n) - 2)
    else if (d > 0) n = prim[substr(n, 1, 1)]
    gsub("/", ".", n); sub(/\+0x/, ".0x", n); for (i = 0; i < d; i++) n = n "[]"; print n }
  BEGIN { split("I int J long B byte C char D double F float S short Z boolean", p, " "); for (i = 1; i < 16; i += 2) prim[p[i]] = p[i + 1] }' |
  sort -u >jdk.classes
"$HPROF_DUMP" ours.hprof | sed -n 's/^LOAD_CLASS .*name="\(.*\)"$/\1/p' | sed 's/+0x/.0x/' | sort -u >ours.classes
check "every class of the JDK's dump has its LOAD CLASS in ours ($(wc -l <jdk.classes) classes)" \
  bash -c "[[ -s jdk.classes ]] && ! comm -13 ours.classes jdk.classes | grep -q ."

# primfields=n,primarrays=n: primitive values 0, primitive arrays empty; VisualVM still
# reads the whole dump.
run_java "${NATIVE[@]}" "$(agent heap=dump,format=b,primfields=n,primarrays=n,file=p.hprof)" HeapDumpKnown "$WORK/libhdjni.so"
vv check p.hprof >vvp.txt
check "primfields=n,primarrays=n: VisualVM loads the dump, every reference resolves" \
  bash -c "grep -q '^INSTANCES [1-9]' vvp.txt && grep -q '^UNRESOLVED 0$' vvp.txt"
check "primfields=n,primarrays=n: VisualVM reads the known instance with its primitive values 0" \
  grep -aq '^KNOWN i=0 j=0 d=0.0 c=.* self=true$' vvp.txt

# Threads: VisualVM's Threads view shows each thread's frames (ThreadObjectGCRoot's stack
# trace) and the locals under the frame their Java frame root numbers.
for DUMPER in jdk jvmti; do
  HPROF_HEAP_DUMPER=$DUMPER run_java "$(agent heap=dump,format=b,file=th-$DUMPER.hprof)" HeapDumpThreads return
  vv threads th-$DUMPER.hprof >vvt.txt
  check "[$DUMPER] VisualVM: the thread's stack has its frames (levelC levelB levelA, top first)" \
    grep -Eq '^THREAD stack-holder .*levelC levelB levelA ' vvt.txt
  check "[$DUMPER] VisualVM: the local held in levelB is under levelB's frame" \
    grep -qx 'LOCAL stack-holder levelB HeapDumpThreads$Marker' vvt.txt
  check "[$DUMPER] VisualVM: the thread that ends the VM (DestroyJavaVM) is a thread with a stack trace" \
    grep -Eq '^THREAD DestroyJavaVM( |$)' vvt.txt
  check "[$DUMPER] VisualVM: every thread root has a stack trace, every Java frame root a thread and frame" \
    bash -c "grep -q '^THREAD ' vvt.txt && ! grep -q '^LOCAL [^ ]* ? ' vvt.txt && ! grep -q '^LOCAL ? ' vvt.txt"
done

vv histo ours.hprof | awk '{ print $2, $1 }' | sort >ours.histo
vv histo jdk.hprof | awk '{ print $2, $1 }' | sort >jdk.histo
join -a1 -a2 -e 0 -o 0,1.2,2.2 ours.histo jdk.histo >both.txt
echo "class ours jdk (where they differ):" >diff.txt
awk '$2 != $3' both.txt >>diff.txt
cat diff.txt
# What may differ, and why:
#  java.lang.Class   ours has more: the class-data-sharing archive holds the Class objects
#                    of archived classes not loaded (yet); JVMTI reports references to them,
#                    so we write them (as instances of java.lang.Class) and every reference
#                    resolves. The JDK's dumper leaves them out.
#  int[](empty)      the JDK writes the empty int[] HotSpot fills heap gaps with; nothing
#                    refers to them, and a walk from the roots never meets them.
#  anything, fewer in ours: objects held only by threads the JVM hides from JVMTI (the
#                    Attach Listener jcmd starts, compiler and service threads): JVMTI reports
#                    neither their Thread objects nor their stacks as roots.
check "histogram: the program's own classes agree exactly" \
  bash -c "grep -q '^HeapDumpKnown' both.txt && ! grep -E '^HeapDumpKnown[^ ]* ' both.txt | awk '\$2 != \$3' | grep -q ."
check "histogram: no class has more instances in ours (but java.lang.Class, see above)" \
  bash -c "[[ -s both.txt ]] && ! awk '\$1 != \"java.lang.Class\" && \$2 > \$3' both.txt | grep -q ."
check "histogram: what ours lacks is under 1% of the JDK's objects (threads hidden from JVMTI)" \
  bash -c "awk '\$1 != \"int[](empty)\" && \$1 != \"java.lang.Class\" { t += \$3; if (\$3 > \$2) m += \$3 - \$2 } END { print m, t; exit !(m * 100 < t) }' both.txt"
jni_clean
