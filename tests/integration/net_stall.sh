#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net= to a peer that accepts and then never reads: sends give up after 10 s without
# progress, the connection is dropped and said so once, and the program runs on and
# exits on time with its own status: mid-run (monitor=y writes each wait as it
# happens) and at exit (a heap dump, text and binary: the binary one is written by a
# thread of its own).
source "$(dirname "$0")/../lib/common.sh"
trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf "$WORK"' EXIT

set +e
"$JAVA" -cp "$TEST_CLASSES" WaitStorm 50000 300 >base.txt 2>&1; BASE=$?
set -e

# stalled N OPTIONS WHAT: runs WaitStorm against a peer that never reads, in folder N,
# and checks it. The three cases run side by side (each waits 10 s on its peer).
stalled() {
  mkdir -p "$WORK/$1" && cd "$WORK/$1" || return
  local WORK=$WORK/$1 LPID
  "$HPROF_BIN/hprof-listen" --stall port.txt 2>listen.err &
  LPID=$!
  for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
  local t0=$SECONDS
  RUN_TIMEOUT=90 run_java "$(agent "$2,net=127.0.0.1:$(cat port.txt)")" WaitStorm 50000 300
  local took=$((SECONDS - t0))
  kill $LPID 2>/dev/null || true
  wait $LPID 2>/dev/null || true
  check "$3: the program ends on time (${took}s) with its own status ($RC, $BASE without the agent)" \
    bash -c "[[ $RC -eq $BASE && $took -lt 50 ]] && grep -q '^done 50000$' out.txt"
  check "$3: one HPROF ERROR, saying the peer took nothing and the connection is dropped" \
    bash -c "[[ \$(grep -c 'HPROF ERROR' out.txt) -eq 1 ]] && grep -q '^HPROF ERROR: Sending to 127.0.0.1:[0-9]* failed: the peer accepted nothing for 10 s; the connection is dropped' out.txt"
}

stalled 1 monitor=y,doe=n "mid-run (monitor=y)" >1.log 2>&1 &
stalled 2 heap=dump "at exit (text heap dump)" >2.log 2>&1 &
stalled 3 heap=dump,format=b "at exit (binary heap dump)" >3.log 2>&1 &
wait
cat 1.log 2.log 3.log
cat 1/all-runs.txt 2/all-runs.txt 3/all-runs.txt >>all-runs.txt 2>/dev/null
jni_clean
