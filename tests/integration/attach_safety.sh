#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build/hprof against a hostile target (issue #27), on the JDK under test, -Xcheck:jni:
#   D  -XX:+DisableAttachMechanism with -XX:-UsePerfData: refused from /proc's command
#      line, no SIGQUIT (no thread dump on the program's stdout); J the same option in
#      JAVA_TOOL_OPTIONS (the JVM's environment)
#   C  `hprof list` of a JVM whose jar's name holds ESC and C1 controls (UTF-8, and raw
#      bytes in a jvmstat file): no control byte in the output; many relative file=
#      words from a folder of ~3000 characters (a heap overflow, seen under ASan)
#   E  a program that ends inside profile's window: the tool notices at once, exit 0,
#      the profile (written at exit, text or binary) copied
#   N  root attaching to a JVM run as another user (nobody): dump FILE and profile -o
#      work, the copies are root's and 0600; stat and list read its jvmstat file
#   F  a JVM that lies (tests/java/FakeAttachPeer.java, run as nobody): its answer names
#      root's secret, a FIFO, /dev/zero, a link, a sparse file of 20 GB; its reply file
#      is a link or a FIFO: the tool copies nothing, neither hangs nor fills the disk. Its
#      socket open to others or of another group, another process listening on it, its
#      pid taken by another process of its user (the socket made anew): not used
#   W  a lying JVM of root's that ends while profiled, its profile whole or cut inside a
#      record (binary) or a line (text): only the whole one is taken
#   K  a container (mount namespace, chroot) whose /tmp is a link out of its root:
#      nothing is made outside it, no jvmstat file planted at the link's target is read
#      (stat, list); one whose /tmp is a folder: profile -o, stat and list work
#   F's lies and the K cases run twice: the second time with HPROF_NO_OPENAT2=1, the
#   tool's fallback walk (a name at a time, for kernels without openat2)
# and no JVM of the script leaves a /tmp/.java_pid<pid> socket behind.
# N, F, W, K and E's second half need root and setpriv (they run JVMs as uid 65534):
# skipped otherwise.
# Under make check its JVMs run without the sanitizer, its tools with it (tests/run.sh):
# hprof-test: plain-jvm
# It runs alone: the part that hands a dead JVM's pid to another process winds the
# kernel's next pid back (ns_last_pid), and a JVM of a test beside it could take that pid
# and the stale socket of the killed one (/tmp/.java_pid<pid>), which this script then
# removes.
# hprof-test: alone
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/attach.sh"
JVMS=()   # NAME:PID of each JVM started with this machine's /tmp (sockets_left checks them)

# sockets_left: the check that none of them left its attach socket.
sockets_left() {
  local left="" j
  for j in "${JVMS[@]}"; do [[ -n "${j#*:}" && -e /tmp/.java_pid${j#*:} ]] && left+=" $j"; done
  check "no JVM of this script left its attach socket in /tmp [${left# }]" test -z "$left"
}

# ---- D: attach off and no jvmstat ----
start_target D -XX:+DisableAttachMechanism -XX:-UsePerfData
JVMS+=("D:$PID")
hp start $PID cpu=samples
expect_fail 6 'DisableAttachMechanism' "attach off, jvmstat off: refused from the command line"
end_target D
check "attach off, jvmstat off: no thread dump on the program's stdout" test "$(cat D.out)" = "$(printf 'ready\ndone')"

# ---- J: attach off in JAVA_TOOL_OPTIONS, no jvmstat ----
AS=(env JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism)
start_target J -XX:-UsePerfData
AS=()
JVMS+=("J:$PID")
hp start -t 10 $PID cpu=samples
expect_fail 6 'DisableAttachMechanism' "attach off in JAVA_TOOL_OPTIONS, jvmstat off: refused from its environment"
end_target J
check "attach off in JAVA_TOOL_OPTIONS: no thread dump on the program's stdout" test "$(cat J.out)" = "$(printf 'ready\ndone')"

# ---- C: hprof list, terminal controls in a JVM's name ----
# The jar's name: ESC [31m, CSI (U+009B) and NEL (U+0085) in UTF-8 (a UTF-8 locale, for
# Java to open it). A copy of its jvmstat file, the UTF-8 CSI made two raw 0x9b bytes,
# stands for a process of ours (a sleep).
CJAR=$'\e[31m\xc2\x9b2J\xc2\x85x.jar'
"$JAVA_HOME/bin/jar" cfe c.jar AttachTarget -C "$TEST_CLASSES" AttachTarget.class && mv c.jar "$CJAR"
touch C.flag
( rc=0; LC_ALL=C.UTF-8 timeout -k 10 300 "$JAVA" -Xcheck:jni -jar "$WORK/$CJAR" "$WORK/C.flag" 240 3 \
    >C.out 2>C.err || rc=$?; echo $rc >C.rc ) &
for _ in $(seq 600); do grep -q ready C.out 2>/dev/null && break; sleep 0.1; done
C=$(pgrep -f "$WORK/C.flag 240" | while read -r p; do [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
JVMS+=("C:$C")
perf=$(ls -d /tmp/hsperfdata_*/"$C" 2>/dev/null | head -1)
sleep 300 &
S=$!
fake_perf=""
if [[ -n "$perf" ]]; then
  fake_perf=$(dirname "$perf")/$S
  LC_ALL=C sed 's/\xc2\x9b/\x9b\x9b/g' "$perf" >"$fake_perf"
fi
hp list
rm -f "$fake_perf"; kill $S 2>/dev/null
shown=$'?[31m??2J??x.jar'
check "hprof list: a JVM named with ESC, CSI and NEL (UTF-8), escaped [exit $HRC]" \
  bash -c "[[ -n '$C' ]] && grep -a '^$C ' hp.out | grep -qaF -- '$WORK/$shown'"
check "hprof list: its name in raw C1 bytes (0x9b, not UTF-8) escaped" \
  bash -c "[[ -n '$fake_perf' ]] && grep -a '^$S ' hp.out | grep -qaF -- '$WORK/$shown'"
check "hprof list: no control byte in its output (C0, DEL, C1 raw or in UTF-8)" \
  test "$(LC_ALL=C tr -d '\n\040-\176\240-\377' <hp.out | wc -c)" = 0
hp stat $C
check "the tool's own user's JVM: hprof stat reads its counters [exit $HRC]" \
  bash -c "[[ $HRC == 0 ]] && tail -n 1 hp.out | grep -Eq '^ *[0-9.]+s +[0-9]+ '"
# Many relative file= words from a folder of ~3000 characters: join_options gave one
# folder's length per argument (an overflow ASan sees; tests/check.sh counts its report).
long=$WORK
for i in $(seq 12); do long=$long/$(printf 'f%.0s' $(seq 240)); done
mkdir -p "$long"
words=$(for i in $(seq 40); do printf 'file=w%d.txt,' $i; done)
( cd "$long" && hp start $C "${words}bogus=1" && echo "$HRC" >"$WORK/long.rc" )
cp "$long/hp.err" long.err 2>/dev/null || true
check "many file= words from a long folder: a clean refusal, no overflow [exit $(cat long.rc 2>/dev/null)]" \
  bash -c "[[ \$(cat long.rc) =~ ^(2|9)$ ]] && ! grep -q AddressSanitizer long.err"
rm -rf "$WORK/$(printf 'f%.0s' $(seq 240))"
rm -f C.flag
for _ in $(seq 3000); do [[ -s C.rc ]] && break; sleep 0.1; done
cat C.out C.err >>all-runs.txt
check "the JVM named with controls: output and exit code unchanged" bash -c "[[ \$(cat C.out) == \$'ready\\ndone' && \$(cat C.rc) == 3 ]]"

# ---- E: the program ends inside the window ----
# ends_inside NAME WHO [hprof]: a profile of 120 s (NAME.txt, or binary NAME.hprof); the
# program ends after its start. The tool, bounded far below the window, must come back
# with exit 0 and the profile.
ends_inside() {
  local name=$1 who=$2 ext=${3:-txt}
  start_target "$name"
  JVMS+=("$name:$PID")
  ( HRC=0; timeout -k 5 90 "$HPROF" profile $PID -d 120s -o "$WORK/$name.$ext" >"$name.hp.out" 2>"$name.hp.err" || HRC=$?
    echo $HRC >"$name.hp.rc" ) &
  local tool=$!
  for _ in $(seq 300); do grep -q 'profiling this JVM' "$name.hp.out" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  rm -f "$WORK/$name.flag"
  wait $tool
  end_target "$name"
  check "$who: a program that ends inside profile's window: exit 0, said so [exit $(cat $name.hp.rc)]" \
    bash -c "[[ \$(cat $name.hp.rc) == 0 ]] && grep -q 'ended during the profile' $name.hp.out"
  if [[ $ext == txt ]]; then
    check "$who: its profile, written at exit, is there whole" \
      bash -c "grep -q '^CPU SAMPLES END' $name.txt && [[ \$(tail -n 1 $name.txt) == *' END' ]]"
  else
    check "$who: its binary profile, written at exit, is there whole (hprof-dump --check)" \
      bash -c "'$HPROF_DUMP' --check $name.$ext >$name.check 2>&1 && '$HPROF_DUMP' $name.$ext | grep -q '^CPU_SAMPLES'"
  fi
}
ends_inside E "the tool's own user's JVM"
ends_inside EB "the tool's own user's JVM" hprof

if [[ $(id -u) != 0 ]] || ! command -v setpriv >/dev/null; then
  skip "another user's JVM, a lying JVM, a container" "needs root and setpriv"
  sockets_left
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
JVMS+=("N:$N")
if [[ -z "$N" ]]; then not_ok "nobody's target program did not start"; exit 0; fi
hp stat $N
check "nobody's JVM: hprof stat reads its counters from root [exit $HRC]" \
  bash -c "[[ $HRC == 0 ]] && tail -n 1 hp.out | grep -Eq '^ *[0-9.]+s +[0-9]+ '"
hp list
check "nobody's JVM: hprof list shows it to root" grep -Eq "^$N +AttachTarget " hp.out
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
echo "nobody's own file" >"$SECRET/own"; chown 65534:65534 "$SECRET/own"
ln -s "$SECRET/own" "$SECRET/ownlink"; chown -h 65534:65534 "$SECRET/ownlink"
echo "HPROF: dump written to $SECRET/secret" >lie.txt; chmod 644 lie.txt
truncate -s 20G "$SECRET/sparse"; chown 65534:65534 "$SECRET/sparse"
# fake NAME LIE [PID]: FakeAttachPeer as nobody (as FAKE_AS says) answering from the file
# LIE (on PID's socket), output in NAME.out; its pid in $PID. -Xrs: it does not catch SIGQUIT, so the
# tool never wakes HotSpot's own listener in it (which would take the socket's name
# over); HotSpot starts that listener at start-up then, and FakeAttachPeer waits for its
# socket and replaces it (X, on another's, leaves it: removed after).
fake() {
  local name=$1 lie=$2 of=${3:-}
  ( umask 077; rc=0; timeout -k 10 300 "${FAKE_AS[@]}" "$JAVA" -Xcheck:jni -Xrs -XX:-UsePerfData -cp "$TEST_CLASSES" \
      FakeAttachPeer "$WORK/$lie" $of >"$name.out" 2>"$name.err" || rc=$?; echo $rc >"$name.rc" ) 2>/dev/null &
  for _ in $(seq 300); do grep -q ready "$name.out" 2>/dev/null && break; sleep 0.1; done
  PID=$(pgrep -f "FakeAttachPeer $WORK/$lie" | while read -r p; do
          [[ $(cat /proc/$p/comm 2>/dev/null) == java ]] && echo "$p"; done | head -1)
}
FAKE_AS=("${NOBODY[@]}")
fake F lie.txt
F=$PID
JVMS+=("F:$F")
if [[ -z "$F" ]]; then not_ok "the lying JVM did not start"; exit 0; fi
# lie WHAT TEXT: the lying JVM answers TEXT; dump FILE must copy nothing. $WALK names the
# run under HPROF_NO_OPENAT2=1 (the tool's fallback walk, a name at a time, instead of
# openat2).
WALK=""
lie() {
  printf '%s\n' "$2" >lie.txt
  rm -f f-copy
  # Bounded here too, so that a tool that does copy /dev/zero or wait on a FIFO fails
  # the check without filling the disk or holding the run.
  HRC=0; (ulimit -f 102400; exec timeout -k 5 30 "$HPROF" dump -t 10 $F "$WORK/f-copy") >hp.out 2>hp.err || HRC=$?
  check "a lying JVM, $1$WALK: refused, nothing copied [exit $HRC: $(head -c 200 hp.err | tr '\n' ' ')]" \
    bash -c "[[ $HRC != 0 && $HRC -lt 100 && ! -e f-copy ]]"
}
# lies: every lie, each answered by the same lying JVM.
lies() {
  lie "root's 0600 file" "HPROF: dump written to $SECRET/secret"
  check "a lying JVM: root's secret is nowhere in the tool's output$WALK" bash -c "! grep -q \"root's secret\" hp.out hp.err"
  lie "/etc/shadow" "HPROF: dump written to /etc/shadow"
  lie "a FIFO of its own (no hang)" "HPROF: dump written to $SECRET/fifo"
  lie "/dev/zero (no endless copy)" "HPROF: dump written to /dev/zero"
  lie "a link of its own to root's file" "HPROF: dump written to $SECRET/link"
  # (its own file, which it may read: only the refusal of links keeps this one out)
  lie "a link of its own to its own file" "HPROF: dump written to $SECRET/ownlink"
  lie "a path up and out of its root" "HPROF: dump written to /../../..$SECRET/secret"
  lie "a profile in /proc/self (a magic link)" "HPROF: stopped; the profile is in /proc/self/root$SECRET/secret (the agent stays loaded and idle)"
  # The reply file itself: a link to root's secret, a FIFO (the agent's answer is read only
  # from a regular file of the JVM's user, opened without blocking).
  lie "its reply file a link to root's file" "REPLY-LINK $SECRET/secret"
  lie "its reply file a FIFO (no hang)" "REPLY-FIFO"
  # A sparse file: 20 GB that hold no block (bounded by ulimit -f, as above).
  lie "a sparse file of 20 GB of its own (no disk filled)" "HPROF: dump written to $SECRET/sparse"
  check "a lying JVM, a sparse file: said so$WALK" grep -q 'sparse file' hp.err
}
lies
# The same lies with the tool's fallback walk (kernels before 5.6 have no openat2).
export HPROF_NO_OPENAT2=1; WALK=" (fallback walk)"
lies
unset HPROF_NO_OPENAT2; WALK=""

# The socket, as jcmd checks it: the JVM's user and group, no access for others.
# requests: how many the lying JVM has read so far.
requests() { grep -Ec '^request (getversion|load)' F.out; }
printf 'HPROF: dump written to %s\n' "$SECRET/none" >lie.txt
rm -f f-copy
before=$(requests)
chmod 666 /tmp/.java_pid$F
hp dump -t 5 $F "$WORK/f-copy"
chmod 600 /tmp/.java_pid$F
check "a socket open to others (0666): not used [exit $HRC: $(head -c 150 hp.err | tr "\n" " ")]" \
  bash -c "[[ $HRC != 0 && $(requests) == $before ]]"
chgrp 0 /tmp/.java_pid$F
hp dump -t 5 $F "$WORK/f-copy"
chgrp 65534 /tmp/.java_pid$F
check "a socket of another group: not used [exit $HRC: $(head -c 150 hp.err | tr "\n" " ")]" \
  bash -c "[[ $HRC != 0 && $(requests) == $before ]]"
hp dump -t 5 $F "$WORK/f-copy"
check "the socket as it was: used again (the two above were refused for their socket alone)" \
  bash -c "[[ $(requests) -gt $before ]]"
# Another process of the JVM's user listening on its socket (made anew at the same name):
# SO_PEERCRED names another pid.
cp lie.txt x.txt
fake X x.txt "$F"
X=$PID
JVMS+=("X:$X")
hp dump -t 5 $F "$WORK/f-copy"
check "another process listening on the JVM's socket: not used [exit $HRC: $(head -c 150 hp.err | tr "\n" " ")]" \
  bash -c "[[ -n '$X' && $HRC != 0 ]] && ! grep -Eq '^request (getversion|load)' X.out"
kill $F $X 2>/dev/null; wait 2>/dev/null
rm -f /tmp/.java_pid$F /tmp/.java_pid$X
check "the lying JVMs killed: no /tmp/.java_pid$F left" test ! -e /tmp/.java_pid$F

# The JVM's pid taken by another process of its user, which made the socket anew, between
# the tool's two connections: T holds the tool's first request (getversion); the tool is
# stopped while T is killed and R (another FakeAttachPeer, as nobody) gets T's pid; its
# peer credentials are those the tool checked, but T's pidfd says T has gone.
echo HOLD >hold.txt
printf 'HPROF: dump written to %s\n' "$SECRET/none" >r.txt
fake T hold.txt
T=$PID
JVMS+=("T:$T")
"$HPROF" dump -t 20 $T "$WORK/t-copy" >t.hp.out 2>t.hp.err &
tool=$!
for _ in $(seq 300); do grep -q '^request getversion' T.out 2>/dev/null && break; sleep 0.1; done
kill -STOP $tool
kill -KILL $T
for _ in $(seq 300); do [[ -e /proc/$T ]] || break; sleep 0.1; done
R=""
for _ in $(seq 50); do
  # (the next pid given is T: to this shell's next fork, the subshell, which execs java)
  echo $((T - 1)) 2>/dev/null >/proc/sys/kernel/ns_last_pid
  ( umask 077; exec "${NOBODY[@]}" "$JAVA" -Xcheck:jni -Xrs -XX:-UsePerfData -cp "$TEST_CLASSES" FakeAttachPeer \
      "$WORK/r.txt" >R.out 2>R.err ) &
  R=$!
  [[ $R == "$T" ]] && break
  kill -KILL $R 2>/dev/null; wait $R 2>/dev/null; R=""
done
if [[ -z "$R" ]]; then
  kill -KILL $tool 2>/dev/null
  skip "a pid taken by another process of the JVM's user" "could not give the JVM's pid to another process (ns_last_pid)"
else
  for _ in $(seq 300); do grep -q ready R.out 2>/dev/null && break; sleep 0.1; done
  kill -CONT $tool
  ( sleep 60; kill -KILL $tool 2>/dev/null ) &
  dog=$!
  HRC=0; wait $tool || HRC=$?
  kill $dog 2>/dev/null
  check "the JVM's pid taken by another listener of its user: not used [exit $HRC: $(head -c 150 t.hp.err | tr '\n' ' ')]" \
    bash -c "[[ $HRC != 0 && $HRC -lt 100 ]] && grep -q '^request getversion' T.out && ! grep -Eq '^request (getversion|load)' R.out"
  kill -KILL $R 2>/dev/null; wait $R 2>/dev/null
fi
rm -f /tmp/.java_pid$T
rm -rf "$SECRET"

# ---- W: what a JVM that ends leaves is taken only whole ----
# at_exit NAME FILE SOURCE BYTES: a lying JVM of root's (the tool's user: the agent would
# write FILE itself) says that `profile -o FILE` started; FILE gets SOURCE's first BYTES
# bytes, as if the agent wrote them at the JVM's exit, and the JVM ends. The tool's exit
# code in NAME.hp.rc.
at_exit() {
  local name=$1 file=$2 src=$3 bytes=$4
  echo "HPROF: profiling this JVM (a lie)" >"$name.lie"
  FAKE_AS=()
  fake "$name" "$name.lie"
  FAKE_AS=("${NOBODY[@]}")
  local p=$PID
  JVMS+=("$name:$p")
  ( HRC=0; timeout -k 5 60 "$HPROF" profile $p -d 120s -o "$WORK/$file" >"$name.hp.out" 2>"$name.hp.err" || HRC=$?
    echo $HRC >"$name.hp.rc" ) &
  local tool=$!
  for _ in $(seq 300); do grep -q 'profiling this JVM' "$name.hp.out" 2>/dev/null && break; sleep 0.1; done
  head -c "$bytes" "$src" >"$WORK/$file"
  [[ -n $p ]] && kill $p
  wait $tool
  rm -f /tmp/.java_pid$p
}
bsize=$(stat -c %s EB.hprof 2>/dev/null || echo 0)
at_exit WB wb.hprof EB.hprof "$bsize"
check "a binary profile written whole at the JVM's exit: taken [exit $(cat WB.hp.rc): $(head -c 150 WB.hp.err)]" \
  bash -c "[[ $bsize -gt 0 && \$(cat WB.hp.rc) == 0 ]] && grep -q 'ended during the profile' WB.hp.out"
# (the last record, CPU_SAMPLES, cut 5 bytes before its end)
at_exit WC wc.hprof EB.hprof $((bsize - 5))
check "a binary profile cut inside its last record at the JVM's exit: not whole [exit $(cat WC.hp.rc): $(grep -o 'truncated record.*' WC.hp.err | head -c 100)]" \
  bash -c "[[ $bsize -gt 0 && \$(cat WC.hp.rc) == 1 ]] && grep -q 'is not whole' WC.hp.err && grep -q 'truncated record' WC.hp.err"
tsize=$(stat -c %s E.txt 2>/dev/null || echo 0)
at_exit WT wt.txt E.txt $((tsize - 3))
check "a text profile cut inside its last line at the JVM's exit: not whole [exit $(cat WT.hp.rc)]" \
  bash -c "[[ $tsize -gt 0 && \$(cat WT.hp.rc) == 1 ]] && grep -q 'is not whole' WT.hp.err"

# ---- E: nobody's program ends inside the window ----
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
    for WALK in "" " (fallback walk)"; do
      [[ -n $WALK ]] && export HPROF_NO_OPENAT2=1
      hp start -t 5 $PID cpu=samples
      check "a container whose /tmp links out$WALK: refused [exit $HRC: $(head -c 150 hp.err)]" test "$HRC" != 0
      check "a container whose /tmp links out$WALK: nothing made outside its root [$(ls -A "$HOSTDIR" | tr '\n' ' ')]" \
        test -z "$(ls -A "$HOSTDIR")"
      unset HPROF_NO_OPENAT2
    done
    # Its jvmstat file as HotSpot wrote it (through the link, inside its root), planted at
    # the link's target on this side with the main class PlantedHost1: neither hprof stat
    # nor list may read it (the link is not followed; there is none to read inside).
    real=$(ls "$WORK/KL$HOSTDIR"/hsperfdata_*/"$PID" 2>/dev/null | head -1)
    mkdir -p "$HOSTDIR/hsperfdata_nobody"
    [[ -n $real ]] && LC_ALL=C sed 's/AttachTarget/PlantedHost1/g' "$real" >"$HOSTDIR/hsperfdata_nobody/$PID"
    chown -R 65534:65534 "$HOSTDIR/hsperfdata_nobody"; chmod 700 "$HOSTDIR/hsperfdata_nobody"
    for WALK in "" " (fallback walk)"; do
      [[ -n $WALK ]] && export HPROF_NO_OPENAT2=1
      hp stat $PID
      check "a container whose /tmp links out$WALK: hprof stat reads no jvmstat file outside its root [exit $HRC: $(head -c 150 hp.err)]" \
        bash -c "[[ -n '$real' && $HRC == 7 ]] && ! grep -Eq '^ *[0-9.]+s ' hp.out"
      hp list
      check "a container whose /tmp links out$WALK: hprof list neither" \
        bash -c "[[ -n '$real' && $HRC == 0 ]] && ! grep -q PlantedHost1 hp.out"
      unset HPROF_NO_OPENAT2
    done
    rm -rf "$HOSTDIR/hsperfdata_nobody"
  fi
  end_container KL
  container KD dir
  if [[ -z "$PID" ]]; then
    not_ok "the container's JVM did not start: $(head -c 300 KD.err)"
  else
    for WALK in "" " (fallback walk)"; do
      [[ -n $WALK ]] && export HPROF_NO_OPENAT2=1
      hp profile $PID -d 2s -o "$WORK/kd.txt"
      check "a container$WALK: profile -o works from the host, hot method on top [exit $HRC]" \
        bash -c "[[ $HRC == 0 && '$(rank1_method kd.txt 2>/dev/null)' == AttachTarget.hot ]]"
      check "a container$WALK: the library copy and the agent's folders are nobody's, inside its root" \
        bash -c "[[ \$(stat -c %u KD/tmp/.hprof-65534 KD/tmp/.hprof-65534/libhprof.so KD/tmp/hprof-profile-* | sort -u) == 65534 ]]"
      hp stat $PID
      check "a container$WALK: hprof stat reads its counters inside its root [exit $HRC]" \
        bash -c "[[ $HRC == 0 ]] && tail -n 1 hp.out | grep -Eq '^ *[0-9.]+s +[0-9]+ '"
      hp list
      check "a container$WALK: hprof list shows it, in a container" grep -Eq "^$PID +AttachTarget .*\(container\)" hp.out
      unset HPROF_NO_OPENAT2
      rm -f kd.txt
    done
  fi
  end_container KD
fi

sockets_left
jni_clean
