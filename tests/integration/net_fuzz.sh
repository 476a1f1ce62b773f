#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net= commands fuzzed: random, wrong and truncated commands thrown at a live agent
# through the front end (loopback only, a few hundred commands, seconds each). The
# program must run to its own end with its own status, its output intact, the profile
# a valid file, and the agent must say it once.
source "$(dirname "$0")/../lib/common.sh"
FRONT=$HPROF_BIN/hprof-front

# The byte 0x05 (EXIT THE VM) is never generated, so no accident can end the VM early.
byte() { local b=$((RANDOM % 256)); [[ $b -eq 5 ]] && b=6; printf '%02x' $b; }
bytes() { local i; for ((i = 0; i < $1; i++)); do byte; done; }
u4() { printf '%08x' "$1"; }
header() { echo -n "$1 00000001 $(u4 "$2")"; }     # tag, serial 1, length
cutoff_bits() {   # a float cutoff: mostly good ones, sometimes NaN, negative, above 1
  case $((RANDOM % 6)) in 0) echo 7fc00000 ;; 1) echo bf000000 ;; 2) echo 40000000 ;; 3) echo 00000000 ;; *) echo 3c23d70a ;; esac
}
VALID=0   # good CPU SAMPLES commands generated
# fragment KIND: one raw command line for the front end.
fragment() {
  case $1 in
    0) case $((RANDOM % 6)) in     # good commands (and some bad values)
         0) echo "raw $(header 06 0)" ;;
         1) local c; c=$(cutoff_bits); echo "raw $(header 07 6) 0000 $c"
            [[ $c == 00000000 || $c == 3c23d70a ]] && VALID=$((VALID + 1)) ;;
         2) echo "raw $(header 08 4) 0006 $(printf '%04x' $(( (RANDOM % 15) + 6 )))" ;;   # depth 6..20
         3) echo "raw $(header 08 6) 000$((3 + RANDOM % 2)) $(u4 $((0x50000000 + RANDOM % 64)))" ;;
         4) echo "raw $(header 08 2) 000$((1 + RANDOM % 2))" ;;
         5) echo "raw $(header 03 6) 000$((RANDOM % 4)) $(cutoff_bits)" ;;
       esac ;;
    1) local n=$((RANDOM % 11)); [[ $n -eq 5 ]] && n=4        # unknown tags, in step
       local t; t=$(printf '%02x' $(( (RANDOM % 200) + 9 ))); [[ $t == ff ]] && t=fe
       echo "raw $(header $t $n) $(bytes $n)" ;;
    2) local n=$(( (RANDOM % 10) + 1 )); [[ $n -eq 5 ]] && n=7  # known tags, wrong lengths
       echo "raw $(header 0$(( (RANDOM % 2) * 5 + 1 )) $n) $(bytes $n)" ;;
    3) echo "raw $(header 08 2) $(printf '%04x' $(( (RANDOM % 100) + 7 )))" ;;         # unknown CONTROL
    4) echo "raw $(header 07 6) 00 $(bytes $((RANDOM % 5)))" ;;                         # truncated body
    5) echo "raw $(bytes $(( (RANDOM % 12) + 1 )))" ;;                                  # garbage
  esac
  return 0
}

# session NAME KINDS COUNT TAIL...: runs NetServer 4000 with COUNT fragments of the
# given kinds (modulo), then the TAIL lines; leaves out.txt, NAME.hprof, $RC.
session() {
  local name=$1 kinds=$2 count=$3; shift 3
  rm -f port.txt
  {
    echo "pause 300"
    for ((i = 0; i < count; i++)); do
      fragment "${kinds:$((RANDOM % ${#kinds})):1}"
      if (( i % 25 == 24 )); then echo "pause 20"; fi
    done
    for l in "$@"; do echo "$l"; done
  } >"$name.cmds"
  "$FRONT" -q -P port.txt -o "$name.hprof" -t 60 <"$name.cmds" 2>"$name.front" &
  local fpid=$!
  for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
  run_java "$(agent "cpu=samples,format=b,net=127.0.0.1:$(cat port.txt)")" NetServer 4000
  wait $fpid || true
}

# 1. Only commands that keep the stream in step, good and bad: every one is read, and
#    a last good command after them is still answered.
RANDOM=4242
VALID=0
session instep 000123 300 "pause 200" "cpu samples 0"
valid=$VALID
check "in step: the program ends by itself, status 4, output intact" \
  bash -c "[[ $RC -eq 4 ]] && grep -qx started out.txt && grep -qx finished out.txt"
check "in step: one warning for all the bad commands" \
  bash -c "[[ \$(grep -c 'HPROF WARNING: bad command on the net= socket' out.txt) -eq 1 ]] && ! grep -q 'HPROF ERROR' out.txt"
check "in step: every good CPU SAMPLES was answered ($valid + the last + the exit dump)" \
  test "$("$HPROF_DUMP" instep.hprof | grep -c '^CPU_SAMPLES')" -eq $((valid + 2))
check "in step: the profile is a valid file" hprof_check instep.hprof

# 2. Everything, garbage and truncated bodies too: the listener may stop reading when the
#    stream is out of step, but the program and the profile carry on.
for seed in 7 99; do
  RANDOM=$seed
  session any$seed 0012345 300
  check "seed $seed: the program ends by itself, status 4, output intact" \
    bash -c "[[ $RC -eq 4 ]] && grep -qx started out.txt && grep -qx finished out.txt"
  check "seed $seed: reported once, no error" \
    bash -c "[[ \$(grep -c 'HPROF WARNING: bad command on the net= socket' out.txt) -eq 1 ]] && ! grep -q 'HPROF ERROR' out.txt"
  check "seed $seed: the profile is a valid file ending with the exit dump" \
    bash -c "\"$HPROF_DUMP\" --check any$seed.hprof >/dev/null && \"$HPROF_DUMP\" any$seed.hprof | grep '^[A-Z]' | tail -1 | grep -q '^CPU_SAMPLES'"
done

# 3. The peer vanishes in the middle of a command: the program does not notice.
RANDOM=3
session vanish 000123 50 "pause 200" "raw 07 000000" "close"
check "peer gone mid-command: the program ends by itself, status 4, output intact" \
  bash -c "[[ $RC -eq 4 ]] && grep -qx started out.txt && grep -qx finished out.txt"
check "peer gone mid-command: at most one warning and one error, no crash" \
  bash -c "[[ \$(grep -c '^HPROF WARNING: bad command' out.txt) -le 1 && \$(grep -c '^HPROF ERROR' out.txt) -le 1 ]] && ! ls hs_err* >/dev/null 2>&1"
check "peer gone mid-command: what arrived before is readable" bash -c "\"$HPROF_DUMP\" --check --lenient vanish.hprof >/dev/null 2>&1 || \"$HPROF_DUMP\" vanish.hprof 2>&1 | grep -q '^HEADER'"
jni_clean
