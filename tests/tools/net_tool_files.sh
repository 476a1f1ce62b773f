#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-front and hprof-listen write their files safely: the port file through a
# temporary no one can guess (a link planted at PORTFILE.tmp is not followed), the
# profile never through a link, and 0600 (a profile holds the program's data).
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${HPROF_BIN:-$ROOT/build}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-net-files-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

ok()     { echo "ok - net tool files: $*"; }
not_ok() { echo "not ok - net tool files: $*"; }
check()  { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

# peer PORTFILE: once the port is written, connects, sends a line and closes.
peer() {
  for _ in $(seq 100); do [[ -s $1 ]] && break; sleep 0.1; done
  [[ -s $1 ]] || return 1
  exec 3<>"/dev/tcp/127.0.0.1/$(cat "$1")" && echo "JAVA PROFILE 1.0.1" >&3
  exec 3>&-
}

for tool in front listen; do
  # run_tool PORTFILE OUTFILE: the tool, one connection, its exit code in $RC.
  run_tool() {
    RC=0
    if [[ $tool == front ]]; then timeout 30 "$BIN/hprof-front" -q -P "$1" -o "$2" -t 20 </dev/null 2>"$tool.err" &
    else timeout 30 "$BIN/hprof-listen" "$1" "$2" 2>"$tool.err" & fi
    local pid=$!
    peer "$1"
    wait $pid || RC=$?
  }
  echo "the victim's own text" >victim; chmod 644 victim
  rm -f port.txt; ln -s "$WORK/victim" port.txt.tmp
  run_tool port.txt "$tool.out"
  check "hprof-$tool: a link at PORTFILE.tmp is not followed [exit $RC]" \
    bash -c "[[ \$(cat victim) == \"the victim's own text\" && -s port.txt && ! -L port.txt ]]"
  check "hprof-$tool: the profile is whole and 0600" \
    bash -c "[[ \$(cat $tool.out) == 'JAVA PROFILE 1.0.1' && \$(stat -c %a $tool.out) == 600 ]]"
  rm -f port.txt port.txt.tmp; ln -s "$WORK/victim" "$tool.link"
  run_tool port.txt "$tool.link"
  check "hprof-$tool: a profile named by a link is refused [exit $RC]" \
    bash -c "[[ $RC != 0 && \$(cat victim) == \"the victim's own text\" ]]"
  rm -f port.txt "$tool.link"
done
