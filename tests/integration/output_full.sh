#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A disk that fills up in the middle of the profile (a file size limit of 64 KiB, with
# SIGXFSZ ignored, stands for it): the file keeps every whole record written before
# the failure, in both formats; one HPROF ERROR; the program's output and status stay.
source "$(dirname "$0")/../lib/common.sh"

# limited FILE OPTIONS: runs HotMethod with the agent under the limit.
limited() {
  set +e
  (trap '' XFSZ; ulimit -f 64; exec timeout -k 10 300 "$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" "$(agent "$2,file=$1")" \
    HotMethod 200) >out.txt 2>&1
  RC=$?
  cat out.txt >>all-runs.txt
  set -e
}
set +e
"$JAVA" -cp "$TEST_CLASSES" HotMethod 200 >base.txt 2>&1; BASE=$?
set -e

HPROF_HEAP_TIMES=1 limited f.hprof heap=dump,format=b
JVM_TRIED=$(grep -c '^heap dump: jvm' out.txt || true)      # the JVM's own dumper was used (or failed)
check "binary: one HPROF ERROR, the program's status ($RC) as without the agent ($BASE)" \
  bash -c "[[ $RC -eq $BASE && \$(grep -c 'HPROF ERROR' out.txt) -eq 1 ]] && grep -q 'HPROF ERROR: Writing to f.hprof failed: File too large' out.txt"
check "binary: the records before the failure are kept ($(stat -c %s f.hprof) bytes), whole" \
  bash -c "[[ \$(stat -c %s f.hprof) -gt 32768 ]] && '$HPROF_DUMP' --check --lenient f.hprof >check.txt 2>&1"
check "binary: the header, the names and the classes written before the failure are there" \
  bash -c "'$HPROF_DUMP' f.hprof >dump.txt 2>&1; grep -q '^HEADER' dump.txt && grep -q '^STRING' dump.txt && grep -q '^LOAD_CLASS' dump.txt"

limited f.txt heap=dump
check "text: one HPROF ERROR, the program's status as without the agent" \
  bash -c "[[ $RC -eq $BASE && \$(grep -c 'HPROF ERROR' out.txt) -eq 1 ]] && grep -q 'HPROF ERROR: Writing to f.txt failed: File too large' out.txt"
check "text: the records before the failure are kept ($(stat -c %s f.txt) bytes), ending with a whole line" \
  bash -c "[[ \$(stat -c %s f.txt) -gt 32768 && \$(tail -c 1 f.txt | od -An -c | tr -d ' ') == '\\n' ]] && head -1 f.txt | grep -q '^JAVA PROFILE 1.0.1' && grep -q '^THREAD START' f.txt"
check "the JVM wrote its own dump beside the output, and no file of it is left" \
  bash -c "[[ $JVM_TRIED -ge 1 ]] && ! ls -A | grep -q '^\.hprof-jvm-dump'"
jni_clean
