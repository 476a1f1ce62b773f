#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the agent says once at start: a depth= past what a stack keeps (cpu=times 64,
# cpu=samples 1,024), net= to a peer that is not this machine; and an environment switch
# set to "0" is off (HPROF_HEAP_TIMES=0 prints no phases). Once in a run: a net= CONTROL
# depth past the frames the signal sampler took at start.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent cpu=times,depth=100,file=t.txt)" HotMethod 100
check "cpu=times,depth=100: one warning that stacks are cut at 64" \
  test "$(grep -c 'HPROF WARNING: cpu=times: depth=100 .* cut at 64' out.txt)" = 1
run_java "$(agent cpu=times,depth=64,file=t.txt)" HotMethod 100
check "cpu=times,depth=64: no warning" bash -c "[[ $RC -eq 0 ]] && ! grep -q 'HPROF WARNING' out.txt"
run_java "$(agent cpu=samples,depth=2000,file=s.txt)" HotMethod 100
check "cpu=samples,depth=2000: one warning that stacks are cut at 1024" \
  test "$(grep -c 'HPROF WARNING: cpu=samples: depth=2000 .* cut at 1024' out.txt)" = 1

HPROF_HEAP_TIMES=1 run_java "$(agent heap=dump,format=b,file=d.hprof)" HotMethod 100
check "HPROF_HEAP_TIMES=1: the heap dump's phases on stderr" grep -q '^heap dump: ' out.txt
HPROF_HEAP_TIMES=0 run_java "$(agent heap=dump,format=b,file=e.hprof)" HotMethod 100
check "HPROF_HEAP_TIMES=0: no phases" bash -c "[[ $RC -eq 0 ]] && ! grep -q '^heap dump: ' out.txt"

# net=: a listener on this machine's first address that is not loopback, then on loopback.
# (Bounded: a JVM that never connects, or a start slower than the wait for its port on
# a loaded machine, once held the script until the runner's timeout.)
listen() {  # listen ADDR: a server that takes one connection and reads it all; its port in PORT
  # A new file each time: the last listener's port.txt, read before the shell truncated it
  # for this one, once sent the loopback run to a dead port on the other address.
  local f=port-$1.txt
  rm -f "$f"
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET); s.bind((sys.argv[1], 0)); s.listen(1); s.settimeout(120)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); c.settimeout(120)
while c.recv(65536): pass' "$1" >"$f" 2>/dev/null &
  LPID=$!
  for _ in $(seq 600); do [[ -s $f ]] && break; sleep 0.1; done
  PORT=$(cat "$f")
}
ADDR=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | grep -v '^127\.' | head -1)
if ! command -v python3 >/dev/null; then
  skip "net= warnings" "no python3 for a listener"
elif [[ -z $ADDR ]]; then
  skip "net= to a peer not on this machine warns" "no address but loopback"
else
  listen "$ADDR"
  run_java "$(agent cpu=samples,net=$ADDR:$PORT)" HotMethod 100
  wait $LPID 2>/dev/null || true
  check "net=$ADDR: one warning that the socket is for loopback or a tunnel" \
    test "$(grep -c 'HPROF WARNING: net=.*loopback or through a tunnel' out.txt)" = 1
fi
if command -v python3 >/dev/null; then
  listen 127.0.0.1
  run_java "$(agent cpu=samples,net=localhost:$PORT)" HotMethod 100
  wait $LPID 2>/dev/null || true
  if [[ $RC -eq 0 ]] && ! grep -q 'HPROF' out.txt; then
    ok "net=localhost: no warning"
  else  # what it said, so a failure elsewhere can be read from the log
    not_ok "net=localhost: no warning (exit $RC: $(grep -m3 HPROF out.txt | tr '\n' ' '))"
  fi
fi
# net=: CONTROL depth past the 64 frames the signal sampler took at start (depth=4): one
# warning, whatever follows (the front end sends two).
FRONT=$HPROF_BIN/hprof-front
printf 'depth 200\ndepth 300\npause 300\ncpu samples 0\n' | "$FRONT" -P port3.txt -o nd.hprof -t 60 2>front3.err &
FPID=$!
for _ in $(seq 100); do [[ -s port3.txt ]] && break; sleep 0.1; done
run_java "$(agent "cpu=samples,format=b,net=127.0.0.1:$(cat port3.txt)")" NetServer 1500 quiet
wait $FPID 2>/dev/null || true
check "net= CONTROL depth=200 past the 64 frames a sample holds: one warning, says what is kept" \
  bash -c "[[ \$(grep -c 'HPROF WARNING: net=: CONTROL depth' out.txt) == 1 ]] &&
    grep -q 'HPROF WARNING: net=: CONTROL depth=200: depth 200 cut to 64 (the frames a sample holds, fixed at start)$' out.txt"
jni_clean
