#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# -XX:+ExitOnOutOfMemoryError: HotSpot would _exit(3) before telling the agent, losing
# the profile. The agent takes the flag over: the program still ends with status 3 and
# HotSpot's line on the stream HotSpot uses (as in a run without the agent), and the
# profile is whole. WaitStorm 10 5000 keeps 5,000,000 small arrays: more than 32 MB.
source "$(dirname "$0")/../lib/common.sh"

LINE='Terminating due to java.lang.OutOfMemoryError: Java heap space'
# stream_of FILE_OUT FILE_ERR: where HotSpot's line went (out, err, both or none).
stream_of() {
  local s=""
  grep -qxF "$LINE" "$1" && s=out
  grep -qxF "$LINE" "$2" && s=${s:+both}${s:-err}
  echo "${s:-none}"
}
# oom EXTRA_JAVA_OPTIONS AGENT_ARG: the OOM run, stdout and stderr apart.
oom() {
  set +e
  timeout -k 10 300 "$JAVA" -Xcheck:jni -Xmx32m -XX:+ExitOnOutOfMemoryError $1 ${2:+"$2"} -cp "$TEST_CLASSES" \
    WaitStorm 10 5000 >o.txt 2>e.txt
  RC=$?
  cat o.txt e.txt >>all-runs.txt
  set -e
}

for vmout in "" "-XX:+DisplayVMOutputToStderr"; do
  oom "$vmout" ""
  base_rc=$RC base=$(stream_of o.txt e.txt)
  check "without the agent${vmout:+ ($vmout)}: status 3, HotSpot's line on std$base" \
    bash -c "[[ $RC -eq 3 && ( '$base' == out || '$base' == err ) ]]"

  oom "$vmout" "$(agent heap=sites,file=s.txt)"
  got=$(stream_of o.txt e.txt)
  check "heap=sites${vmout:+ ($vmout)}: status $RC (want $base_rc), HotSpot's line on std$got (want std$base)" \
    bash -c "[[ $RC -eq $base_rc && '$got' == '$base' ]]"
  check "heap=sites${vmout:+ ($vmout)}: the profile is whole (SITES BEGIN, rows, SITES END)" \
    bash -c "grep -q '^SITES BEGIN' s.txt && grep -Eq '^ +1 .* 3[0-9]{5} ' s.txt && tail -1 s.txt | grep -qx 'SITES END'"
  rm -f s.txt
done

oom "" "$(agent cpu=samples,interval=1,file=c.txt)"
check "cpu=samples: status 3, HotSpot's line on stdout" bash -c "[[ $RC -eq 3 && '$(stream_of o.txt e.txt)' == out ]]"
check "cpu=samples: the profile is whole (CPU SAMPLES BEGIN ... CPU SAMPLES END)" \
  bash -c "grep -q '^CPU SAMPLES BEGIN' c.txt && tail -1 c.txt | grep -qx 'CPU SAMPLES END'"

oom "" "$(agent heap=sites,format=b,file=b.hprof)"
check "heap=sites,format=b: status 3, the binary profile passes hprof-dump --check" \
  bash -c "[[ $RC -eq 3 ]] && \"\$1\" --check b.hprof >/dev/null 2>&1" _ "$HPROF_DUMP"

# The flag left off: an OutOfMemoryError is thrown as usual, the agent does not exit.
set +e
"$JAVA" -Xcheck:jni -Xmx32m "$(agent heap=sites,file=n.txt)" -cp "$TEST_CLASSES" WaitStorm 10 5000 >o.txt 2>e.txt
RC=$?
set -e
check "without the flag: no exit of the agent's (status $RC, not 3), the OutOfMemoryError thrown" \
  bash -c "[[ $RC -ne 3 ]] && grep -q 'java.lang.OutOfMemoryError' e.txt && ! grep -q 'Terminating due' o.txt e.txt"
jni_clean
