# Shared helpers for integration tests. Sourced by tests/integration/*.sh.
# The runner exports: JAVA_HOME (the JDK under test), HPROF_LIB (build/libhprof.so),
# HPROF_ROOT (the checkout), TEST_CLASSES (compiled tests/java), HPROF_DUMP (the reader).
set -u
JAVA="$JAVA_HOME/bin/java"
JDK_NAME=$(basename "$JAVA_HOME")
JDK_FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hprof-$TEST_NAME-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

ok()     { echo "ok - [$JDK_NAME] $TEST_NAME: $*"; }
not_ok() { echo "not ok - [$JDK_NAME] $TEST_NAME: $*"; }

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1; shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# run_java [java options...] MainClass [args]: runs the JVM under test with -Xcheck:jni,
# stdout+stderr captured in $WORK/out.txt and the exit code in $RC.
run_java() {
  set +e
  "$JAVA" -Xcheck:jni -cp "$TEST_CLASSES" "$@" >"$WORK/out.txt" 2>&1
  RC=$?
  set -e
}

# agent OPTIONS: the -agentpath argument for the library under test.
agent() { if [[ -n "${1:-}" ]]; then echo "-agentpath:$HPROF_LIB=$1"; else echo "-agentpath:$HPROF_LIB"; fi; }

# has_line FILE REGEX: FILE contains a line matching the extended REGEX.
has_line() { grep -Eq -- "$2" "$1"; }

# hprof_check FILE: the project's reader validates a binary file.
hprof_check() { "$HPROF_DUMP" --check "$1" >"$WORK/check.txt" 2>&1; }
