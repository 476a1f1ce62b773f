#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# net= commands fuzzed: random, wrong and truncated commands thrown at a live agent
# through the front end (loopback only, a few hundred commands, seconds each). The
# program must run to its own end with its own status, its output intact, the profile
# a valid file, and the agent must say it once.
source "$(dirname "$0")/../lib/common.sh"
FRONT=$HPROF_BIN/hprof-front

# commands SEED KINDS COUNT: COUNT raw command lines for the front end, each of a kind
# drawn from KINDS (digits 0-5, below), a "pause 20" after every 25th, drawn from SEED
# (one awk, not a subshell a byte); then a line "valid N": the good CPU SAMPLES commands
# generated. The byte 0x05 (EXIT THE VM) is never generated, so no accident can end the
# VM early. Kinds: 0 good commands (and some bad values), 1 unknown tags in step,
# 2 known tags with wrong lengths, 3 unknown CONTROL, 4 truncated body, 5 garbage.
commands() {
  awk -v seed="$1" -v kinds="$2" -v count="$3" '
    function r() { return int(rand() * 32768) }          # as bash RANDOM: 0..32767
    function byte(  b) { b = r() % 256; if (b == 5) b = 6; return sprintf("%02x", b) }
    function bytes(n,  s, i) { s = ""; for (i = 0; i < n; i++) s = s byte(); return s }
    function u4(v) { return sprintf("%08x", v) }
    function header(tag, len) { return tag " 00000001 " u4(len) }   # tag, serial 1, length
    function cutoff(  k) {   # a float cutoff: mostly good ones, sometimes NaN, negative, above 1
      k = r() % 6
      return k == 0 ? "7fc00000" : k == 1 ? "bf000000" : k == 2 ? "40000000" : k == 3 ? "00000000" : "3c23d70a"
    }
    function fragment(kind,  k, c, n, t) {
      if (kind == 0) {
        k = r() % 6
        if (k == 0) return "raw " header("06", 0)
        if (k == 1) { c = cutoff(); if (c == "00000000" || c == "3c23d70a") valid++; return "raw " header("07", 6) " 0000 " c }
        if (k == 2) return "raw " header("08", 4) " 0006 " sprintf("%04x", r() % 15 + 6)     # depth 6..20
        if (k == 3) { c = "000" (3 + r() % 2); return "raw " header("08", 6) " " c " " u4(1342177280 + r() % 64) }
        if (k == 4) return "raw " header("08", 2) " 000" (1 + r() % 2)
        c = "000" (r() % 4); return "raw " header("03", 6) " " c " " cutoff()
      }
      if (kind == 1) {
        n = r() % 11; if (n == 5) n = 4
        t = sprintf("%02x", r() % 200 + 9); if (t == "ff") t = "fe"
        return "raw " header(t, n) " " bytes(n)
      }
      if (kind == 2) {
        n = r() % 10 + 1; if (n == 5) n = 7
        t = "0" ((r() % 2) * 5 + 1)
        return "raw " header(t, n) " " bytes(n)
      }
      if (kind == 3) return "raw " header("08", 2) " " sprintf("%04x", r() % 100 + 7)
      if (kind == 4) return "raw " header("07", 6) " 00 " bytes(r() % 5)
      return "raw " bytes(r() % 12 + 1)
    }
    BEGIN {
      srand(seed); valid = 0
      for (i = 0; i < count; i++) {
        print fragment(substr(kinds, r() % length(kinds) + 1, 1) + 0)
        if (i % 25 == 24) print "pause 20"
      }
      print "valid " valid
    }'
}

# session NAME KINDS COUNT TAIL...: runs NetServer 4000 with COUNT fragments of the
# given kinds (modulo), then the TAIL lines; leaves out.txt, NAME.hprof, $RC. Its threads
# sleep ("quiet"): the records are checked, not what samples they hold.
session() {
  local name=$1 kinds=$2 count=$3; shift 3
  rm -f port.txt
  commands "$RANDOM" "$kinds" "$count" >"$name.gen"
  VALID=$(sed -n 's/^valid //p' "$name.gen")
  {
    echo "pause 300"
    grep -v '^valid ' "$name.gen"
    for l in "$@"; do echo "$l"; done
  } >"$name.cmds"
  "$FRONT" -q -P port.txt -o "$name.hprof" -t 60 <"$name.cmds" 2>"$name.front" &
  local fpid=$!
  for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.1; done
  run_java "$(agent "cpu=samples,format=b,net=127.0.0.1:$(cat port.txt)")" NetServer 4000 quiet
  wait $fpid || true
}

# 1. Only commands that keep the stream in step, good and bad: every one is read, and
#    a last good command after them is still answered.
RANDOM=4242
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
