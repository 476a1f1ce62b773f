#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every option is validated: bad ones stop the JVM with one HPROF ERROR line before main runs.
source "$(dirname "$0")/../lib/common.sh"

expect_error() {  # expect_error OPTIONS MESSAGE-REGEX
  run_java "$(agent "$1")" HotMethod 10
  local lines; lines=$(grep -c '^HPROF ERROR: ' out.txt || true)
  if [[ $RC -ne 0 && $lines -eq 1 ]] && grep -Eq "^HPROF ERROR: .*$2" out.txt && ! grep -q '^done' out.txt; then
    ok "rejects '$1'"
  else
    not_ok "rejects '$1' (rc=$RC): $(head -3 out.txt | tr '\n' '|')"
  fi
}

expect_error "bogus=1" "Unknown option: bogus \\(bogus=1\\)"
expect_error "depth=-1" "depth"
expect_error "depth=abc" "depth"
expect_error "interval=abc" "interval"
expect_error "interval=0" "interval"
expect_error "cutoff=2" "cutoff"
expect_error "cutoff=x" "cutoff"
expect_error "file=" "file"
expect_error "net=localhost" "net option missing port"
expect_error "net=:80" "net"
expect_error "net=localhost:99999" "port"
expect_error "heap=none" "heap"
expect_error "cpu=fast" "cpu"
expect_error "format=x" "format"
expect_error "lineno=maybe" "lineno"
expect_error "thread=1" "thread"
expect_error "doe=yes" "doe"
expect_error "msa=q" "msa"
expect_error "force=Y" "force"
expect_error "verbose=" "verbose"
expect_error "monitor=x" "monitor"
expect_error "gc_okay=x" "gc_okay"
expect_error "format=b,monitor=y" "monitor=y is not supported with format=b"
expect_error "format=b,cpu=times" "cpu=times\\|old is not supported with format=b"
expect_error "format=b,cpu=old" "cpu=times\\|old is not supported with format=b"
expect_error "file=a.txt,file=b.txt" "only appear once"
expect_error "cpu=samples,help" "help"
expect_error "primfields=x" "primfields option value must be y\\|n"
expect_error "logflags=four" "logflags option value must be numeric"
expect_error "pause=1" "pause option value must be y\\|n"

# The original's exit status for option errors was 1.
run_java "$(agent bogus=1)" HotMethod 10
check "option errors exit with status 1" test "$RC" -eq 1

# Obsolete or meaningless options are accepted, with a note, and the program runs.
run_java "$(agent cpu=samples,gc_okay=y,file=g.txt)" HotMethod 100
check "gc_okay=y is accepted with a note" bash -c "[[ $RC -eq 0 ]] && grep -q '^done' out.txt && grep -q 'gc_okay' out.txt"
run_java "$(agent cpu=samples,msa=y,file=m.txt)" HotMethod 100
check "msa=y is accepted with a note" bash -c "[[ $RC -eq 0 ]] && grep -q '^done' out.txt && grep -q 'msa' out.txt"

# The original's regression test for binary heap dumps passes logflags=4: accepted, with a note.
run_java "$(agent heap=dump,format=b,logflags=4,file=lf.hprof)" HotMethod 100
check "logflags=4 (the original's binary heap dump test) is accepted with a note, the file valid" \
  bash -c "[[ $RC -eq 0 ]] && grep -q '^done' out.txt && grep -q 'logflags: the original HPROF' out.txt && '$HPROF_DUMP' --check lf.hprof >/dev/null 2>&1"
run_java "$(agent cpu=samples,debugflags=0x10,X=1,coredump=n,errorexit=y,exitpause=n,pause=n,precrash=n,debug=n,primfields=n,primarrays=y,file=o.txt)" HotMethod 100
check "every other option of the original is accepted, one note names those without effect" \
  bash -c "[[ $RC -eq 0 ]] && grep -q '^done' out.txt && [[ \$(grep -c 'debugflags, coredump, errorexit, exitpause, pause, precrash, debug, X: the original HPROF' out.txt) -eq 1 ]] && ! grep -q primfields out.txt"

# Options can also come from _JAVA_HPROF_OPTIONS, appended to the command line's.
set +e
_JAVA_HPROF_OPTIONS="bogus2=1" "$JAVA" -Xcheck:jni "$(agent cpu=samples)" -cp "$TEST_CLASSES" HotMethod 10 >out.txt 2>&1
RC=$?
set -e
check "_JAVA_HPROF_OPTIONS is read" bash -c "[[ $RC -ne 0 ]] && grep -q 'Unknown option: bogus2' out.txt"

# No options at all: the original default (heap=all) with the text file java.hprof.txt.
run_java "$(agent)" HotMethod 100
check "no options: the program runs and java.hprof.txt is written" \
  bash -c "[[ $RC -eq 0 ]] && grep -q '^done' out.txt && head -1 java.hprof.txt | grep -q '^JAVA PROFILE 1.0.1, created '"
check "no options: heap=all is the default (a heap dump and the allocation sites)" \
  bash -c "grep -q '^HEAP DUMP BEGIN' java.hprof.txt && grep -q '^SITES BEGIN' java.hprof.txt && grep -q '^Dumping Java heap ... allocation sites ... done.\$' out.txt"
# heap=all means exact allocation counting and a dump naming each object's site: the 3
# Marked that HeapDumpSites.makeThem keeps are counted (3 allocated, 3 live) and dumped.
rm -f java.hprof.txt
run_java "$(agent)" HeapDumpSites
check "no options: SITES counts the 3 Marked objects exactly" \
  bash -c "awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && \$9 == \"HeapDumpSites\$Marked\" { a += \$7; l += \$5 } END { exit !(a == 3 && l == 3) }' java.hprof.txt"
check "no options: the heap dump has the 3 Marked, each with an allocation trace" \
  bash -c "[[ \$(grep -cE '^OBJ [0-9a-f]+ \(sz=[0-9]+, trace=[0-9]+, class=HeapDumpSites\\\$Marked@' java.hprof.txt) -eq 3 && \$(grep -E 'class=HeapDumpSites\\\$Marked@' java.hprof.txt | grep -c 'trace=300000') -eq 0 ]]"
jni_clean
