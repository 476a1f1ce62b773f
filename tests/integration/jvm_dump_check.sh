#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-dump --check passes the JVM's own heap dumps (jcmd GC.heap_dump, and hprof heap,
# which asks the JVM for the same): what HotSpot writes by design is accepted without a
# word (no START_THREAD, its empty trace named before it is written), what it writes by a
# defect is a warning that names HotSpot and the JDK (array classes loaded twice in JDK
# 17, object arrays of the CDS archived heap that refer to objects left out), nothing is
# an error. With CDS off the JDK 25 dump has no warning at all. The same dump with a
# record HotSpot never writes is not the JVM's: those defects are errors there.
source "$(dirname "$0")/../lib/common.sh"

JCMD=$JAVA_HOME/bin/jcmd HPROF=${HPROF_BIN:-$HPROF_ROOT/build}/hprof

# dump_of NAME [java options]: runs AttachTarget until NAME.hprof is written by jcmd (and
# NAME-tool.hprof by hprof heap when the tool is built), then lets it end.
dump_of() {
  local name=$1; shift
  touch "$WORK/$name.flag"
  # no timeout wrapper: jcmd needs the JVM's own pid, and the program ends by itself (100 s)
  "$JAVA" -Xcheck:jni "$@" -cp "$TEST_CLASSES" AttachTarget "$WORK/$name.flag" 100 0 >"$WORK/$name.out" 2>&1 &
  local pid=$!
  for _ in $(seq 300); do grep -q ready "$WORK/$name.out" 2>/dev/null && break; sleep 0.1; done
  "$JCMD" $pid GC.heap_dump "$WORK/$name.hprof" >"$WORK/$name.jcmd" 2>&1
  [[ -x $HPROF ]] && "$HPROF" heap $pid "$WORK/$name-tool.hprof" >"$WORK/$name.tool" 2>&1
  rm -f "$WORK/$name.flag"
  wait $pid
}

# verdict FILE: hprof-dump --check's stdout and stderr in FILE.check, its status in $RC.
verdict() { "$HPROF_DUMP" --check "$1" >"$1.check" 2>&1; RC=$?; }
# only_hotspot_warnings FILE.check: no error, and each warning names HotSpot and a JDK.
only_hotspot_warnings() {
  ! grep -q '^error' "$1" && ! grep '^warning' "$1" | grep -vqE "HotSpot's heap dumper.* JDK [0-9]+"
}

dump_of cds
if [[ ! -s $WORK/cds.hprof ]]; then
  not_ok "jcmd GC.heap_dump wrote no dump: $(tr -d '\0' <"$WORK/cds.jcmd" | head -c 300)"
  exit 0
fi
verdict "$WORK/cds.hprof"
check "jcmd's dump passes --check (status $RC): $(tail -n 1 "$WORK/cds.hprof.check" | sed "s|^$WORK/||")" \
  bash -c "[[ $RC -eq 0 ]] && grep -qE 'cds.hprof: ok, [0-9]+ records' '$WORK/cds.hprof.check'"
check "... its only warnings name HotSpot's dumper and the JDK" only_hotspot_warnings "$WORK/cds.hprof.check"
check "... no START_THREAD needed: the threads are its ROOT_THREAD_OBJECTs'" \
  bash -c "! grep -q 'START_THREAD defines' '$WORK/cds.hprof.check'"
if [[ $JDK_FEATURE -eq 17 ]]; then
  check "JDK 17: its array classes loaded twice are one warning naming the JDK" \
    grep -q "array classes loaded again, each under a second serial with the same name: HotSpot's heap dumper in JDK 17" \
    "$WORK/cds.hprof.check"
fi

# The same dump with one record more after its header: CONTROL_SETTINGS, as this agent's
# files (its heap dumps too) and the original's begin, or HEAP_SUMMARY, which HotSpot's
# dumper never writes. Neither is the JVM's own file then, so the JVM's defects it holds
# are errors: the objects left out (both JDKs), the array classes loaded twice (JDK 17).
# with_record FILE OUT BYTES: OUT is FILE with BYTES (printf's escapes) after its header
# (the format name and its NUL, the ID size, the time).
with_record() {
  local n; n=$(( $(head -c 64 "$1" | tr '\0' '\n' | head -n 1 | wc -c) + 12 ))
  { head -c "$n" "$1"; printf "$3"; tail -c +$((n + 1)) "$1"; } >"$2"
}
with_record "$WORK/cds.hprof" "$WORK/ours.hprof" '\x0e\0\0\0\0\0\0\0\x06\0\0\0\0\0\0'
verdict "$WORK/ours.hprof"
check "with a CONTROL_SETTINGS (a profiler's file): its objects left out are errors (status $RC)" \
  bash -c "[[ $RC -eq 1 ]] && grep -q '^error: .*OBJ_ARRAY_DUMP refers to .* not dumped' '$WORK/ours.hprof.check'"
if [[ $JDK_FEATURE -eq 17 ]]; then
  check "with a CONTROL_SETTINGS: JDK 17's array classes loaded twice are an error, not HotSpot's warning" \
    bash -c "grep -q '^error: .*array classes loaded again' '$WORK/ours.hprof.check' && ! grep -q '^warning: .*array classes' '$WORK/ours.hprof.check'"
fi
with_record "$WORK/cds.hprof" "$WORK/summary.hprof" '\x07\0\0\0\0\0\0\0\x18\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
verdict "$WORK/summary.hprof"
check "with a HEAP_SUMMARY (a record HotSpot never writes): its objects left out are errors (status $RC)" \
  bash -c "[[ $RC -eq 1 ]] && grep -q '^error: .*OBJ_ARRAY_DUMP refers to .* not dumped' '$WORK/summary.hprof.check' && ! grep -q '^warning: .*HotSpot' '$WORK/summary.hprof.check'"

if [[ -s $WORK/cds-tool.hprof ]]; then
  verdict "$WORK/cds-tool.hprof"
  check "hprof heap's dump passes --check (status $RC)" \
    bash -c "[[ $RC -eq 0 ]] && grep -qE 'ok, [0-9]+ records' '$WORK/cds-tool.hprof.check'"
  check "... its only warnings name HotSpot's dumper and the JDK" only_hotspot_warnings "$WORK/cds-tool.hprof.check"
else
  skip "hprof heap's dump passes --check" "no dump from hprof heap: $(head -c 200 "$WORK/cds.tool" 2>/dev/null)"
fi

# Without CDS' archived heap, no object array refers to objects left out.
dump_of noshare -Xshare:off
verdict "$WORK/noshare.hprof"
check "-Xshare:off: jcmd's dump passes --check (status $RC)" \
  bash -c "[[ $RC -eq 0 ]] && grep -qE 'ok, [0-9]+ records' '$WORK/noshare.hprof.check'"
check "-Xshare:off: no object array refers to an object left out" \
  bash -c "! grep -q 'not dumped' '$WORK/noshare.hprof.check'"
if [[ $JDK_FEATURE -ge 25 ]]; then
  check "-Xshare:off, JDK $JDK_FEATURE: no warning at all" bash -c "! grep -q '^warning' '$WORK/noshare.hprof.check'"
fi
