#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=samples' native frames (native=y, the default): a JNI library of the test's own,
# built without frame pointers and loaded well after start, unwound by its DWARF call
# frame information under the Java frames that called it; zlib under java.util.zip; the
# GC's functions under [GC] (G1 and Parallel); C2's and C1's under [JIT compiler]; walks
# that stop short counted under [native_walk_stopped] (a library with a rule the unwinder
# does not follow; few on javac); the same stacks in collapsed
# stacks, pprof (go tool pprof) and the flame graph (chromium); native=n leaves them out.
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"
source "$HPROF_ROOT/tests/lib/stacks.sh"

if [[ "$(uname -m)" != x86_64 ]]; then
  skip "native frames" "x86-64 only (README: other architectures get no native frames)"
  jni_clean
  exit 0
fi

# 1. The JNI chain, -O2 -fomit-frame-pointer: only DWARF unwinds it; loaded after 300 ms.
gcc -O2 -fomit-frame-pointer -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
  -o "$WORK/libnativechain.so" "$HPROF_ROOT/tests/java/native/native_chain_jni.c"
check "the JNI library keeps no frame pointer (no push %rbp in outer, middle, inner)" \
  bash -c "! objdump -d '$WORK/libnativechain.so' | awk '/<(outer|middle|inner)>:/ { on = 1; next } /^$/ { on = 0 } on' | grep -q 'push *%rbp'"
run_java "$(agent cpu=samples,interval=5,depth=16,cutoff=0,file=jni.txt,view=collapsed+pprof+html)" \
  NativeWork jni "$WORK/libnativechain.so" 2000
chain='libnativechain\.so\.inner;libnativechain\.so\.middle;libnativechain\.so\.outer;libnativechain\.so\.Java_NativeWork_spin;(.*;)?NativeWork\.caller(;|$)'
s=$(share jni.txt 'NativeWork\.caller' "^$chain")
check "JNI: runs (exit $RC)" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
check "JNI: >= 90% of the spinning thread's samples are caller -> Java_NativeWork_spin -> outer -> middle -> inner ($s)" at_least "$s" 90
check "JNI: the library loaded after start is named (libnativechain.so.inner, not +0x)" \
  bash -c "grep -q $'^\tlibnativechain.so.inner(libnativechain.so:Native method)$' jni.txt && ! grep -q 'libnativechain.so+0x' jni.txt"
check "collapsed: root first, Java caller then the chain" \
  grep -Eq '(^|;)NativeWork\.caller;NativeWork\.spin;libnativechain\.so\.Java_NativeWork_spin;libnativechain\.so\.outer;libnativechain\.so\.middle;libnativechain\.so\.inner [0-9]+$' jni.cpu.collapsed
if command -v go >/dev/null 2>&1; then
  timeout 120 go tool pprof -raw jni.cpu.pb.gz >raw.txt 2>&1 || true
  check "pprof: the functions have their library as file, in a mapping of it" \
    bash -c "grep -Eq '^ +[0-9]+: 0x0 M=([0-9]+) libnativechain\.so\.inner libnativechain\.so:0' raw.txt &&
      m=\$(sed -n 's/^ *[0-9]*: 0x0 M=\([0-9]*\) libnativechain\.so\.inner .*/\1/p' raw.txt | head -1) &&
      grep -Eq \"^\$m: 0x0/0x0/0x0 libnativechain\\.so +\\[FN\\]\" raw.txt"
  timeout 120 go tool pprof -traces jni.cpu.pb.gz >traces.txt 2>&1 || true
  check "pprof -traces: inner, middle, outer, Java_NativeWork_spin, NativeWork.spin, NativeWork.caller in a row" \
    bash -c "awk '/^-----------/ { if (t ~ /libnativechain[.]so[.]inner;libnativechain[.]so[.]middle;libnativechain[.]so[.]outer;libnativechain[.]so[.]Java_NativeWork_spin;NativeWork[.]spin;NativeWork[.]caller;/) f = 1; t = \"\"; next }
      { t = t \$NF \";\" } END { exit !f }' traces.txt"
else
  skip "pprof: the functions have their library as file" "go not found"
fi
if have_chromium; then
  html_find "$WORK/jni.cpu.html" libnativechain.so.inner >inner.txt
  html_find "$WORK/jni.cpu.html" NativeWork.caller >caller.txt
  nf=$(sed -n 's/^fill=//p' inner.txt) jf=$(sed -n 's/^fill=//p' caller.txt)
  check "flame graph: a native function is drawn as native code ($(grep tip= inner.txt)), in its own colour ($nf, Java $jf)" \
    bash -c "grep -q '^tip=libnativechain.so.inner | native code (C, C++, the JVM) ·' inner.txt && (( $(hsl_hue "$nf") >= 48 && $(hsl_hue "$nf") <= 60 ))"
else
  skip "flame graph: a native function in its own colour" "chromium not found"
fi

# 1b. A walk that stops short says why, and the Java frames still follow: the same chain
# with inner's CFA given by a DWARF expression the unwinder does not follow.
gcc -DODD_CFA -O2 -fomit-frame-pointer -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
  -o "$WORK/libnativeodd.so" "$HPROF_ROOT/tests/java/native/native_chain_jni.c"
run_java "$(agent cpu=samples,interval=5,depth=16,cutoff=0,file=odd.txt)" NativeWork jni "$WORK/libnativeodd.so" 1000
s=$(share odd.txt 'NativeWork\.caller' '^libnativeodd\.so\.inner;\[native_walk_stopped\]\.unknown_rule;NativeWork\.spin;NativeWork\.caller(;|$)')
check "stopped short: runs (exit $RC); >= 90% of the thread's samples are inner, [native_walk_stopped].unknown_rule, then the Java frames ($s)" \
  bash -c "[[ $RC -eq 0 ]] && $(declare -f at_least); at_least '$s' 90"

# 2. java.util.zip: zlib's functions under Deflater's and Inflater's native methods.
run_java "$(agent cpu=samples,interval=5,depth=16,cutoff=0,file=zip.txt)" NativeWork zip 2000
zre='(^|;)(libz\.so[.0-9]*|libzip\.so)\.[^;]*;(.*;)?(java\.util\.zip\.(Deflater|Inflater))\.'
s=$(share zip.txt 'java\.util\.zip\.(Deflater|Inflater)\.(deflate|inflate)BytesBytes' "$zre")
check "zip: runs (exit $RC)" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
check "zip: >= 80% of the samples in Deflater's and Inflater's native methods have zlib's frames on top ($s)" at_least "$s" 80
check "zip: zlib's deflate or inflate named" \
  grep -Eq $'^\t(libz\\.so[.0-9]*|libzip\\.so)\\.(deflate|inflate)' zip.txt

# 3. The GC under G1 and under Parallel: the collector's functions under [GC].
for gc in G1 Parallel; do
  run_java "$(agent cpu=samples,interval=5,depth=24,cutoff=0,file=gc$gc.txt)" -Xmx1g -XX:+Use${gc}GC -XX:ParallelGCThreads=2 GcBurn 2000
  # Parallel's classes: PS*, Par*, PC* closures, its tasks (JDK 25: MarkFromRootsTask ...)
  fn=$([[ $gc == G1 ]] && echo '[^;]*G1[A-Za-z]*::' || echo '[^;]*(PS[A-Z]|Par[A-Z]|PC[A-Z]|MarkFromRootsTask|DensePrefix|steal_)')
  s=$(share gc$gc.txt '\[GC\]\.' "libjvm\\.so\\.$fn")
  check "$gc: runs (exit $RC), >= 50% of [GC]'s samples name a $gc function ($s)" \
    bash -c "[[ $RC -eq 0 ]] && $(declare -f at_least); at_least '$s' 50"
  s=$(share gc$gc.txt '\[GC\]\.' '(^|;)\[GC\]\.[^;]*$')
  check "$gc: the [GC] thread frame is every such stack's root ($s)" bash -c "$(declare -f at_least); at_least '$s' 100"
done

# 4. javac: C2's and C1's functions under [JIT compiler]; short walks counted, few.
mkdir -p "$WORK/jc"
srcs=("$HPROF_ROOT"/tests/java/{Megamorphic,DeoptLoop,GcBurn,Split,Mixed,HotMethod,NativeWork}.java)
run_java "$(agent cpu=samples,interval=5,depth=64,cutoff=0,file=javac.txt)" -m jdk.compiler/com.sun.tools.javac.Main -d "$WORK/jc" "${srcs[@]}"
s=$(share javac.txt '\[JIT compiler\]\.' 'libjvm\.so\.')
check "javac: runs (exit $RC); >= 50% of [JIT compiler]'s samples name a HotSpot function ($s)" \
  bash -c "[[ $RC -eq 0 ]] && $(declare -f at_least); at_least '$s' 50"
check "javac: C2 (Compile::, PhaseIdealLoop, ...) and C1 (Compilation::, LinearScan, ...) both seen" \
  bash -c "grep -Eq $'^\tlibjvm\\\\.so\\\\.(Compile|C2Compiler|Phase[A-Za-z]*)::' javac.txt && grep -Eq $'^\tlibjvm\\\\.so\\\\.(Compilation|LinearScan|GraphBuilder)::' javac.txt"
# Walks that could not go on (no row, a rule, a read outside the stack ...), with the
# walks that met a library whose table was not built yet (no_table: the tables of
# libraries other than libjvm, libc and the agent are built on first need).
s=$(share javac.txt '.' '\[native_walk_stopped\]\.')
check "javac: walks stopped short are counted and <= 2% of the samples ($s)" at_most "$s" 2
t=$(share javac.txt '.' '\[native_walk_stopped\]\.no_table')
echo "# javac: stopped short: $s, no table yet: $t; by reason: $(stacks javac.txt | grep -o '\[native_walk_stopped\]\.[a-z_]*' | sort | uniq -c | tr '\n' ' ')"

# 5. native=n: no native frames, the thread kinds alone.
run_java "$(agent cpu=samples,native=n,interval=5,depth=16,cutoff=0,file=off.txt)" NativeWork jni "$WORK/libnativechain.so" 500
check "native=n: runs (exit $RC); no frame of a library, no [native_walk_stopped]" \
  bash -c "[[ $RC -eq 0 ]] && (( $(cpu_total off.txt) > 0 )) && ! grep -Eq $'^\t([^\t.]*\\\\.so[.0-9]*\\\\.|\\\\[native_walk_stopped\\\\])' off.txt"
check "native=n: NativeWork.spin is the top frame of the spinning thread" grep -Eq '^ +[0-9]+ .* NativeWork\.spin$' off.txt

# 6. clock=wall: a Java thread waiting in the kernel shows the native frames of its wait.
run_java "$(agent cpu=samples,clock=wall,interval=10,depth=24,cutoff=0,file=wall.txt)" GcBurn 500
check "clock=wall: runs (exit $RC), libc's or libjvm's frames on top of Java frames" \
  bash -c "[[ $RC -eq 0 ]] && grep -Eq $'^\t(libc\\\\.so\\\\.6|libjvm\\\\.so)\\\\.' wall.txt"
jni_clean
