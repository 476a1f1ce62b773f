#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lists the JDKs to test on, one JAVA_HOME per line.
#   HPROF_JDKS="dir1 dir2"  an explicit list (wins over everything)
#   JAVA_HOME               used when set and HPROF_JDKS is not
#   otherwise every JDK (version 17 or later, with jvmti.h) under /usr/lib/jvm
# --first prints only the first one (the build needs one set of JNI headers).
set -u
list() {
  if [[ -n "${HPROF_JDKS:-}" ]]; then
    for d in $HPROF_JDKS; do echo "$d"; done; return
  fi
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then echo "$JAVA_HOME"; return; fi
  local seen=" "
  for d in /usr/lib/jvm/*/; do
    d=${d%/}
    [[ -x "$d/bin/java" && -x "$d/bin/javac" && -f "$d/include/jvmti.h" ]] || continue
    local real; real=$(readlink -f "$d")
    [[ "$seen" == *" $real "* ]] && continue
    seen="$seen$real "
    local v; v=$("$d/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    [[ -n "$v" && "$v" -ge 17 ]] 2>/dev/null && echo "$real"
  done
}
if [[ "${1:-}" == "--first" ]]; then list | head -n 1; else list; fi
