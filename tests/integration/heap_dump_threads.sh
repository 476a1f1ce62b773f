#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=dump and its threads: every thread alive at the dump has its thread record, its
# object and its stack trace, at exit (main returning: the dump runs on DestroyJavaVM;
# System.exit: on main) and on SIGQUIT; Java frame roots number the frames of their
# thread's trace; text HEAP DUMP BEGIN counts exactly what follows; objects of classes
# the class-data-sharing archive holds and that are not linked yet have their fields.
source "$(dirname "$0")/../lib/common.sh"

# stack_of DUMP NAME: the methods of the trace the ROOT_THREAD_OBJECT of the thread named
# NAME names, top first, one line.
stack_of() {
  awk -v want="$2" '
    /^START_THREAD / && index($0, "name=\"" want "\"") { for (i = 2; i <= NF; i++) if ($i ~ /^serial=/) s = substr($i, 8) }
    /^FRAME / { split($2, a, "="); split($3, m, "="); meth[a[2]] = m[2] }
    /^TRACE / { split($2, a, "="); for (i = 3; i <= NF; i++) if ($i ~ /^frames=/) fr[a[2]] = substr($i, 8) }
    /^  ROOT_THREAD_OBJECT / { split($3, t, "="); split($4, r, "="); tr[t[2]] = r[2] }
    END { n = split(fr[tr[s]], f, ","); out = ""; for (i = 1; i <= n; i++) if (f[i] != "-") out = out meth[f[i]] " "; print out }' "$1"
}
# marker_frame DUMP: the method of the frame whose Java frame root holds the Marker,
# found through its thread's trace; "none" when there is no such root.
marker_frame() {
  awk '
    /^FRAME / { split($2, a, "="); split($3, m, "="); meth[a[2]] = m[2] }
    /^TRACE / { split($2, a, "="); for (i = 3; i <= NF; i++) if ($i ~ /^frames=/) fr[a[2]] = substr($i, 8) }
    /^  ROOT_THREAD_OBJECT / { split($3, t, "="); split($4, r, "="); tr[t[2]] = r[2] }
    /^  ROOT_JAVA_FRAME / { split($2, o, "="); split($3, t, "="); split($4, k, "="); jf[o[2]] = t[2] " " k[2] }
    /^  INSTANCE_DUMP .*\(HeapDumpThreads\$Marker\)/ { split($2, o, "="); marker = o[2] }
    END { if (!(marker in jf)) { print "none"; exit } split(jf[marker], tk, " ")
          split(fr[tr[tk[1]]], f, ","); print meth[f[tk[2] + 1]] }' "$1"
}
dump_line_of() {  # dump_line_of DUMP NAME: the START_THREAD's object and the thread root's object
  local s o
  s=$(sed -n "s/^START_THREAD serial=\([0-9]*\) obj=\(0x[0-9a-f]*\) .*name=\"$2\".*/\1 \2/p" "$1" | tail -1)
  o=$(awk -v s="${s% *}" '/^  ROOT_THREAD_OBJECT / && $3 == "thread=" s { print substr($2, 5) }' "$1")
  echo "${s#* } $o"
}
STACK_RE='^.*levelC levelB levelA .*$'
export -f stack_of marker_frame trace_frames
export STACK_RE

for DUMPER in jdk jvmti; do
  export HPROF_HEAP_DUMPER=$DUMPER
  for MODE in return exit; do
    VIA="[$DUMPER, main ${MODE}s] "
    run_java "$(agent heap=dump,format=b,file=t-$DUMPER-$MODE.hprof)" HeapDumpThreads $MODE
    F=t-$DUMPER-$MODE.hprof
    "$HPROF_DUMP" --check $F >check.txt 2>&1 || true
    "$HPROF_DUMP" $F >dump.txt 2>&1 || true
    check "${VIA}exits 0; --check finds no error (no thread root of serial 0, each holds its START_THREAD's object)" \
      bash -c "[[ $RC -eq 0 ]] && grep -q ': ok, ' check.txt"
    check "${VIA}every thread started and not ended has its root (no warning)" \
      bash -c "grep -q ': ok, ' check.txt && ! grep -q 'has no ROOT_THREAD_OBJECT' check.txt"
    EXITING=DestroyJavaVM
    [[ $MODE == exit ]] && EXITING=main
    read -r START_OBJ ROOT_OBJ < <(dump_line_of dump.txt "$EXITING")
    check "${VIA}the thread that ends the VM ($EXITING) is a thread root holding its START_THREAD's object" \
      bash -c "[[ -n '$ROOT_OBJ' && '$START_OBJ' == '$ROOT_OBJ' ]] && grep -q '^  INSTANCE_DUMP obj=$ROOT_OBJ ' dump.txt"
    check "${VIA}a thread's stack: its root's trace has its frames (levelC levelB levelA)" \
      bash -c "[[ \"\$(stack_of dump.txt stack-holder)\" =~ \$STACK_RE ]]"
    check "${VIA}a local held in levelB: Java frame root numbering levelB's frame of the thread's trace" \
      bash -c "[[ \$(marker_frame dump.txt) == levelB ]]"
  done
done
unset HPROF_HEAP_DUMPER

# ---- SIGQUIT (a dump of a running program, then the one at exit) ----
for DUMPER in jdk jvmti; do
  export HPROF_HEAP_DUMPER=$DUMPER
  sigquit_dump q.out "$(agent heap=dump,format=b,file=q-$DUMPER.hprof)" HeapDumpThreads wait
  "$HPROF_DUMP" --check q-$DUMPER.hprof >check.txt 2>&1 || true
  "$HPROF_DUMP" q-$DUMPER.hprof >dump.txt 2>&1 || true
  # the first dump only (the SIGQUIT one)
  awk '{ print } /^HEAP_DUMP_END/ { exit }' dump.txt >first.txt
  check "[$DUMPER] SIGQUIT and exit dumps: --check finds no error" grep -q ': ok, ' check.txt
  check "[$DUMPER] SIGQUIT dump: main (asleep) is a thread root with its stack (main at the bottom)" \
    bash -c "[[ \"\$(stack_of first.txt main)\" =~ ^.*main\ $ ]]"
  check "[$DUMPER] SIGQUIT dump: the stack-holder's stack and its local in levelB" \
    bash -c "[[ \"\$(stack_of first.txt stack-holder)\" =~ \$STACK_RE && \$(marker_frame first.txt) == levelB ]]"
done
unset HPROF_HEAP_DUMPER

# ---- text: thread roots, traces, exact totals; heap=dump and heap=all ----
for OPTS in heap=dump heap=all; do
  for MODE in return exit; do
    VIA="[text $OPTS, main ${MODE}s] "
    run_java "$(agent $OPTS,file=t.txt)" HeapDumpThreads $MODE
    check "${VIA}HEAP DUMP BEGIN gives the number of OBJ and ARR records after it and their sizes summed" \
      bash -c "awk '/^HEAP DUMP BEGIN/ { s = \$0; sub(/^HEAP DUMP BEGIN \\(/, \"\", s); split(s, w, \" \"); want_n = w[1]; want_b = w[3]; on = 1 }
                 on && /^(OBJ|ARR) / { n++; match(\$0, /sz=[0-9]+/); b += substr(\$0, RSTART + 3, RLENGTH - 3) }
                 /^HEAP DUMP END/ { on = 0; exit !(n == want_n && b == want_b && n > 0) }' t.txt"
    check "${VIA}every thread root names a THREAD START with its object, and a TRACE written before" \
      bash -c "awk '/^THREAD START/ { match(\$0, /obj=[0-9a-f]+/); o = substr(\$0, RSTART + 4, RLENGTH - 4); match(\$0, /id = [0-9]+/); obj[substr(\$0, RSTART + 5, RLENGTH - 5)] = o }
                 /^TRACE [0-9]+:/ { t[substr(\$2, 1, length(\$2) - 1)] = 1 }
                 /^ROOT .*kind=<thread>/ { n++; match(\$0, /id=[0-9]+/); id = substr(\$0, RSTART + 3, RLENGTH - 3); match(\$0, /trace=[0-9]+/); tr = substr(\$0, RSTART + 6, RLENGTH - 6)
                   if (obj[id] != \$2 || !(tr in t)) bad++ }
                 END { exit !(n >= 5 && !bad) }' t.txt"
    SERIAL=$(sed -n 's/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name="stack-holder".*/\1/p' t.txt)
    TRACE=$(sed -n "s/^ROOT [0-9a-f]* (kind=<thread>, id=$SERIAL, trace=\([0-9]*\))$/\1/p" t.txt)
    check "${VIA}the stack-holder's root names its trace: levelC, levelB, levelA" \
      bash -c "trace_frames t.txt '$TRACE' | sed 's/(.*//' | tr '\n' ' ' | grep -q 'HeapDumpThreads.levelC HeapDumpThreads.levelB HeapDumpThreads.levelA'"
    if [[ $MODE == exit ]]; then
      MAIN=$(sed -n 's/^THREAD START (obj=\([0-9a-f]*\), id = \([0-9]*\), name="main".*/\1 \2/p' t.txt)
      check "${VIA}main, which ends the VM, is a thread root holding its THREAD START's object" \
        grep -q "^ROOT ${MAIN% *} (kind=<thread>, id=${MAIN#* }, trace=" t.txt
    fi
  done
done

# ---- classes from the class-data-sharing archive, loaded and not linked ----
# (the program formats no double and opens no jar: FDBigInteger and Attributes$Name keep
# the state they have in the archive)
run_java "$(agent heap=dump,file=c.txt)" HeapDumpThreads return
fields_of() {  # fields_of FILE CLASS: "objects objects-with-a-reference-line sizes" of CLASS
  awk -v c="class=$2@" 'index($0, c) { n++; cur = 1; sz[$0 ~ /sz=0,/ ? "zero" : "ok"]++; next }
    /^[^\t]/ { cur = 0 } cur && /^\t[a-z]/ { f++; cur = 0 } END { print n + 0, f + 0, sz["zero"] + 0 }' "$1"
}
read -r N F Z < <(fields_of c.txt jdk.internal.math.FDBigInteger)
check "text: every jdk.internal.math.FDBigInteger (archived, not linked) has its size and its data field ($N objects)" \
  bash -c "[[ $N -gt 0 && $F -eq $N && $Z -eq 0 ]]"
read -r N F Z < <(fields_of c.txt 'java.util.jar.Attributes$Name')
check "text: every java.util.jar.Attributes\$Name (archived, not linked) has its size and its name field ($N objects)" \
  bash -c "[[ $N -gt 0 && $F -eq $N && $Z -eq 0 ]]"
for DUMPER in jvmti jdk; do
  HPROF_HEAP_DUMPER=$DUMPER run_java "$(agent heap=dump,format=b,file=c-$DUMPER.hprof)" HeapDumpThreads return
  "$HPROF_DUMP" c-$DUMPER.hprof >cdump.txt 2>&1 || true
  check "[$DUMPER] binary: FDBigInteger's CLASS_DUMP lists its fields in declaration order, its instances have their bytes" \
    bash -c "grep -Eq '^  CLASS_DUMP .* name=jdk.internal.math.FDBigInteger .*instance_size=[1-9][0-9]* .*fields=data:object,offset:int,nWords:int,isImmutable:boolean$' cdump.txt && grep -Eq '^  INSTANCE_DUMP .*\(jdk.internal.math.FDBigInteger\) nbytes=[1-9]' cdump.txt && ! grep -Eq '^  INSTANCE_DUMP .*\(jdk.internal.math.FDBigInteger\) nbytes=0$' cdump.txt"
done
jni_clean
