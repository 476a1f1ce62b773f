#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tests of tools/hprof-dump: the original agent's example files, and hand-made files
# (built below from hex) that --check must accept or reject.
# The runner exports HPROF_DUMP (build/hprof-dump) and HPROF_ROOT (the checkout).
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
DUMP=${HPROF_DUMP:-$ROOT/build/hprof-dump}
DATA=$ROOT/tests/data/original
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-dump-test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok()     { echo "ok - hprof-dump: $*"; }
not_ok() { echo "not ok - hprof-dump: $*"; }
check()  { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

if [[ ! -x "$DUMP" ]]; then
  not_ok "binary $DUMP not built"
  exit 1
fi

# ---------------------------------------------------------------- hex builders
# Each builder appends hex to OUT (printf -v: no subshell, a fork each cost seconds).
ID=4                                   # identifier size of the file being built
OUT=""
u1()  { printf -v _x '%02x' "$(( $1 & 0xff ))"; OUT+=$_x; }
u2()  { printf -v _x '%04x' "$(( $1 & 0xffff ))"; OUT+=$_x; }
u4()  { printf -v _x '%08x' "$(( $1 & 0xffffffff ))"; OUT+=$_x; }
u8()  { printf -v _x '%016x' "$(( $1 ))"; OUT+=$_x; }
id()  { if [[ $ID == 8 ]]; then u8 "$1"; else u4 "$1"; fi; }
txt() { local LC_ALL=C s=$1 i; for ((i = 0; i < ${#s}; i++)); do printf -v _x '%02x' "'${s:i:1}"; OUT+=$_x; done; }
x()   { OUT+=$1; }                     # hex as it is
# b BUILDER ARG [BUILDER ARG...]: one-argument builders in a row (b u4 1 id 0x100 x 00)
b()   { while (( $# >= 2 )); do "$1" "$2"; shift 2; done; }
# hex BUILDER ARGS...: what BUILDER appends, in REPLY instead (OUT left as it was)
hex() { local saved=$OUT; OUT=""; "$@"; REPLY=$OUT; OUT=$saved; }
# rec TAG BODYHEX [LENGTH]: a record (time 0); LENGTH overrides the true body length.
rec() { u1 "$1"; u4 0; u4 "${3:-$(( ${#2} / 2 ))}"; OUT+=$2; }
header() { txt "${1:-JAVA PROFILE 1.0.2}"; u1 0; u4 "${2:-$ID}"; u8 0x18c00000000; }
# emit FILE: writes the bytes of OUT, and empties it
emit() { printf '%s' "$OUT" | xxd -r -p >"$1"; OUT=""; }

str()        { hex b id "$1" txt "$2"; rec 0x01 "$REPLY"; }                               # id text
load_class() { hex b u4 "$1" id "$2" u4 "$3" id "$4"; rec 0x02 "$REPLY"; }              # serial obj trace name
frame()      { hex b id "$1" id "$2" id "$3" id "$4" u4 "$5" u4 "$6"; rec 0x04 "$REPLY"; }
trace()      {
  local s=$1 t=$2 f saved=$OUT; shift 2
  OUT=""; u4 "$s"; u4 "$t"; u4 $#; for f; do id "$f"; done
  local body=$OUT; OUT=$saved; rec 0x05 "$body"
}
start_thread() { hex b u4 "$1" id "$2" u4 "$3" id "$4" id "$5" id "$6"; rec 0x0A "$REPLY"; }

# The valid file, appended to OUT. V_* variables change one detail for the broken variants.
valid() {
  local version=${V_VERSION:-JAVA PROFILE 1.0.2}
  header "$version"
  str 1 "Foo"; str 2 "main"; str 3 "()V"; str 4 "Foo.java"; str 5 "main thread"
  str 7 "next"; str 8 "x"; str 9 "Foo[]"; str 10 "COUNT"; str 11 "Bar"; str 12 "y"
  load_class 1 0x100 0 "${V_CLASS_NAME:-1}"
  load_class 2 0x101 0 9
  load_class 3 0x102 0 11
  start_thread 1 0x300 0 5 2 0
  frame 0x50 2 3 4 1 12
  trace 1 1 "${V_FRAME:-0x50}"
  hex b u4 2 u2 4; rec 0x0E "$REPLY"                                              # CONTROL_SETTINGS
  hex b u4 "${V_TOTAL:-5}" u4 1 u4 5 u4 1; rec 0x0D "$REPLY"                      # CPU_SAMPLES
  hex b u2 0 u4 0x38d1b717 u4 16 u4 1 u8 32 u8 2 u4 2 u1 0 u4 1 u4 1 u4 16 u4 1 u4 32 u4 2 u1 2 u4 2 u4 1 u4 24 u4 1 u4 24 u4 1
  rec 0x06 "$REPLY"
  hex b u4 16 u4 1 u8 32 u8 2; rec 0x07 "$REPLY"                                  # HEAP_SUMMARY
  local saved=$OUT; OUT=""
  b x 01 id 0x200 id 0x1                                                           # ROOT_JNI_GLOBAL
  b x 08 id 0x300 u4 1 u4 1                                                        # ROOT_THREAD_OBJECT
  b x 03 id 0x201 u4 1 u4 0                                                        # ROOT_JAVA_FRAME
  b x 21 id 0x200 u4 1 id "${V_INST_CLASS:-0x100}" u4 "${V_NBYTES:-$((ID + 4))}" id "${V_NEXT:-0x201}" u4 7 x "${V_EXTRA:-}"
  b x 21 id 0x201 u4 0 id 0x100 u4 $((ID + 4)) id 0 u4 8
  b x 21 id 0x300 u4 0 id 0x100 u4 $((ID + 4)) id 0 u4 9
  b x 21 id 0x204 u4 0 id 0x102 u4 $((ID + 12)) u8 42 id 0x200 u4 1               # Bar: y, then Foo's next, x
  b x 20 id 0x100 u4 0 id 0 id 0 id 0 id 0 id 0 id 0 u4 $((ID + 4)) u2 0
  b u2 1 id 10 u1 10 u4 2 u2 2 id 7 u1 2 id 8 u1 10                                # static COUNT, fields next x
  b x 20 id 0x101 u4 0 id 0 id 0 id 0 id 0 id 0 id 0 u4 0 u2 0 u2 0 u2 0
  b x 20 id 0x102 u4 0 id 0x100 id 0 id 0 id 0 id 0 id 0 u4 8 u2 0 u2 0 u2 1 id 12 u1 11
  b x 22 id 0x202 u4 0 u4 2 id 0x101 id 0x200 id 0                                 # OBJ_ARRAY_DUMP
  b x 05 id 0x100                                                                  # ROOT_STICKY_CLASS
  b x 23 id 0x203 u4 0 u4 3 u1 10 u4 1 u4 2 u4 3                                   # PRIM_ARRAY_DUMP int[3]
  local h=${OUT%"${V_CUT:-}"}
  OUT=$saved
  if [[ "$version" == *1.0.1 ]]; then
    rec 0x0C "$h"
  else
    rec 0x1C "$h"
    [[ -n "${V_NO_END:-}" ]] || rec 0x2C ""
  fi
  hex u4 1; rec 0x0B "$REPLY"                                                      # END_THREAD
  hex u4 2; rec 0x03 "$REPLY"                                                      # UNLOAD_CLASS
}

# run_dump OUT ARGS...: runs the tool, output (stdout+stderr) in OUT, exit code in RC
run_dump() { local out=$1; shift; "$DUMP" "$@" >"$out" 2>&1; RC=$?; }
# expect_check NAME RC REGEX FILE [OPTIONS]: --check exits RC and prints a line matching REGEX
expect_check() {
  local name=$1 want=$2 re=$3 file=$4; shift 4
  run_dump "$WORK/out.txt" --check "$@" "$file"
  if [[ $RC -eq $want ]] && grep -Eq -- "$re" "$WORK/out.txt"; then
    ok "$name"
  else
    not_ok "$name (exit $RC, want $want; output:)"; sed 's/^/#   /' "$WORK/out.txt" | head -8
  fi
}

# ---------------------------------------------------------------- original files
for f in cpu-samples heap-sites heap-dump; do
  expect_check "$f.hprof passes --check --lenient" 0 "ok, [0-9]+ records" "$DATA/$f.hprof" --lenient
  run_dump "$WORK/$f.txt" "$DATA/$f.hprof"
  check "$f.hprof prints with exit 0" test "$RC" -eq 0
  run_dump "$WORK/$f.sum" --summary "$DATA/$f.hprof"
  # one line per record and sub-record (+ SITE / SAMPLE lines + HEADER)
  recs=$(sed -n 's/^records_total=//p' "$WORK/$f.sum"); subs=$(sed -n 's/^subrecords_total=//p' "$WORK/$f.sum")
  sites=$(sed -n 's/^alloc_sites=//p' "$WORK/$f.sum"); samples=$(sed -n 's/^cpu_sample_traces=//p' "$WORK/$f.sum")
  check "$f.hprof: one printed line per record/sub-record" \
    test "$(wc -l <"$WORK/$f.txt")" -eq $(( recs + subs + sites + samples + 1 ))
done

S=$WORK/cpu-samples.sum; T=$WORK/cpu-samples.txt
check "cpu-samples: 10 samples in 7 traces" grep -qx 'cpu_samples_total=10' "$S"
check "cpu-samples: cpu_sample_traces=7" grep -qx 'cpu_sample_traces=7' "$S"
check "cpu-samples: record counts" grep -qx 'records STRING=913 LOAD_CLASS=867 FRAME=20 TRACE=7 START_THREAD=5 END_THREAD=4 CPU_SAMPLES=1 CONTROL_SETTINGS=1' "$S"
check "cpu-samples: header line" grep -qx 'HEADER version="JAVA PROFILE 1.0.2" idsize=4 time_ms=1795320302894' "$T"
check "cpu-samples: CPU_SAMPLES line" grep -qx 'CPU_SAMPLES total=10 ntraces=7' "$T"
check "cpu-samples: top sample resolved" grep -qx '  SAMPLE count=3 trace=300031 top=java.lang.Integer.getChars' "$T"
check "cpu-samples: frame line" grep -qx 'FRAME id=0x70000059 method=spin sig=(I)I source=Sample.java class=100843(Sample) line=5' "$T"
check "cpu-samples: trace line" grep -qx 'TRACE serial=300033 thread=0 nframes=3 frames=0x7000005d,0x7000005b,0x7000005c' "$T"
check "cpu-samples: thread line" grep -qx 'START_THREAD serial=200001 obj=0x50000332 trace=300000 name="main" group="main" parent="system"' "$T"
expect_check "cpu-samples: strict --check reports trace 300000 never written" 1 \
  'LOAD_CLASS uses 33 trace serials that no TRACE defines: 300000 \(819 uses\)' "$DATA/cpu-samples.hprof"

S=$WORK/heap-sites.sum; T=$WORK/heap-sites.txt
check "heap-sites: 885 sites" grep -qx 'alloc_sites=885' "$S"
check "heap-sites: ALLOC_SITES line" grep -qx 'ALLOC_SITES flags=0x0 cutoff=-1.8891e+26 live_bytes=111648 live_objs=938 alloc_bytes=111896 alloc_objs=948 nsites=885' "$T"
check "heap-sites: first SITE line" grep -qx '  SITE array=10 class=100811(int\[\]) trace=300047 live_bytes=3200 live_objs=40 alloc_bytes=3200 alloc_objs=40' "$T"
expect_check "heap-sites: strict --check reports the undefined class serial 100866" 1 \
  'ALLOC_SITES uses 1 class serial that no LOAD_CLASS defines: 100866' "$DATA/heap-sites.hprof"

S=$WORK/heap-dump.sum; T=$WORK/heap-dump.txt
check "heap-dump: one dump" grep -qx 'heap_dumps=1' "$S"
check "heap-dump: sub-record counts" grep -qx 'subrecords ROOT_JNI_GLOBAL=875 ROOT_JNI_LOCAL=1 ROOT_JAVA_FRAME=13 ROOT_STICKY_CLASS=1237 ROOT_THREAD_BLOCK=7 ROOT_THREAD_OBJECT=8 CLASS_DUMP=871 INSTANCE_DUMP=9640 OBJ_ARRAY_DUMP=1575 PRIM_ARRAY_DUMP=2535 ROOT_UNKNOWN=41' "$S"
check "heap-dump: instance line" grep -qx '  INSTANCE_DUMP obj=0x50000332 trace=300000 class=0x500002fc(java.lang.Thread) nbytes=95' "$T"
check "heap-dump: segment and end" grep -qx 'HEAP_DUMP_END' "$T"
run_dump "$WORK/hd-check.txt" --check --lenient "$DATA/heap-dump.hprof"
check "heap-dump: every heap reference resolves, every instance size matches" \
  bash -c "grep -q ': ok, [0-9]* records' '$WORK/hd-check.txt' && ! grep -E '^error' '$WORK/hd-check.txt'"

# ---------------------------------------------------------------- hand-made valid files
valid; emit "$WORK/valid.hprof"
expect_check "hand-made valid file passes strict --check" 0 "ok, 25 records$" "$WORK/valid.hprof"
run_dump "$WORK/valid.txt" "$WORK/valid.hprof"
check "valid: prints with exit 0" test "$RC" -eq 0
for line in 'STRING id=0x5 "main thread"' \
            'LOAD_CLASS serial=1 obj=0x100 trace=0 name="Foo"' \
            'FRAME id=0x50 method=main sig=()V source=Foo.java class=1(Foo) line=12' \
            'TRACE serial=1 thread=1 nframes=1 frames=0x50' \
            'START_THREAD serial=1 obj=0x300 trace=0 name="main thread" group="main" parent=-' \
            'CONTROL_SETTINGS flags=0x2 depth=4' \
            '  SAMPLE count=5 trace=1 top=Foo.main' \
            'ALLOC_SITES flags=0x0 cutoff=0.0001 live_bytes=16 live_objs=1 alloc_bytes=32 alloc_objs=2 nsites=2' \
            '  SITE array=2 class=2(Foo[]) trace=1 live_bytes=24 live_objs=1 alloc_bytes=24 alloc_objs=1' \
            'HEAP_SUMMARY live_bytes=16 live_objs=1 alloc_bytes=32 alloc_objs=2' \
            'HEAP_DUMP_SEGMENT length=' \
            '  ROOT_THREAD_OBJECT obj=0x300 thread=1 trace=1' \
            '  INSTANCE_DUMP obj=0x204 trace=0 class=0x102(Bar) nbytes=16' \
            '  CLASS_DUMP obj=0x100 name=Foo trace=0 super=0x0 loader=0x0 signers=0x0 domain=0x0 instance_size=8 cp=- statics=COUNT:int=2 fields=next:object,x:int' \
            '  OBJ_ARRAY_DUMP obj=0x202 trace=0 n=2 class=0x101(Foo[])' \
            '  PRIM_ARRAY_DUMP obj=0x203 trace=0 n=3 type=int' \
            'END_THREAD serial=1' 'UNLOAD_CLASS serial=2 name="Foo[]"'; do
  check "valid: prints '$line'" grep -qF -- "$line" "$WORK/valid.txt"
done

ID=8 valid; emit "$WORK/valid8.hprof"
expect_check "hand-made valid file with 8-byte IDs passes strict --check" 0 "ok, 25 records$" "$WORK/valid8.hprof"
V_VERSION='JAVA PROFILE 1.0.1' valid; emit "$WORK/valid101.hprof"
expect_check "hand-made JAVA PROFILE 1.0.1 file with HEAP_DUMP passes strict --check" 0 "ok, 24 records$" "$WORK/valid101.hprof"
run_dump "$WORK/valid.sum" --summary "$WORK/valid.hprof"
check "valid: --summary counts" grep -qx 'records STRING=11 LOAD_CLASS=3 UNLOAD_CLASS=1 FRAME=1 TRACE=1 ALLOC_SITES=1 HEAP_SUMMARY=1 START_THREAD=1 END_THREAD=1 CPU_SAMPLES=1 CONTROL_SETTINGS=1 HEAP_DUMP_SEGMENT=1 HEAP_DUMP_END=1' "$WORK/valid.sum"
check "valid: --summary cpu total" grep -qx 'cpu_samples_total=5' "$WORK/valid.sum"
run_dump "$WORK/pipe.txt" --check - <"$WORK/valid.hprof"
check "valid file read from a pipe passes --check" test "$RC" -eq 0
run_dump "$WORK/pipe-print.txt" - < <(cat "$WORK/valid.hprof")
check "printing from a pipe gives the same lines" cmp -s "$WORK/pipe-print.txt" "$WORK/valid.txt"

# ---------------------------------------------------------------- broken files
hex header; H=$REPLY
valid; emit "$WORK/b.hprof"; head -c -3 "$WORK/b.hprof" >"$WORK/trunc.hprof"
expect_check "rejects a truncated last record" 1 "truncated record: UNLOAD_CLASS record of length 4, but only 1 bytes follow" "$WORK/trunc.hprof"
OUT=$H; str 1 Foo; x 0200000000; emit "$WORK/b.hprof"
expect_check "rejects a truncated record header" 1 "file ends inside a record header \(5 of 9 bytes\)" "$WORK/b.hprof"
OUT=$H; str 1 Foo; hex b u4 1 id 0x100 u4 0 id 1 x 00; rec 0x02 "$REPLY"; emit "$WORK/b.hprof"
expect_check "rejects a record length longer than its content" 1 "LOAD_CLASS: record length 17, but its content takes 16 bytes" "$WORK/b.hprof"
OUT=$H; hex u4 2; rec 0x0E "$REPLY"; emit "$WORK/b.hprof"
expect_check "rejects a record length shorter than its content" 1 "CONTROL_SETTINGS: record length 4, but its content takes 6 bytes" "$WORK/b.hprof"
OUT=$H; hex b u4 1 u4 0 u4 2 id 0x50; rec 0x05 "$REPLY"; emit "$WORK/b.hprof"
expect_check "rejects a TRACE whose length disagrees with its frame count" 1 "TRACE: record length 16, but its content takes 20 bytes" "$WORK/b.hprof"
V_FRAME=0x99 valid; emit "$WORK/b.hprof"
expect_check "rejects an undefined frame in a trace" 1 "TRACE uses 1 frame ID that no FRAME defines: 0x99" "$WORK/b.hprof"
V_CLASS_NAME=0x77 valid; emit "$WORK/b.hprof"
expect_check "rejects an undefined string" 1 "LOAD_CLASS uses 1 string ID that no STRING defines: 0x77" "$WORK/b.hprof"
header 'JAVA PROFILE 9.9'; str 1 Foo; emit "$WORK/b.hprof"
expect_check "rejects a bad header name" 1 'bad header: format name "JAVA PROFILE 9.9"' "$WORK/b.hprof"
header 'JAVA PROFILE 1.0.2' 3; str 1 Foo; emit "$WORK/b.hprof"
expect_check "rejects a bad identifier size" 1 "bad header: identifier size 3" "$WORK/b.hprof"
txt 'JAVA PRO'; emit "$WORK/b.hprof"
expect_check "rejects a file that ends in the header" 1 "bad header" "$WORK/b.hprof"
printf 'JAVA PROFILE 1.0.1, created Sun Nov 22 04:05:01 2026\n\nTRACE 300000:\n' >"$WORK/java.hprof.txt"
expect_check "a text profile: says what it is and what to use" 1 \
  "this is an HPROF text profile \(format=a, like java.hprof.txt\), not the binary format: read it as text" "$WORK/java.hprof.txt"
run_dump "$WORK/out.txt" "$WORK/java.hprof.txt"
check "... also when printing (exit 1)" bash -c "[[ $RC -eq 1 ]] && grep -q 'hprof-dump reads binary profiles (format=b' '$WORK/out.txt'"
printf 'hello\nworld\n' >"$WORK/t.txt"
expect_check "another text file: says it is text" 1 "this is a text file, not an HPROF binary file" "$WORK/t.txt"
OUT=$H; str 1 Foo; rec 0x4f 010203; str 2 Bar; emit "$WORK/b.hprof"
expect_check "rejects an unknown tag" 1 "unknown record tag 0x4f \(length 3\)" "$WORK/b.hprof"
OUT=$H; str 1 Foo; str 1 Fop; str 2 Bar; str 2 Bar; emit "$WORK/b.hprof"
expect_check "rejects a conflicting duplicate definition" 1 "STRING 0x1 defined again with different content" "$WORK/b.hprof"
expect_check "rejects an identical duplicate STRING" 1 "STRING 0x2 defined again, the same \(first at 0x" "$WORK/b.hprof"
expect_check "... also under --lenient" 1 "STRING 0x2 defined again, the same" "$WORK/b.hprof" --lenient
run_dump "$WORK/out.txt" --summary "$WORK/b.hprof"
check "--summary counts both duplicates" grep -qx 'duplicate_definitions=2' "$WORK/out.txt"
# The empty trace written twice, as format=b files did (the file header, then a section).
OUT=$H; trace 300000 0; str 1 Foo; load_class 1 0x100 300000 1; trace 300000 0; emit "$WORK/b.hprof"
expect_check "rejects the empty trace 300000 defined twice" 1 "TRACE serial 300000 defined again, the same \(first at 0x" "$WORK/b.hprof"
OUT=$H; str 1 m; str 2 s; str 3 Foo; load_class 7 0x100 0 3; frame 0x50 1 2 0 7 1; frame 0x50 1 2 0 7 1; emit "$WORK/b.hprof"
expect_check "rejects an identical duplicate FRAME" 1 "FRAME 0x50 defined again, the same" "$WORK/b.hprof"
OUT=$H; str 1 Foo; load_class 7 0x100 0 1; load_class 7 0x100 0 1; emit "$WORK/b.hprof"
expect_check "rejects an identical duplicate LOAD_CLASS" 1 "LOAD_CLASS serial 7 defined again, the same" "$WORK/b.hprof"
OUT=$H; str 1 Foo; load_class 7 0x100 0 1; load_class 8 0x100 0 1; emit "$WORK/b.hprof"
expect_check "rejects a class object ID loaded under two serials" 1 "LOAD_CLASS: class object ID 0x100 defined again, by serial 8 \(first by serial 7\)" "$WORK/b.hprof"
OUT=$H; str 5 main; start_thread 1 0x300 0 5 0 0; start_thread 1 0x300 0 5 0 0; emit "$WORK/b.hprof"
expect_check "rejects an identical duplicate START_THREAD" 1 "START_THREAD serial 1 defined again, the same" "$WORK/b.hprof"
OUT=$H; str 1 m; str 2 s; str 3 Foo; load_class 7 0x100 0 3; frame 0x50 1 2 0 7 1; frame 0x50 1 2 0 7 2; emit "$WORK/b.hprof"
expect_check "rejects a FRAME defined again with another line number" 1 "FRAME 0x50 defined again with different content \(first at 0x" "$WORK/b.hprof"
OUT=$H; str 1 m; str 2 s; frame 0x50 1 2 0 7 1; str 3 Foo; load_class 7 0x100 0 3; emit "$WORK/b.hprof"
expect_check "rejects a class serial used before its LOAD_CLASS" 1 "FRAME uses 1 class serial before the LOAD_CLASS that defines it: 7 \(LOAD_CLASS at 0x" "$WORK/b.hprof"
expect_check "--lenient turns it into a warning" 0 "ok, 5 records, 1 warning" "$WORK/b.hprof" --lenient
V_TOTAL=4 valid; emit "$WORK/b.hprof"
expect_check "rejects CPU_SAMPLES counts above the total" 1 "add up to 5, more than the total 4" "$WORK/b.hprof"

# heap dumps
V_NEXT=0x999 valid; emit "$WORK/b.hprof"
expect_check "rejects a heap reference to an object that is not dumped" 1 "INSTANCE_DUMP refers to 1 object ID that is not dumped in this heap dump: 0x999" "$WORK/b.hprof"
expect_check "... also under --lenient" 1 "not dumped in this heap dump: 0x999" "$WORK/b.hprof" --lenient
run_dump "$WORK/out.txt" --check - <"$WORK/b.hprof"
check "... also when read from a pipe" grep -q "not dumped in this heap dump: 0x999" "$WORK/out.txt"
V_INST_CLASS=0x555 valid; emit "$WORK/b.hprof"
expect_check "rejects an instance whose class has no CLASS_DUMP" 1 "INSTANCE_DUMP refers to 1 class ID that has no CLASS_DUMP in this heap dump: 0x555" "$WORK/b.hprof"
V_NBYTES=$((ID + 5)) V_EXTRA=00 valid; emit "$WORK/b.hprof"
expect_check "rejects an instance size that disagrees with its class's fields" 1 "INSTANCE_DUMP 0x200: 9 bytes of field values, but class 0x100 and its supers declare 8" "$WORK/b.hprof"
V_CUT=00000003 valid; emit "$WORK/b.hprof"
expect_check "rejects a sub-record running past its record" 1 "PRIM_ARRAY_DUMP sub-record runs past the end of its record" "$WORK/b.hprof"
V_NO_END=1 valid; emit "$WORK/b.hprof"
expect_check "rejects HEAP_DUMP_SEGMENTs without HEAP_DUMP_END" 1 "not closed by HEAP_DUMP_END" "$WORK/b.hprof"
OUT=$H; hex b u1 0x44 id 1; rec 0x1C "$REPLY"; rec 0x2C ""; emit "$WORK/b.hprof"
expect_check "rejects an unknown heap sub-record tag" 1 "unknown sub-record tag 0x44" "$WORK/b.hprof"
header 'JAVA PROFILE 1.0.1'; hex b x 05 id 1; rec 0x1C "$REPLY"; rec 0x2C ""; emit "$WORK/b.hprof"
expect_check "rejects HEAP_DUMP_SEGMENT in a 1.0.1 file" 1 'HEAP_DUMP_SEGMENT in a "JAVA PROFILE 1.0.1" file' "$WORK/b.hprof"
OUT=$H; rec 0x2C ""; emit "$WORK/b.hprof"
expect_check "rejects HEAP_DUMP_END without segments" 1 "HEAP_DUMP_END without a HEAP_DUMP_SEGMENT" "$WORK/b.hprof"
OUT=$H; hex b x 23 id 0x203 u4 0 u4 1 u1 10 u4 1 x 23 id 0x203 u4 0 u4 1 u1 10 u4 1; rec 0x1C "$REPLY"; rec 0x2C ""
emit "$WORK/b.hprof"
expect_check "rejects an object dumped twice" 1 "object ID 0x203 is dumped 2 times" "$WORK/b.hprof"
hex b x 20 id 0x101 u4 0 id 0 id 0 id 0 id 0 id 0 id 0 u4 0 u2 0 u2 0 u2 0; CD=$REPLY
OUT=$H; str 9 'Foo[]'; load_class 2 0x101 0 9; rec 0x1C "$CD"; rec 0x1C "$CD"; rec 0x2C ""; emit "$WORK/b.hprof"
expect_check "rejects a class dumped twice in one heap dump" 1 "object ID 0x101 is dumped 2 times" "$WORK/b.hprof"

# ---------------------------------------------------------------- command line
run_dump "$WORK/out.txt"
check "no file: exit 2" test "$RC" -eq 2
run_dump "$WORK/out.txt" --check "$WORK/does-not-exist.hprof"
check "missing file: exit 2" test "$RC" -eq 2
run_dump "$WORK/out.txt" --bogus "$WORK/valid.hprof"
check "unknown option: exit 2" test "$RC" -eq 2
run_dump "$WORK/out.txt" --offsets "$WORK/valid.hprof"
check "--offsets prefixes the file offset" grep -qE '^@0x1f \+0us STRING id=0x1 "Foo"$' "$WORK/out.txt"
