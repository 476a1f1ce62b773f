#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What holding each new object costs: a JVMTI tag against a JNI weak reference (the reason
# heap=sites holds its objects by weak references). Usage: bench/tag-cost.sh [N] [JDK...]
# (default 10,000,000 objects, every JDK tests/lib/jdks.sh finds).
set -eu
cd "$(dirname "$0")/.."
n=${1:-10000000}; shift || true
jdks=("$@"); [[ ${#jdks[@]} -gt 0 ]] || mapfile -t jdks < <(tests/lib/jdks.sh)
out=build/bench/tag-cost; mkdir -p "$out"
for jdk in "${jdks[@]}"; do
  gcc -O2 -shared -fPIC -I"$jdk/include" -I"$jdk/include/linux" -o "$out/libtagcost-$(basename "$jdk").so" bench/tagcost.c
  "$jdk/bin/javac" -d "$out/classes-$(basename "$jdk")" bench/java/TagCost.java
  echo "## $(basename "$jdk")"
  for mode in 0 1 2 3 4; do
    "$jdk/bin/java" -agentpath:"$PWD/$out/libtagcost-$(basename "$jdk").so" -cp "$out/classes-$(basename "$jdk")" TagCost $mode "$n"
  done
done
