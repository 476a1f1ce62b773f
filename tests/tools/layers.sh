#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The architecture's rules, checked on the tree (docs/architecture.md, "Rules"):
#   - each layer includes only itself and the layers below it;
#   - no JVMTI or JNI call under src/tables/;
#   - output and record writing only in src/writers/ and src/report/;
#   - no loop of calls between the files of src/ and of each tool.
set -u
ROOT=${HPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-layers-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok()     { echo "ok - layers: $*"; }
not_ok() { echo "not ok - layers: $*"; }

# Folders each layer may include from (itself included).
declare -A MAY=(
  [util]="util"
  [classfile]="classfile util"
  [native]="native util"
  [options]="options util"
  [tables]="tables util"
  [sources]="sources tables classfile native options util"
  [writers]="writers tables options util"
  [report]="report sources writers tables options util"
  [agent]="agent report sources writers tables options util"
)
# (One awk a layer: a process for each include line cost seconds.)
for layer in "${!MAY[@]}"; do
  bad=$(grep -Hn '#include "' $(find src/"$layer" -name "*.[ch]") 2>/dev/null |
    awk -v may=" ${MAY[$layer]} gen " '{ dir = $0; sub(/.*#include "/, "", dir); sub(/\/.*/, "", dir)
                                       if (index(may, " " dir " ") == 0) print }')
  if [[ -z "$bad" ]]; then ok "src/$layer includes only ${MAY[$layer]}"
  else not_ok "src/$layer includes a layer above it:"; echo "$bad" | sed 's/^/#   /'; fi
done

# Any call through an environment's function table, whatever the pointer is called
# ((*jni)->, (*h->jvmti)->, (*w->tj)->, ...).
calls=$(grep -HnE '\(\*[A-Za-z_][A-Za-z0-9_>.-]*\)->' src/tables/*.c src/tables/*.h 2>/dev/null)
if [[ -z "$calls" ]]; then ok "no JVMTI or JNI call under src/tables"
else not_ok "JVMTI or JNI calls under src/tables:"; echo "$calls" | head | sed 's/^/#   /'; fi

writes=$(grep -Hn -E '\b(output_[a-z_]+|bin_[a-z_]+|text_[a-z_]+|monitor_text_[a-z_]+)\(' \
         $(find src/sources -name "*.c") src/tables/*.c src/agent/*.c src/options/*.c src/util/*.c src/classfile/*.c 2>/dev/null | grep -v '^[^:]*:[0-9]*: *[/*]')
if [[ -z "$writes" ]]; then ok "output is written only under src/writers and src/report"
else not_ok "output written outside src/writers and src/report:"; echo "$writes" | head | sed 's/^/#   /'; fi

# Calls between files, from the symbols each object defines and uses; a loop is a
# strongly connected set of two or more files.
symbols() {  # symbols OBJ...: "def SYMBOL FILE" and "use SYMBOL FILE" lines, from one nm
  nm -A "$@" | awk '{ i = index($0, ":"); f = substr($0, 1, i - 1); n = split(substr($0, i + 1), w, " ")
                      if (n == 3 && w[2] ~ /^[TDBR]$/) print "def", w[3], f
                      else if (n == 2 && w[1] == "U") print "use", w[2], f }'
}
file_graph() {  # file_graph OBJ...: prints "from to" for each call between two objects
  symbols "$@" |
    awk '$1 == "def" {def[$2] = $3; next} {use[NR] = $2 " " $3}
         END {for (i in use) {split(use[i], u, " "); if ((u[1] in def) && def[u[1]] != u[2]) print u[2], def[u[1]]}}' | sort -u
}
loops() {  # loops < EDGES: prints each pair of files that reach each other
  # One search from each file marks all it reaches; then each pair is two lookups.
  awk '{e[$1] = e[$1] " " $2; n[$1]; n[$2]}
       function search(a,   stack, top, x, k, parts, i) {
         top = 0; stack[++top] = a
         while (top > 0) { x = stack[top--]; k = split(e[x], parts, " ")
           for (i = 1; i <= k; i++) if (!((a, parts[i]) in reach)) { reach[a, parts[i]]; stack[++top] = parts[i] } } }
       END {for (a in n) search(a)
            for (a in n) for (b in n) if (a < b && (a, b) in reach && (b, a) in reach) print a " <-> " b}'
}
check_loops() {  # check_loops NAME OBJ...
  local name=$1; shift
  local found; found=$(file_graph "$@" | loops)
  if [[ -z "$found" ]]; then ok "no loop of calls between the files of $name"
  else not_ok "loops of calls between the files of $name:"; echo "$found" | sed "s|$WORK/||g; s/^/#   /"; fi
}
# The objects of today's sources only (a file removed since may have left one behind).
OBJ=${HPROF_BIN:-build}/obj
mapfile -t objs < <(find src -name '*.c' | sort | sed 's|^\(.*\)\.c$|\1.o|; s|^|'"$OBJ"'/|')
missing=$(for o in "${objs[@]}"; do [[ -f "$o" ]] || echo "$o"; done)
if [[ -z "$missing" ]]; then check_loops src "${objs[@]}"
else not_ok "objects not built (run make first): $(echo $missing)"; fi
# compile DIR FLAGS... -- FILE...: the files' objects in DIR, by one gcc (one a file
# cost seconds of start-up); prints " FILE" for each that does not compile.
compile() {
  local out=$1 flags=() c; shift
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done; shift
  local files=("${@/#/$ROOT/}")
  (cd "$out" && gcc -std=c11 -D_GNU_SOURCE -I"$ROOT/src" -I"$ROOT/tools/common" "${flags[@]}" -c "${files[@]}" 2>/dev/null) && return
  for c in "$@"; do
    (cd "$out" && gcc -std=c11 -D_GNU_SOURCE -I"$ROOT/src" -I"$ROOT/tools/common" "${flags[@]}" -c "$ROOT/$c" 2>/dev/null) || echo -n " $c"
  done
}
for dir in tools/*/; do
  tool=$(basename "$dir"); mkdir -p "$WORK/$tool"
  broken=$(compile "$WORK/$tool" -I"$ROOT/$dir" -- "$dir"*.c)
  # A file that does not compile would hide its calls: say so instead of passing.
  if [[ -n "$broken" ]]; then not_ok "tools/$tool: cannot compile$broken"; continue; fi
  check_loops "tools/$tool" "$WORK/$tool"/*.o
done

# Includes between files, a file's .c and .h counting as one: a loop means two files
# declare each other's functions (each function belongs in its own file's header).
include_edges() {  # prints "from to" for each #include "..." between the tree's files
  find src tools -name '*.[ch]' | sort | xargs awk '/^#include "/ { i = $0; sub(/^#include "/, "", i); sub(/".*/, "", i); print FILENAME, i }' |
    while read -r f inc; do
      local t=""
      for base in src "${f%/*}" tools/common; do [[ -f "$base/$inc" ]] && { t="$base/$inc"; break; }; done
      [[ -n "$t" && "${t%.?}" != "${f%.?}" ]] && echo "${f%.?} ${t%.?}"
    done | sort -u
}
# A header that declares functions another file defines stands for that file too: an
# edge from the header's file to the definer's. So a header that declares the functions
# of several files which all include it (an "internal" header) is a loop like any other,
# though no two of them include each other. gcc -aux-info lists, for each translation
# unit, every function declared or defined, with the file and line where it is.
JDK=${JAVA_HOME:-$(tests/lib/jdks.sh --first)}
# Headers that still declare other files' functions (issue 47 splits them in turn);
# none may be added.
SHARED_HEADERS=" src/agent/agent src/classfile/cf_code src/classfile/cf_internal src/classfile/classfile
  src/sources/heapdump/jdk_dump_internal src/sources/heapdump/jdk_dump_reader src/writers/heap_dump
  src/writers/timeline_records src/writers/views "
declaration_edges() {  # prints "header's file  definer's file" for each such declaration
  mkdir -p "$WORK/aux"
  find src -name '*.c' | sort | AUX="$WORK/aux" JDK="$JDK" xargs -P2 -I{} sh -c \
    'gcc -std=c11 -D_GNU_SOURCE -DHPROF_VERSION="\"\"" -Isrc -isystem "$JDK/include" -isystem "$JDK/include/linux" \
       -fsyntax-only -aux-info "$AUX/$(echo "$1" | tr / _).aux" "$1" 2>/dev/null || echo "not compiled: $1" >&2' _ {}
  cat "$WORK"/aux/*.aux | awk -v shared=" $(echo $SHARED_HEADERS) " '
    $1 == "/*" && $2 !~ /^\// && match($0, /[A-Za-z_][A-Za-z0-9_]* \(/) {
      split($2, p, ":"); name = substr($0, RSTART, RLENGTH - 2); kind = substr(p[3], 2, 1)
      if (kind == "F" && $0 !~ /\*\/ static /) def[name] = p[1]
      else if (kind == "C" && p[1] ~ /\.h$/) decl[name, p[1]] }
    END { for (k in decl) { split(k, q, SUBSEP); if (!(q[1] in def)) continue
            h = q[2]; d = def[q[1]]; sub(/\.h$/, "", h); sub(/\.c$/, "", d)
            if (h != d && index(shared, " " h " ") == 0) print h, d } }' | sort -u
}
found=$( { include_edges; declaration_edges; } | loops)
if [[ -z "$found" ]]; then ok "no loop of includes and declarations between files (a file's .c and .h as one)"
else not_ok "loops of includes and declarations between files:"; echo "$found" | sed 's/^/#   /'; fi

# Exported symbols that no other file uses: dead code, or a function to make static.
# The uses come from every object of the tree: the agent's, the tools', the tests'.
mkdir -p "$WORK/tests"
broken=$(compile "$WORK/tests" -DHPROF_VERSION='""' -I"$ROOT/tests/unit" -I"$ROOT/tests/fuzz" -I"$ROOT/tools/hprof" \
  -isystem "$JDK/include" -isystem "$JDK/include/linux" -- tests/unit/test_*.c tests/fuzz/fuzz_*.c tests/fuzz/replay.c)
[[ -z "$broken" ]] || not_ok "cannot compile$broken"
ENTRY=" main Agent_OnLoad Agent_OnAttach Agent_OnUnload LLVMFuzzerTestOneInput __asan_default_options "
mapfile -t every < <(for o in "${objs[@]}" "$WORK"/*/*.o; do [[ -f "$o" ]] && echo "$o"; done)
unused=$(symbols "${every[@]}" | awk -v entry="$ENTRY" '$1 == "def" {def[$2] = $3; next}
      {if (!($2 in other)) other[$2] = ""; if (index(other[$2], " " $3 " ") == 0) other[$2] = other[$2] " " $3 " "}
      END {for (s in def) { if (index(entry, " " s " ") || s ~ /^__(odr_)?asan/) continue  # ASan'"'"'s own
             n = split(other[s], u, " "); used = 0
             for (i = 1; i <= n; i++) if (u[i] != def[s]) used = 1
             if (!used) print def[s] ": " s } }' | sed "s|$WORK/||; s|^$OBJ/||" | sort)
if [[ -z "$unused" ]]; then ok "every exported symbol is used by another file"
else not_ok "exported symbols no other file uses (remove them, or make them static):"; echo "$unused" | sed 's/^/#   /'; fi
