#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build/hprof against a hostile target (issue #27), on the JDK under test, -Xcheck:jni:
#   D  -XX:+DisableAttachMechanism with -XX:-UsePerfData: refused from /proc's command
#      line, no SIGQUIT (no thread dump on the program's stdout)
#   N  root attaching to a JVM run as another user (nobody): dump FILE and profile -o
#      work, the copies are root's and 0600; many relative file= words from a folder of
#      ~3000 characters (a heap overflow, seen under ASan)
#   F  a JVM that lies (tests/java/FakeAttachPeer.java, run as nobody): its answer names
#      root's secret, a FIFO, /dev/zero, a link; its reply file is a link or a FIFO: the
#      tool copies nothing, neither hangs nor fills the disk
#   E  a program that ends inside profile's window: the tool notices at once, exit 0,
#      the profile (written at exit) copied
#   K  a container (mount namespace, chroot) whose /tmp is a link out of its root:
#      nothing is made outside it
# Needs root and setpriv (it runs JVMs as uid 65534): skipped otherwise.
# Under make check its JVMs run without the sanitizer, its tools with it (tests/run.sh):
# hprof-test: plain-jvm
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"

# ---- D: attach off and no jvmstat ----
start_target D -XX:+DisableAttachMechanism -XX:-UsePerfData
hp start $PID cpu=samples
expect_fail 6 'DisableAttachMechanism' "attach off, jvmstat off: refused from the command line"
end_target D
check "attach off, jvmstat off: no thread dump on the program's stdout" test "$(cat D.out)" = "$(printf 'ready\ndone')"

if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null; then
  skip "another user's JVM, a lying JVM, a container" "needs root and setpriv"
  jni_clean
  exit 0
fi
NOBODY=(setpriv --reuid 65534 --regid 65534 --clear-groups)
chmod 711 "$WORK"   # the targets run as nobody look for their flag files here

# ---- N: root and nobody's JVM ----
AS=("${NOBODY[@]}")
start_target N
AS=()
N=$PID
if [[ -z "$N" ]]; then not_ok "nobody's target program did not start"; exit 0; fi
hp profile $N -d 2s -o "$WORK/n-prof.txt"
check "nobody's JVM: profile -o FILE works from root, hot method on top [exit $HRC]" \
  bash -c "[[ $HRC == 0 && '$(rank1_method n-prof.txt 2>/dev/null)' == AttachTarget.hot ]]"
check "nobody's JVM: profile's copy is root's, 0600" test "$(stat -c '%U %a' n-prof.txt)" = "root 600"
hp start $N
hp dump $N "$WORK/n-copy.txt"
check "nobody's JVM: dump FILE works from root [exit $HRC]" bash -c "[[ $HRC == 0 ]] && grep -q '^CPU SAMPLES BEGIN' n-copy.txt"
check "nobody's JVM: the copy is root's, 0600" test "$(stat -c '%U %a' n-copy.txt)" = "root 600"
hp stop $N
hp profile $N -d 1s -o "$WORK/n-prof.collapsed"
check "nobody's JVM: profile -o .collapsed, the hot method in the heaviest stack" \
  bash -c "[[ $HRC == 0 ]] && sort -t' ' -k2 -nr n-prof.collapsed | head -1 | grep -q 'AttachTarget.hot '"
# Many relative file= words from a folder of ~3000 characters: join_options gave one
# folder's length per argument (an overflow ASan sees; tests/check.sh counts its report).
long=$WORK
for i in $(seq 12); do long=$long/$(printf 'f%.0s' $(seq 240)); done
mkdir -p "$long"
words=$(for i in $(seq 40); do printf 'file=w%d.txt,' $i; done)
( cd "$long" && hp start $N "${words}bogus=1" && echo "$HRC" >"$WORK/long.rc" ) 
cp "$long/hp.err" long.err 2>/dev/null || true
check "many file= words from a long folder: a clean refusal, no overflow [exit $(cat long.rc 2>/dev/null)]" \
  bash -c "[[ \$(cat long.rc) =~ ^(2|9)$ ]] && ! grep -q AddressSanitizer long.err"
rm -rf "$WORK/$(printf 'f%.0s' $(seq 240))"
end_target N
# The agent's own files of nobody's JVM (the tool leaves them for later requests).
sed -n "s|^hprof: the agent's own file stays in the JVM's \(/tmp/hprof-profile-[A-Za-z0-9]*\)/.*|\1|p" \
  hp-all.out 2>/dev/null | sort -u | xargs -r rm -rf
check "nobody's JVM: output and exit code unchanged" bash -c "[[ \$(cat N.out) == \$'ready\\ndone' && \$(cat N.rc) == 3 ]]"

# ---- F: a lying JVM ----
SECRET=$(mktemp -d /tmp/hprof-safety-secret-XXXXXX)
echo "root's secret $$" >"$SECRET/secret"; chmod 600 "$SECRET/secret"; chmod 755 "$SECRET"
mkfifo "$SECRET/fifo"; chown 65534:65534 "$SECRET/fifo"
ln -s "$SECRET/secret" "$SECRET/link"; chown -h 65534:65534 "$SECRET/link"
echo "HPROF: dump written to $SECRET/secret" >lie.txt; chmod 644 lie.txt
( umask 077; rc=0; timeout -k 10 300 "${NOBODY[@]}" "$JAVA" -Xcheck:jni -XX:-UsePerfData -cp "$TEST_CLASSES" \
    FakeAttachPeer "$WORK/lie.txt" >F.out 2>F.err || rc=$?; echo $rc >F.rc ) &
for _ in $(seq 300); do grep -q ready F.out 2>/dev/null && break; sleep 0.1; done
F=$(pgrep -f "FakeAttachPeer $WORK/lie.txt" | while read -r p; do
      [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
if [[ -z "$F" ]]; then not_ok "the lying JVM did not start"; exit 0; fi
# lie WHAT TEXT: the lying JVM answers TEXT; dump FILE must copy nothing.
lie() {
  printf '%s\n' "$2" >lie.txt
  rm -f f-copy
  # Bounded here too, so that a tool that does copy /dev/zero or wait on a FIFO fails
  # the check without filling the disk or holding the run.
  HRC=0; (ulimit -f 102400; exec timeout -k 5 30 "$HPROF" dump -t 10 $F "$WORK/f-copy") >hp.out 2>hp.err || HRC=$?
  check "a lying JVM, $1: refused, nothing copied [exit $HRC: $(head -c 200 hp.err | tr '\n' ' ')]" \
    bash -c "[[ $HRC != 0 && $HRC -lt 100 && ! -e f-copy ]]"
}
lie "root's 0600 file" "HPROF: dump written to $SECRET/secret"
check "a lying JVM: root's secret is nowhere in the tool's output" bash -c "! grep -q \"root's secret\" hp.out hp.err"
lie "/etc/shadow" "HPROF: dump written to /etc/shadow"
lie "a FIFO of its own (no hang)" "HPROF: dump written to $SECRET/fifo"
lie "/dev/zero (no endless copy)" "HPROF: dump written to /dev/zero"
lie "a link of its own to root's file" "HPROF: dump written to $SECRET/link"
lie "a path up and out of its root" "HPROF: dump written to /../../..$SECRET/secret"
lie "a profile in /proc/self (a magic link)" "HPROF: stopped; the profile is in /proc/self/root$SECRET/secret (the agent stays loaded and idle)"
# The reply file itself: a link to root's secret, a FIFO (the agent's answer is read only
# from a regular file of the JVM's user, opened without blocking).
lie "its reply file a link to root's file" "REPLY-LINK $SECRET/secret"
lie "its reply file a FIFO (no hang)" "REPLY-FIFO"
kill $F 2>/dev/null; wait 2>/dev/null
rm -rf "$SECRET"

# ---- E: the program ends inside the window ----
# ends_inside NAME WHO: a profile of 120 s; the program ends after its start. The tool,
# bounded far below the window, must come back with exit 0 and the profile.
ends_inside() {
  local name=$1 who=$2
  start_target "$name"
  ( HRC=0; timeout -k 5 90 "$HPROF" profile $PID -d 120s -o "$WORK/$name.txt" >"$name.hp.out" 2>"$name.hp.err" || HRC=$?
    echo $HRC >"$name.hp.rc" ) &
  local tool=$!
  for _ in $(seq 300); do grep -q 'profiling this JVM' "$name.hp.out" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  rm -f "$WORK/$name.flag"
  wait $tool
  end_target "$name"
  check "$who: a program that ends inside profile's window: exit 0, said so [exit $(cat $name.hp.rc)]" \
    bash -c "[[ \$(cat $name.hp.rc) == 0 ]] && grep -q 'ended during the profile' $name.hp.out"
  check "$who: its profile, written at exit, is there whole" \
    bash -c "grep -q '^CPU SAMPLES END' $name.txt && [[ \$(tail -n 1 $name.txt) == *' END' ]]"
}
ends_inside E "root's JVM"
AS=("${NOBODY[@]}")
ends_inside EN "nobody's JVM"
AS=()
check "nobody's JVM ended: its copy is root's, 0600" test "$(stat -c '%U %a' EN.txt)" = "root 600"

# ---- K: containers ----
# container NAME TMP: AttachTarget as nobody in a mount namespace of its own, chrooted to
# $WORK/NAME (the host's /usr, /etc, /dev, /sys bound in); TMP "link": its /tmp is a link
# to $HOSTDIR, a host folder outside its root (in /var/tmp, not under the link itself;
# inside, the same path under its root), "dir": a plain folder. Its pid in $PID.
HOSTDIR=$(mktemp -d /var/tmp/hprof-safety-host-XXXXXX); chmod 1777 "$HOSTDIR"
trap 'rm -rf "$HOSTDIR"; [[ -n ${HPROF_KEEP_WORK:-} ]] || rm -rf "$WORK"' EXIT
container() {
  local name=$1 r=$WORK/$1 host=$HOSTDIR
  mkdir -p "$r"/{usr,etc,dev,sys,proc,classes}; chmod 755 "$r"
  for l in lib lib64 bin; do [[ -L /$l ]] && ln -s "usr/$l" "$r/$l"; done
  if [[ $2 == link ]]; then ln -s "$host" "$r/tmp"; mkdir -p "$r$host"; chmod 1777 "$r$host"
  else mkdir -p "$r/tmp"; chmod 1777 "$r/tmp"; fi
  touch "$r/flag"
  ( timeout -k 10 300 unshare -m --propagation private sh -c "
      mount --rbind /usr '$r/usr' && mount --rbind /etc '$r/etc' && mount --rbind /dev '$r/dev' &&
      mount --rbind /sys '$r/sys' && mount -t proc proc '$r/proc' && mount --bind '$TEST_CLASSES' '$r/classes' &&
      exec chroot '$r' ${NOBODY[*]} '$JAVA' -Xcheck:jni -cp /classes AttachTarget /flag 240 3" \
      >"$name.out" 2>"$name.err"; echo $? >"$name.rc" ) &
  for _ in $(seq 300); do grep -q ready "$name.out" 2>/dev/null && break; sleep 0.1; done
  PID=$(pgrep -f "AttachTarget /flag" | while read -r p; do
          [[ $(cat /proc/$p/comm 2>/dev/null) == java && $(readlink /proc/$p/root) == "$r" ]] && echo "$p"; done | head -1)
}
end_container() {
  rm -f "$WORK/$1/flag"
  for _ in $(seq 300); do [[ -s "$WORK/$1.rc" ]] && break; sleep 0.1; done
}
if ! unshare -m true 2>/dev/null; then
  skip "a container whose /tmp links out of it" "unshare -m is not allowed here"
else
  container KL link
  if [[ -z "$PID" ]]; then
    not_ok "the container's JVM did not start: $(head -c 300 KL.err)"
  else
    hp start -t 5 $PID cpu=samples
    check "a container whose /tmp links out: refused [exit $HRC: $(head -c 150 hp.err)]" test "$HRC" != 0
    check "a container whose /tmp links out: nothing made outside its root [$(ls -A "$HOSTDIR" | tr '\n' ' ')]" \
      test -z "$(ls -A "$HOSTDIR")"
  fi
  end_container KL
  container KD dir
  if [[ -z "$PID" ]]; then
    not_ok "the container's JVM did not start: $(head -c 300 KD.err)"
  else
    hp profile $PID -d 2s -o "$WORK/kd.txt"
    check "a container: profile -o works from the host, hot method on top [exit $HRC]" \
      bash -c "[[ $HRC == 0 && '$(rank1_method kd.txt 2>/dev/null)' == AttachTarget.hot ]]"
    check "a container: the library copy and the agent's folder are nobody's, inside its root" \
      bash -c "[[ \$(stat -c %u KD/tmp/.hprof-65534 KD/tmp/.hprof-65534/libhprof.so KD/tmp/hprof-profile-* | sort -u) == 65534 ]]"
  fi
  end_container KD
fi

jni_clean
