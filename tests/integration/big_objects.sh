#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Objects over 4 GiB (a long[] of 600,000,000 elements, 4.8 GB, in a 6 GiB heap;
# tests/java/BigArray.java). Heavy, so only with HPROF_BIG_TESTS=1 (measured on the
# 2-core, 24 GiB machine, JDK 17: both runs 57 s when quiet, 142 s under load; up to
# 13.8 GB of memory);
# tests/unit/test_heap_dump.c checks the same writers with made-up sizes on every run.
#   text:   the array's sz= and the HEAP DUMP BEGIN bytes are the whole 64-bit numbers
#           (they wrapped at 2^32);
#   binary: the array is cut to the longest length whose sub-record length fits its u4,
#           (2^32 - 1 - 14) / 8 = 536870910 elements, as the JDK's dumper cuts its own
#           (it was cut silently before); stderr says so once, and the file in a STRING
#           record that nothing refers to; the file stays valid. The JVMTI walk is used
#           (HPROF_HEAP_DUMPER=jvmti): the JVM's own dumper has already cut the array in
#           the dump it hands over, and prints its own warning.
source "$(dirname "$0")/../lib/common.sh"

if [[ "${HPROF_BIG_TESTS:-0}" != 1 ]]; then
  skip "objects over 4 GiB" "set HPROF_BIG_TESTS=1 to run (1 to 2.5 minutes and 14 GB of memory per JDK)"
  exit 0
fi
RUN_TIMEOUT=900
# above LIMIT VALUE: VALUE is a number greater than LIMIT.
above() { [[ $2 =~ ^[0-9]+$ ]] && (( $2 > $1 )); }
# said_once: stderr said once that the array was cut.
said_once() { [[ $(grep -c 'cannot dump array .* (long\[\]) of length 600000000 .* truncating to length 536870910' "$WORK/out.txt") -eq 1 ]]; }

run_java -Xmx6g "$(agent heap=dump,format=a,file=big.txt)" BigArray 600000000
check "text: the run succeeds (exit $RC)" [ "$RC" -eq 0 ]
check "text: the long[] of 4.8 GB has sz=4800000016 and all its 600000000 elements" \
  has_line big.txt '^ARR [0-9a-f]+ \(sz=4800000016, trace=[0-9]+, nelems=600000000, elem type=long\[\]\)$'
begin_bytes=$(sed -n 's/^HEAP DUMP BEGIN ([0-9]* objects, \([0-9]*\) bytes).*/\1/p' big.txt)
check "text: HEAP DUMP BEGIN counts ${begin_bytes:-?} bytes, more than the array's 4.8 GB" \
  above 4800000016 "$begin_bytes"
rm -f big.txt

HPROF_HEAP_DUMPER=jvmti run_java -Xmx6g "$(agent heap=dump,format=b,file=big.hprof)" BigArray 600000000
check "binary: the run succeeds (exit $RC)" [ "$RC" -eq 0 ]
check "binary: stderr says the array was cut to 536870910 elements, once" said_once
check "binary: the file is valid (hprof-dump --check)" hprof_check big.hprof
"$HPROF_DUMP" big.hprof >records.txt 2>&1
check "binary: the array's record has 536870910 elements" \
  has_line records.txt '^  PRIM_ARRAY_DUMP obj=0x[0-9a-f]+ trace=[0-9]+ n=536870910 type=long$'
check "binary: the file says so in a STRING record" \
  has_line records.txt '^STRING id=0x[0-9a-f]+ "HPROF NOTE: array [0-9a-f]+ \(long\[\]\) of length 600000000 truncated to length 536870910'
rm -f big.hprof records.txt
jni_clean
