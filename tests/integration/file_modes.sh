#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every file the agent leaves is its user's alone (0600), whatever the umask: profiles and
# heap dumps hold the program's secrets. The views' and the timeline page's temporary files
# have random names made with O_EXCL: a link planted at the old name (path.tmp<pid>) is not
# followed. The JVM's own dump (heap=dump,format=b) is written in a folder of the user's
# alone and goes in every path.
source "$(dirname "$0")/../lib/common.sh"
umask 022
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"

# modes_ok WHAT FILE...: each file exists and has mode 600.
modes_ok() {
  local what=$1 f bad=""; shift
  for f in "$@"; do
    [[ -f $f && $(stat -c %a "$f") == 600 ]] || bad+=" $f($(stat -c %a "$f" 2>/dev/null || echo missing))"
  done
  check "$what: 0600 under umask 022${bad:+, not:$bad}" test -z "$bad"
}
# leftovers: anything of the agent's in TMPDIR or the work folder besides the named files.
leftovers() { find "$WORK/tmp" "$WORK" -maxdepth 1 \( -name '.hprof*' -o -name '*.tmp-*' \) | tr '\n' ' '; }

run_java "$(agent cpu=samples,file=c.txt)" HotMethod 300
modes_ok "cpu=samples, the text profile" c.txt

run_java "$(agent cpu=samples,format=b,file=c.hprof)" HotMethod 300
modes_ok "cpu=samples,format=b, the binary profile" c.hprof

run_java "$(agent heap=dump,file=d.txt)" HotMethod 100
modes_ok "heap=dump, the text heap dump" d.txt

run_java "$(agent heap=dump,format=b,file=d.hprof)" HotMethod 100
modes_ok "heap=dump,format=b (the JVM's dump rewritten), the binary heap dump" d.hprof
check "heap=dump,format=b: the JVM's own dump is gone [$(leftovers)]" test -z "$(leftovers)"

HPROF_HEAP_DUMPER=jvmti run_java "$(agent heap=dump,format=b,file=w.hprof)" HotMethod 100
modes_ok "heap=dump,format=b through JVMTI, the binary heap dump" w.hprof

run_java "$(agent heap=sites,cpu=samples,view=all,file=v.txt)" HotMethod 300
modes_ok "view=all, the profile and each view" v.txt v.cpu.html v.cpu.collapsed v.cpu.pb.gz v.sites.html \
  v.sites.collapsed v.sites.pb.gz

run_java "$(agent heap=sites,timeline=gc,file=t.txt)" TimelineAlloc counts t.txt
modes_ok "timeline=gc, the profile and its page" t.txt t.timeline.html

echo old >f.txt
chmod 644 f.txt
run_java "$(agent cpu=samples,force=y,file=f.txt)" HotMethod 100
modes_ok "force=y over a 0644 file" f.txt

# A link at the name the views' temporary file used to have: the program's pid is known
# once it runs, and the views are written at its end.
echo secret >victim
chmod 644 victim
set +e
"$JAVA" -Xcheck:jni "$(agent cpu=samples,view=collapsed,file=s.txt)" -cp "$TEST_CLASSES" HotMethod 1500 >out.txt 2>&1 &
pid=$!
ln -s "$WORK/victim" "s.cpu.collapsed.tmp$pid"
wait $pid
set -e
check "a link planted at the old temporary name: the victim is untouched, the view written" \
  bash -c "[[ \$(cat victim) == secret && -L s.cpu.collapsed.tmp$pid && -f s.cpu.collapsed && ! -L s.cpu.collapsed ]]"
modes_ok "the view written beside the planted link" s.cpu.collapsed

# The JVM's dump while it is written (a SIGQUIT dump of a big heap): in a folder only the
# user can enter.
started_pid=""
set +e
"$JAVA" -Xcheck:jni "$(agent heap=dump,format=b,file=$WORK/q.hprof)" -cp "$TEST_CLASSES" WaitStorm 10 2000 60000 >out.txt 2>&1 &
started_pid=$!
for _ in $(seq 300); do grep -q '^ready' out.txt 2>/dev/null && break; sleep 0.1; done
kill -QUIT $started_pid
seen=""
for _ in $(seq 500); do
  seen=$(find "$WORK" -maxdepth 1 -name '.hprof-jvm-dump*' -printf '%y%m ' 2>/dev/null)
  [[ -n $seen ]] && break
  sleep 0.01
done
kill -TERM $started_pid
wait $started_pid
set -e
if [[ -z $seen ]]; then
  skip "the JVM's dump in a private folder" "the dump was over before it was seen"
else
  check "the JVM's dump while it is written: a folder of mode 700 [$seen]" test "$seen" = "d700 "
fi
check "after SIGQUIT and SIGTERM: nothing of the JVM's dump left [$(leftovers)]" test -z "$(leftovers)"
modes_ok "the heap dumps of SIGQUIT and of the exit" q.hprof
jni_clean
