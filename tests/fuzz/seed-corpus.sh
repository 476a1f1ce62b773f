#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the fuzz targets' first seeds in DIR/NAME (tests/fuzz/seed-corpus.sh DIR) from
# real outputs: the agent's profiles (text and binary) and a JVM heap dump of a tiny
# program, cut short or sliced (the header and the first few KB of a heap dump segment);
# the unit tests' class files and JVM-style dump; the option strings of the integration
# tests; every socket command. The committed corpus (tests/fuzz/corpus) is these seeds
# plus what fuzzing found, minimised with libFuzzer's -merge=1 (see DEVELOPERS.md).
# Needs `make` done (build/) and a JDK.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
JDK=${JAVA_HOME:-$("$ROOT/tests/lib/jdks.sh" --first)}
B=$ROOT/build
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
mkdir -p "$OUT"/{classfile,options,socket_commands,jdk_dump,hprof_dump}

# cut FILE BYTES: the first BYTES of FILE
cut_to() { head -c "$2" "$1"; }
# slice FILE BYTES: the header and the first sub-records of FILE's first heap dump
# segment, up to BYTES of them, the segment's length made to fit
slice() {
  local f=$1 want=$2 seg="" end="" o
  while read -r o kind; do
    o=$((${o#@}))
    if [[ -z "$seg" ]]; then [[ "$kind" == HEAP_DUMP_SEGMENT ]] && seg=$o; continue; fi
    [[ "$kind" == sub ]] || break
    (( o - seg - 9 > want )) && break
    end=$o
  done < <("$B/hprof-dump" --offsets "$f" | awk '/^@0x/ { print $1, ($2 ~ /^[+]/ ? $3 : "sub") }')
  local len=$((end - seg - 9))
  head -c 31 "$f"
  printf '\x1c\x00\x00\x00\x00'
  printf "$(printf '\\x%02x' $((len >> 24 & 255)) $((len >> 16 & 255)) $((len >> 8 & 255)) $((len & 255)))"
  tail -c +$((seg + 10)) "$f" | head -c "$len"
  printf '\x2c\x00\x00\x00\x00\x00\x00\x00\x00'
}

# ---- a tiny program, profiled every way, and its JVM heap dump
cat >Tiny.java <<'J'
import java.util.*;
public class Tiny {
  static Object keep;
  public static void main(String[] a) throws Exception {
    List<Object> l = new ArrayList<>();
    for (int i = 0; i < 2000; i++) { l.add(new int[i % 7]); l.add("s" + i); }
    keep = l;
    long s = 0; for (int i = 0; i < 3000000; i++) s += Integer.toString(i).hashCode();
    synchronized (Tiny.class) { Tiny.class.wait(1); }
    System.out.println(s);
    if (a.length > 0)
      java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
          .dumpHeap(a[0], true);
  }
}
J
"$JDK/bin/javac" Tiny.java
for o in cpu=samples,format=b,file=cs.hprof heap=sites,format=b,file=hs.hprof heap=dump,format=b,file=hd.hprof \
         cpu=samples,file=cs.txt heap=sites,file=hs.txt cpu=times,file=ct.txt monitor=y,file=mo.txt \
         heap=dump,file=hd.txt; do
  "$JDK/bin/java" "-agentpath:$B/libhprof.so=$o,depth=3" -cp . Tiny >/dev/null 2>&1
done
"$JDK/bin/java" -cp . Tiny jvm.hprof >/dev/null
H=$OUT/hprof_dump
cp cs.hprof "$H/cpu-samples.hprof"
cut_to hs.hprof 20000 >"$H/heap-sites-cut.hprof"
cut_to hd.hprof 20000 >"$H/heap-dump-cut.hprof"
slice hd.hprof 24000 >"$H/heap-dump-slice.hprof"
slice jvm.hprof 24000 >"$H/jvm-dump-slice.hprof"
cut_to jvm.hprof 8000 >"$H/jvm-dump-cut.hprof"
for t in cs hs ct mo hd; do cut_to $t.txt 3000 >"$H/$t-cut.txt"; done
cut_to "$ROOT/tests/data/original/cpu-samples.hprof" 16000 >"$H/original-cpu-samples-cut.hprof"
slice "$ROOT/tests/data/original/heap-dump.hprof" 16000 >"$H/original-heap-dump-slice.hprof"

D=$OUT/jdk_dump
slice jvm.hprof 24000 >"$D/jvm-dump-slice.hprof"
slice jvm.hprof 4000 >"$D/jvm-dump-slice-small.hprof"
cut_to jvm.hprof 8000 >"$D/jvm-dump-cut.hprof"
JDR_TEST_DUMP="$D/unit-dump.hprof" "$B/tests/test_jdk_dump_reader" >/dev/null || true

# ---- class files: the unit tests' own, the test programs', the Tracker, the jsr class
CF_TEST_DUMP="$OUT/classfile" "$B/tests/test_classfile" >/dev/null || true
"$JDK/bin/javac" -nowarn -d cls "$ROOT"/tests/java/*.java
for f in $(find cls -name '*.class' -size -12k | sort | head -n 20); do cp "$f" "$OUT/classfile/test-$(basename "$f")"; done
cp "$B/tracker/hprof/Tracker.class" "$OUT/classfile/Tracker.class"
"$B/cf-rewrite" --emit-jsr jsr >/dev/null && cp jsr/cfjsr/Jsr.class "$OUT/classfile/jsr.class"

# ---- options: every option string the integration tests give, and a few more
i=0
{ grep -ohE 'agent "[^"]*"|agent [a-z]+=[^ )]*' "$ROOT"/tests/integration/*.sh | sed -E 's/^agent "?//; s/"$//' | grep -v '\$'
  printf '%s\n' help "" "heap=all,cpu=times,monitor=y,format=a,file=x.txt" "net=localhost:9000,format=b" \
    "heap=sites,alloc_sample=4096,cutoff=1e-3,depth=65535,interval=1" "cpu=old,lineno=n,thread=y,doe=n,msa=y" \
    "gc_okay=y,force=n,verbose=n,primfields=n,primarrays=n,logflags=1,X=2"; } | sort -u |
  while IFS= read -r o; do printf '%s' "$o" >"$OUT/options/opt-$i"; i=$((i + 1)); done

# ---- socket commands: each kind, a stream of all, and bad ones
S=$OUT/socket_commands
cmd() { printf "$(printf '\\x%02x' "$1" 0 0 0 "$2" 0 0 0 $(( ${#3} / 2 )))$(printf '%s' "$3" | sed 's/../\\x&/g')"; }
cmd 1 1 "" >"$S/force-gc"; cmd 2 2 "" >"$S/dump-heap"; cmd 4 4 "" >"$S/heap-summary"; cmd 5 5 "" >"$S/exit"
cmd 6 6 "" >"$S/dump-traces"; cmd 255 9 "" >"$S/eof"
cmd 3 3 "00073dcccccd" >"$S/alloc-sites"; cmd 7 7 "00003f800000" >"$S/cpu-samples"
for c in 0001 0002 0005 000300000000 000450000010 00060004; do cmd 8 8 "$c" >"$S/control-$c"; done
cat "$S"/* >"$TMP/all"; mv "$TMP/all" "$S/all"
cmd 9 10 "" >"$S/bad-tag"; cmd 3 11 "00ff7fc00000" >"$S/bad-cutoff"; cmd 8 12 "0007" >"$S/bad-control"
printf '\x01\x00\x00\x00\x01\x00\x00\x01\x00' >"$S/desync"; cmd 3 13 "0007" >"$S/short-body"
echo "seeds: $(find "$OUT" -type f | wc -l) files, $(du -sk "$OUT" | cut -f1) KiB in $OUT"
