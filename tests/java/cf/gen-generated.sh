#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes DIR/cfprog/Generated.java: 300 locals (wide), a loop body past 32 KiB (long
# jumps), a conditional block past 32 KiB, and a method near the 64 KiB limit.
#   gen-generated.sh DIR
set -eu
f=$1/cfprog/Generated.java
mkdir -p "$1/cfprog"
{
  echo 'package cfprog;'
  echo 'public class Generated {'
  echo '  public static void run() {'
  echo '    System.out.println("locals " + manyLocals(3) + " loop " + longLoop(3) + " cond " + condBlock(true) + " " + condBlock(false) + " big " + nearLimit());'
  echo '  }'
  echo '  static int manyLocals(int x) {'
  for i in $(seq 0 299); do echo "    int l$i = x + $i;"; done
  echo -n '    return 0'
  for i in $(seq 0 10 299); do echo -n " + l$i"; done
  echo ';'
  echo '  }'
  echo '  static int longLoop(int n) {'
  echo '    int s = 0;'
  echo '    for (int i = 0; i < n; i++) {'
  for i in $(seq 1 4500); do echo '      s += new int[1].length;'; done
  echo '    }'
  echo '    return s;'
  echo '  }'
  echo '  static int condBlock(boolean flag) {'
  echo '    int s = 1;'
  echo '    if (flag) {'
  for i in $(seq 1 4500); do echo '      s += new int[1].length;'; done
  echo '    }'
  echo '    return s;'
  echo '  }'
  echo '  static int nearLimit() {'
  echo '    int s = 0;'
  for i in $(seq 1 9000); do echo '    s += new int[1].length;'; done
  echo '    return s;'
  echo '  }'
  echo '}'
} >"$f"
