#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the native unwinder (src/native) costs: ns per frame and per sample of the walk a
# SIGPROF handler makes through a library without frame pointers, and the agent-side
# time to build the tables (bench/nativewalk.c says how). Usage:
#   bench/native-walk.sh [SAMPLES] [RUNS]     (default 2000 samples, 5 runs)
# Needs `make` first (build/libhprof.a, build/tests/libnative_chain.so).
set -eu
cd "$(dirname "$0")/.."
samples=${1:-2000}; runs=${2:-5}
out=build/bench/native-walk; mkdir -p "$out"
make -s build/libhprof.a build/tests/libnative_chain.so
gcc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o "$out/nativewalk" bench/nativewalk.c build/libhprof.a -lpthread -ldl
jvm=$(ls /usr/lib/jvm/*/lib/server/libjvm.so 2>/dev/null | head -n 1 || true)
for i in $(seq "$runs"); do
  echo "## run $i"
  "$out/nativewalk" "$PWD/build/tests/libnative_chain.so" $jvm "$samples"
done
