#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# format=b: a well-formed binary file, checked by the project's own reader.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent cpu=samples,format=b,file=b.hprof)" HotMethod 1500
check "binary run exits 0" test "$RC" -eq 0
check "reader validates the file (lengths, IDs defined before use)" hprof_check b.hprof
"$HPROF_DUMP" b.hprof >dump.txt 2>&1 || true
check "header: JAVA PROFILE 1.0.1, 4-byte IDs" has_line dump.txt '^HEADER .*"JAVA PROFILE 1\.0\.1".*idsize=4'
check "CONTROL SETTINGS: cpu sampling flag, depth 4" has_line dump.txt '^CONTROL_SETTINGS flags=0x0*2 depth=4'
check "START THREAD for main" has_line dump.txt '^START_THREAD serial=200001 .*name="main"'
check "END THREAD for main" has_line dump.txt '^END_THREAD serial=200001'
check "CPU SAMPLES record present" has_line dump.txt '^CPU_SAMPLES total=[1-9]'
check "hot method on top in CPU SAMPLES" bash -c "grep -A1 '^CPU_SAMPLES' dump.txt | tail -1 | grep -q 'HotMethod.hot'"
check "LOAD CLASS for HotMethod" has_line dump.txt '^LOAD_CLASS .*name="HotMethod"'
check "STACK FRAME with a line of hot's loop (7 or 8)" has_line dump.txt '^FRAME .*method=hot .*line=[78]'

# The same run in text and binary agree on the shape: depth and thread options apply.
run_java "$(agent cpu=samples,format=b,file=bt.hprof,thread=y,depth=2)" HotMethod 800
check "thread=y,depth=2 binary validates" hprof_check bt.hprof
"$HPROF_DUMP" bt.hprof >dumpt.txt 2>&1 || true
check "binary traces carry the thread serial with thread=y" has_line dumpt.txt '^TRACE serial=3[0-9]+ thread=200001 '
check "binary traces have at most 2 frames with depth=2" bash -c "grep -Eq '^TRACE serial=3[0-9]+ .*nframes=[12]([^0-9]|\$)' dumpt.txt && ! grep -E '^TRACE serial=3[0-9]+ .*nframes=([3-9]|[1-9][0-9])' dumpt.txt"
check "CONTROL SETTINGS carries depth 2" has_line dumpt.txt '^CONTROL_SETTINGS .*depth=2'

# SIGQUIT in binary: several CPU SAMPLES records, file still valid.
set +e
"$JAVA" -Xcheck:jni "$(agent cpu=samples,format=b,file=q.hprof)" -cp "$TEST_CLASSES" Lifecycle run 3 >out.txt 2>&1 &
JPID=$!
for _ in $(seq 100); do grep -q ready out.txt 2>/dev/null && break; sleep 0.1; done
sleep 1; kill -QUIT $JPID
wait $JPID
set -e
check "binary with a SIGQUIT dump validates" hprof_check q.hprof
check "binary with a SIGQUIT dump has two CPU SAMPLES records" bash -c "[[ \$('$HPROF_DUMP' q.hprof | grep -c '^CPU_SAMPLES') -eq 2 ]]"
jni_clean
