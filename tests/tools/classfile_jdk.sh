#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The class-file instrumenter (src/classfile, driven by build/cf-rewrite) against real JDKs:
#  1. every class of each JDK's lib/modules is rewritten with all injections on, and each
#     output re-parsed (deep) and each input round-tripped byte for byte;
#  2. java.base and jdk.compiler, fully instrumented (no-op tracker inside java.base), run
#     javac under -Xverify:all and must produce the same class files as the plain javac;
#     again with every branch widened (trampoline islands), and again with every branch
#     widened by inversion with inferred StackMapTable frames; each time every class of the
#     instrumented java.base is also loaded and initialised under -Xverify:all;
#  3. the programs in tests/java/cf (plus a generated class with 300 locals, a loop body
#     past 32 KiB after injection and a near-64 KiB method), rewritten with a counting
#     tracker, run under -Xverify:all with the same output as the originals;
#  4. hand-assembled version-49 and 45.0 classes with jsr/ret, wide and a tableswitch,
#     likewise;
#  5. the allocation-site hooks (--hooks ...,sites): 2 once more with them on top of every
#     other hook, the test programs of 3 with them, and a program allocating every way
#     (new across a branch, each array type, multianewarray of 2 and 3 dimensions, arrays
#     that throw, Unsafe.allocateInstance, an array's clone()) whose exact hook counts are checked.
# Prints ok/not ok lines; needs build/cf-rewrite (make). Each JDK takes minutes: the
# runner gives each its own job (HPROF_JDKS, tests/lib/jdks.sh).
# hprof-test: per-jdk
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${HPROF_BIN:-$ROOT/build}/cf-rewrite
CF=$ROOT/tests/java/cf
# Each JDK's classes are extracted and rewritten three times over (about 200 MB in
# 100,000 small files): on a tmpfs that takes half the time of a disk, so /dev/shm when
# TMPDIR is not set and it has 2 GiB free.
TMP=${TMPDIR:-/tmp}
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]] &&
   (( $(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 + 0 }') > 2 * 1024 * 1024 )); then
  TMP=/dev/shm
fi
WORK=$(mktemp -d "$TMP/hprof-classfile-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok()     { echo "ok - classfile_jdk: $*"; }
not_ok() { echo "not ok - classfile_jdk: $*"; }
# field KEY FILE: value of KEY=... in the summary line of cf-rewrite
field() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" "$2" | tail -n 1; }

[[ -x "$TOOL" ]] || { not_ok "build/cf-rewrite missing (run make)"; exit 1; }
mapfile -t JDKS < <("$ROOT/tests/lib/jdks.sh")
[[ ${#JDKS[@]} -gt 0 ]] || { not_ok "no JDK found"; exit 1; }

gen_java() { bash "$ROOT/tests/java/cf/gen-generated.sh" "$1"; }

for JDK in "${JDKS[@]}"; do
  N=$(basename "$JDK")
  J=$JDK/bin
  W=$WORK/$N
  mkdir -p "$W"

  # 1. Every class of the JDK.
  t0=$SECONDS
  if "$J/jimage" extract --dir "$W/mods" "$JDK/lib/modules" 2>"$W/jimage.err"; then
    "$TOOL" -t hprof/Tracker -r "$W/mods" >"$W/all.txt" 2>"$W/all.err"
    rc=$?
    files=$(field files "$W/all.txt"); rew=$(field rewritten "$W/all.txt")
    echo "# [$N] $(cat "$W/all.txt") ($((SECONDS - t0)) s)"
    if [[ $rc -eq 0 && ${files:-0} -gt 10000 && $(field errors "$W/all.txt") == 0 ]]; then
      ok "[$N] all $files classes parse and rewrite ($rew rewritten, $(field unchanged "$W/all.txt") without code to change)"
    else
      not_ok "[$N] rewriting all classes (rc=$rc)"; head -20 "$W/all.err"
    fi
    if [[ $(field reparse_fail "$W/all.txt") == 0 && $(field roundtrip_fail "$W/all.txt") == 0 ]]; then
      ok "[$N] every output re-parses, every input round-trips byte for byte"
    else
      not_ok "[$N] re-parse or round trip failed"; grep -E 'reparse|roundtrip' "$W/all.err" | head
    fi
    echo "# [$N] methods: instrumented=$(field methods_instrumented "$W/all.txt") too_big=$(field methods_too_big "$W/all.txt") unrewritable=$(field methods_unrewritable "$W/all.txt") widened=$(field widened "$W/all.txt")"
    # every branch widened by inversion: frame inference must handle all of the JDK's code
    "$TOOL" --widen-all --no-islands -t hprof/Tracker -r "$W/mods" >"$W/wide.txt" 2>"$W/wide.err"
    rc=$?
    if [[ $rc -eq 0 && $(field reparse_fail "$W/wide.txt") == 0 ]]; then
      ok "[$N] all classes with every branch widened by inversion: $(field widened "$W/wide.txt") branches, $(field methods_too_big "$W/wide.txt") methods too big, $(field methods_unrewritable "$W/wide.txt") frames not inferable"
    else
      not_ok "[$N] widening every branch (rc=$rc)"; head "$W/wide.err"
    fi
  else
    not_ok "[$N] jimage extract"; head -5 "$W/jimage.err"
  fi

  # The test programs (tests/java/cf and the generated class), compiled once for 2 and 3:
  # javac-plain is what javac must produce in 2, and the original program of 3; the
  # counting tracker of 3 and VerifyAll of 2 in one javac, each moved to its own folder.
  gen_java "$W/gen"
  SRCS=("$CF/prog/cfprog/Main.java" "$W/gen/cfprog/Generated.java")
  "$J/javac" -nowarn -d "$W/javac-plain" "${SRCS[@]}" >"$W/javac.txt" 2>&1 &&
    "$J/javac" -nowarn -d "$W/tools" "$CF/tracker/cftest/Tracker.java" "$CF/verify/cfverify/VerifyAll.java" >>"$W/javac.txt" 2>&1 &&
    mkdir -p "$W/tracker" "$W/verify" && mv "$W/tools/cftest" "$W/tracker/" && mv "$W/tools/cfverify" "$W/verify/"
  javac_rc=$?

  # 2. java.base + jdk.compiler instrumented, running javac under -Xverify:all.
  if [[ -d "$W/mods/java.base" ]]; then
    mkdir -p "$W/nop/jdk/internal/misc"
    cat >"$W/nop/jdk/internal/misc/CfTracker.java" <<'EOF'
package jdk.internal.misc;
/** No-op tracker living in java.base, so instrumented java.base classes can reach it early. */
public final class CfTracker {
    private CfTracker() {}
    public static void CallSite(int cnum, int mnum) {}
    public static void ReturnSite(int cnum, int mnum) {}
    public static void NewArray(Object array) {}
    public static void ObjectInit(Object obj) {}
    public static void NewSite(int site) {}
    public static void ArraySite(int length, int site, int code) {}
    public static void MultiSite(Object array, int site) {}
    public static void AllocInst(Object obj, int site) {}
}
EOF
    "$J/javac" --patch-module java.base="$W/nop" -d "$W/nopc" "$W/nop/jdk/internal/misc/CfTracker.java" 2>"$W/nop.err"
    (cd "$W/mods/java.base" && find . -name '*.class' ! -name module-info.class | sed 's|^\./||; s|\.class$||; s|/|.|g') >"$W/base-names.txt"
    # Three ways: as is; every 16-bit branch widened as if it no longer fit (islands of
    # trampolines where possible); every branch widened by inversion with inferred frames.
    for mode in "" "--widen-all" "--widen-all --no-islands" "--hooks entry,return,objinit,newarray,exc,sites"; do
      rm -rf "$W/pbase" "$W/pcomp" "$W/javac-bci"
      "$TOOL" $mode -t jdk/internal/misc/CfTracker -r "$W/mods/java.base" "$W/pbase" >"$W/pbase.txt" 2>&1
      [[ "$mode" == "--widen-all" ]] ||
        "$TOOL" $mode -t jdk/internal/misc/CfTracker -r "$W/mods/jdk.compiler" "$W/pcomp" >"$W/pcomp.txt" 2>&1
      rm -f "$W/pbase/module-info.class" "$W/pcomp/module-info.class"
      cp "$W/nopc/jdk/internal/misc/CfTracker.class" "$W/pbase/jdk/internal/misc/" 2>/dev/null
      if [[ "$mode" == "--widen-all" ]]; then
        :  # (javac runs on the other two; this one only loads java.base below, to save time)
      else
      "$J/java" -Xshare:off -Xverify:all --patch-module java.base="$W/pbase" --patch-module jdk.compiler="$W/pcomp" \
        --add-exports java.base/jdk.internal.misc=jdk.compiler,ALL-UNNAMED \
        -m jdk.compiler/com.sun.tools.javac.Main -nowarn -d "$W/javac-bci" "${SRCS[@]}" >"$W/javac-bci.txt" 2>&1
      rc=$?
      if [[ $rc -eq 0 ]] && diff -r "$W/javac-plain" "$W/javac-bci" >/dev/null; then
        ok "[$N] javac on instrumented java.base + jdk.compiler ${mode:+($mode) }under -Xverify:all compiles the same classes ($(field rewritten "$W/pbase.txt")+$(field rewritten "$W/pcomp.txt") classes rewritten, $(field widened "$W/pbase.txt")+$(field widened "$W/pcomp.txt") branches widened)"
      else
        not_ok "[$N] javac on instrumented java.base + jdk.compiler $mode (rc=$rc)"; head -20 "$W/javac-bci.txt"
      fi
      fi
      # every class of the instrumented java.base loaded and initialised under -Xverify:all
      "$J/java" -Xshare:off -Xverify:all --patch-module java.base="$W/pbase" -cp "$W/verify" \
        cfverify.VerifyAll "$W/base-names.txt" >"$W/verify.txt" 2>&1
      line=$(grep '^loaded=' "$W/verify.txt")
      loaded=$(echo "$line" | sed -n 's/.*loaded=\([0-9]*\).*/\1/p')
      if [[ "$line" == *" verify_errors=0 "* && ${loaded:-0} -gt 5000 ]]; then
        ok "[$N] all java.base classes ${mode:+($mode) }load under -Xverify:all ($line)"
      else
        not_ok "[$N] java.base classes ${mode:+($mode) }under -Xverify:all: '$line'"; grep -m5 VerifyError "$W/verify.txt"; tail -3 "$W/verify.txt"
      fi
    done
  fi

  # 3. The test programs, rewritten with a counting tracker.
  if [[ $javac_rc -ne 0 ]]; then
    not_ok "[$N] javac of tests/java/cf"; head -20 "$W/javac.txt"
  else
    "$TOOL" -v -t cftest/Tracker -r "$W/javac-plain" "$W/rw" >"$W/rw.txt" 2>"$W/rw.err"
    rc=$?
    echo "# [$N] test programs: $(cat "$W/rw.txt")"
    if [[ $rc -eq 0 && $(field methods_too_big "$W/rw.txt") -ge 1 && $(field widened "$W/rw.txt") -ge 1 ]]; then
      ok "[$N] test programs rewritten: near-64 KiB method skipped as too big, branches widened"
    else
      not_ok "[$N] test programs rewritten (rc=$rc, too_big=$(field methods_too_big "$W/rw.txt") widened=$(field widened "$W/rw.txt"))"
      head "$W/rw.err"
    fi
    "$J/java" -Xverify:all -Xbootclasspath/a:"$W/tracker" -cp "$W/javac-plain" cfprog.Main >"$W/o1.txt" 2>"$W/e1.txt"
    rc1=$?
    "$J/java" -Xverify:all -Xbootclasspath/a:"$W/tracker" -cp "$W/rw" cfprog.Main >"$W/o2.txt" 2>"$W/e2.txt"
    rc2=$?
    if [[ $rc1 -eq 0 && $rc2 -eq 0 ]] && diff "$W/o1.txt" "$W/o2.txt" >/dev/null; then
      ok "[$N] rewritten test program runs under -Xverify:all with the original's output"
    else
      not_ok "[$N] rewritten test program (rc $rc1/$rc2)"; diff "$W/o1.txt" "$W/o2.txt" | head; head -20 "$W/e2.txt"
    fi
    line=$(grep '^tracker:' "$W/e2.txt")
    ent=$(echo "$line" | sed -n 's/.*entries=\([0-9]*\).*/\1/p')
    arr=$(echo "$line" | sed -n 's/.*arrays=\([0-9]*\).*/\1/p')
    # main and report are still running when the counts are read: 2 open frames
    if [[ ${ent:-0} -gt 100 && ${arr:-0} -gt 10 && "$line" == *" open=2 "* && "$line" == *"unbalanced=false"* ]]; then
      ok "[$N] hooks ran and balance through exceptions ($line)"
    else
      not_ok "[$N] hook counts: '$line'"
    fi
  fi

  # 5. The allocation-site hooks: the test programs, and exact counts from cfsites.Prog.
  if [[ $javac_rc -eq 0 ]]; then
    "$TOOL" -t cftest/Tracker --hooks entry,return,newarray,exc,sites -r "$W/javac-plain" "$W/rws" >"$W/rws.txt" 2>"$W/rws.err"
    "$J/java" -Xverify:all -Xbootclasspath/a:"$W/tracker" -cp "$W/rws" cfprog.Main >"$W/o3.txt" 2>"$W/e3.txt"
    rc3=$?
    if [[ $rc3 -eq 0 && $(field alloc_sites "$W/rws.txt") -gt 10 ]] && diff "$W/o1.txt" "$W/o3.txt" >/dev/null &&
       grep -q '^sites: new=[1-9]' "$W/e3.txt"; then
      ok "[$N] test programs with site hooks run under -Xverify:all with the original's output ($(field alloc_sites "$W/rws.txt") sites; $(grep '^sites:' "$W/e3.txt"))"
    else
      not_ok "[$N] test programs with site hooks (rc $rc3)"; diff "$W/o1.txt" "$W/o3.txt" | head; head -20 "$W/e3.txt" "$W/rws.err"
    fi
  fi
  mkdir -p "$W/sites-src/cfsites"
  cat >"$W/sites-src/cfsites/Prog.java" <<'EOF'
package cfsites;

/** Allocates every way the site hooks see, a known number of times. */
public class Prog {
    static final class P {
        final int v;
        P(int v) { this.v = v; }
    }

    public static void main(String[] args) throws Exception {
        long sum = 0;
        for (int i = 0; i < 10; i++) {
            P p = new P(i % 2 == 0 ? i : -i); // an uninitialised object across a branch
            sum += p.v;
            boolean[] z = new boolean[i];
            char[] c = new char[i];
            float[] f = new float[i];
            double[] d = new double[i];
            byte[] b = new byte[i];
            short[] s = new short[i];
            int[] n = new int[i];
            long[] l = new long[i];
            String[] str = new String[i];
            int[][] rows = new int[i][];
            int[][] m2 = new int[2][i];
            long[][][] m3 = new long[2][3][i];
            int[] copy = n.clone(); // Object.clone's copy: a call site, as allocateInstance
            sum += copy.length + z.length + c.length + f.length + d.length + b.length + s.length + n.length + l.length
                + str.length + rows.length + m2[1].length + m3[1][2].length;
            try {
                int[] neg = new int[i - 5]; // throws for i < 5: not counted
                sum += neg.length;
            } catch (NegativeArraySizeException e) {
                sum += 100;
            }
        }
        java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        P q = (P) ((sun.misc.Unsafe) f.get(null)).allocateInstance(P.class);
        System.out.println("sum=" + sum + " q=" + q.v);
    }
}
EOF
  "$J/javac" -nowarn -d "$W/sites-plain" "$W/sites-src/cfsites/Prog.java" >"$W/sites-javac.txt" 2>&1 &&
    "$TOOL" -t cftest/Tracker --hooks sites -r "$W/sites-plain" "$W/sites-rw" >"$W/sites.txt" 2>&1
  "$J/java" -Xverify:all -cp "$W/sites-plain" cfsites.Prog >"$W/s1.txt" 2>&1
  "$J/java" -Xverify:all -Xbootclasspath/a:"$W/tracker" -cp "$W/sites-rw" cfsites.Prog >"$W/s2.txt" 2>"$W/s2.err"
  rc=$?
  # 10 new P; 8 x 10 primitive arrays, 2 x 10 anewarray, 5 that did not throw; 10 of each
  # multianewarray; lengths 8 x 45 + 2 x 45 + (0+1+2+3+4); one allocateInstance, 10 clones
  want="sites: new=10 arrays=105 length=460 multi=20 allocinst=11"
  if [[ $rc -eq 0 && -s "$W/s1.txt" ]] && diff "$W/s1.txt" "$W/s2.txt" >/dev/null && grep -qx "$want" "$W/s2.err"; then
    ok "[$N] site hooks count exactly under -Xverify:all ($want)"
  else
    not_ok "[$N] site hook counts (rc=$rc, want '$want')"; cat "$W/sites-javac.txt" "$W/sites.txt" "$W/s1.txt" "$W/s2.txt" | head; head -20 "$W/s2.err"
  fi

  # 4. jsr/ret (versions 49 and 45.0), original and rewritten.
  rm -rf "$W/jsr" "$W/jsr-rw"
  if "$TOOL" --emit-jsr "$W/jsr"; then
    "$TOOL" -t cftest/Tracker -r "$W/jsr" "$W/jsr-rw" >"$W/jsr.txt" 2>&1
    for cls in cfjsr.Jsr cfjsr.Old; do
      "$J/java" -Xverify:all -cp "$W/jsr" $cls >"$W/j1.txt" 2>&1
      "$J/java" -Xverify:all -Xbootclasspath/a:"$W/tracker" -cp "$W/jsr-rw" $cls >"$W/j2.txt" 2>&1
      if [[ "$(tr '\n' ' ' <"$W/j1.txt")" == "106 42 " ]] && diff "$W/j1.txt" "$W/j2.txt" >/dev/null &&
         [[ $(field rewritten "$W/jsr.txt") == 2 ]]; then
        ok "[$N] hand-assembled $cls (jsr/ret, wide, tableswitch) runs the same after rewriting"
      else
        not_ok "[$N] $cls"; cat "$W/jsr.txt" "$W/j1.txt" "$W/j2.txt" | head -20
      fi
    done
  else
    not_ok "[$N] cf-rewrite --emit-jsr"
  fi
  rm -rf "$W"
done
