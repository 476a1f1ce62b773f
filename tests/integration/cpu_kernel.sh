#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof-test: alone
# cpu=samples' kernel frames (kernel=y): each thread's CPU time counted by a perf event
# whose records carry the kernel's call chain. A thread reading /dev/zero through a
# FileChannel into a direct buffer in a loop (NativeWork syscall: most of its CPU in the
# kernel) shows the kernel's functions on top of libc's read, libnio's read0 and the Java
# frames that called it, in the text, collapsed stacks, pprof and
# the flame graph (colour and legend of their own); kernel=n shows none; where the kernel
# refuses perf events (forced with HPROF_PERF_DENIED=1) one warning names the reason and
# the sysctl, and the samples go on without kernel frames; clock=wall says why it has none.
source "$(dirname "$0")/../lib/common.sh"
source "$HPROF_ROOT/tests/lib/views.sh"
source "$HPROF_ROOT/tests/lib/stacks.sh"

if [[ "$(uname -m)" != x86_64 ]]; then
  skip "kernel frames" "x86-64 only (native frames are)"
  exit 0
fi

# on_top FILE: "good of all" samples with kernel frames, good when those frames all come
# before any other frame (the kernel is always the top of a stack).
on_top() {
  stacks "$1" | awk -F'\t' '$2 ~ /\[kernel\]\./ { t += $1; n = split($2, f, ";"); ok = 1; user = 0
      for (i = 1; i <= n; i++) { k = f[i] ~ /^\[kernel\]\./; if (!k) user = 1; else if (user) ok = 0 }
      if (ok) w += $1 } END { printf "%d of %d", w + 0, t + 0 }'
}
kernel_lines() { grep -c $'^\t\\[kernel\\]\\.' "$1" || true; }

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
allowed=0
[[ $(id -u) -eq 0 || $paranoid -le 1 ]] && allowed=1

# 1. The kernel above the reads' Java frames.
if [[ $allowed -eq 1 ]]; then
  run_java "$(agent cpu=samples,kernel=y,interval=5,depth=24,cutoff=0,file=k.txt,view=collapsed+pprof+html)" \
    NativeWork syscall 2000
  check "kernel=y: runs (exit $RC), no warning" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt && ! grep -q 'HPROF WARNING' out.txt"
  chain='^(\[kernel\]\.[^;]*;)+libc\.so\.6\.[^;]*read[^;]*;libnio\.so\.Java_sun_nio_ch_[A-Za-z]*FileDispatcherImpl_read0;sun\.nio\.ch\.[A-Za-z]*FileDispatcherImpl\.read0;(.*;)?NativeWork\.reader(;|$)'
  s=$(share k.txt 'NativeWork\.reader' "$chain")
  check "kernel=y: >= 50% of the reader's samples are the kernel's frames, libc's read, read0, then the Java caller ($s)" \
    at_least "$s" 50
  check "kernel=y: the read's kernel functions named from /proc/kallsyms (read_zero, vfs_read, ksys_read)" \
    bash -c "grep -q $'^\t\\\\[kernel\\\\]\\\\.read_zero(\\\\[kernel\\\\]:Native method)$' k.txt && grep -q $'^\t\\\\[kernel\\\\]\\\\.vfs_read(' k.txt && grep -q $'^\t\\\\[kernel\\\\]\\\\.ksys_read(' k.txt"
  s=$(on_top k.txt)
  check "kernel=y: kernel frames only ever on top of a stack, never under another frame ($s)" at_least "$s" 100
  check "kernel=y: no kernel frame unnamed" bash -c "! grep -q $'^\t\\[kernel\\]\\.unknown' k.txt"
  check "collapsed: the Java caller, read0, libc's read, then the kernel's frames" \
    grep -Eq '(^|;)NativeWork\.reader;(.*;)?libnio\.so\.[^;]*read0;libc\.so\.6\.[^;]*read[^;]*;\[kernel\]\.[^;]*' k.cpu.collapsed
  if have_go; then
    timeout 120 go tool pprof -traces k.cpu.pb.gz >traces.txt 2>&1 || true
    check "pprof -traces: a kernel function above libc's read, in the reader's stack" \
      bash -c "awk '/^-----------/ { if (t ~ /\\[kernel\\][.][A-Za-z_0-9.]+;libc[.]so[.]6[.][^;]*read[^;]*;.*NativeWork[.]reader;/) f = 1; t = \"\"; next }
        { t = t \$NF \";\" } END { exit !f }' traces.txt"
    timeout 120 go tool pprof -raw k.cpu.pb.gz >raw.txt 2>&1 || true
    check "pprof: kernel functions have [kernel] as their file" grep -Eq ' \[kernel\]\.[a-z_0-9]+ \[kernel\]:0' raw.txt
  else
    skip "pprof: kernel frames" "go not found"
  fi
  if have_chromium; then
    fn=$(grep -Eo $'^\t\\[kernel\\]\\.[A-Za-z_0-9.]+' k.txt | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
    html_find "$WORK/k.cpu.html" "$fn" >kf.txt
    kf=$(sed -n 's/^fill=//p' kf.txt)
    check "flame graph: $fn drawn as kernel ($(grep -m1 '^family=' kf.txt)), red ($kf)" \
      bash -c "grep -q '^family=kernel$' kf.txt && h=$(hsl_hue "$kf") && (( \${h:-99} <= 12 ))"
    chromium_run --dump-dom "file://$WORK/k.cpu.html" >dom.txt 2>/dev/null || true
    check "flame graph: the legend names the kernel's colour" bash -c "grep -o 'id=\"legend\".*' dom.txt | grep -q '</span>kernel'"
  else
    skip "flame graph: kernel frames in their own colour" "chromium not found"
  fi

  # kernel=n: the same run without them (the checks above fail without kernel=y).
  run_java "$(agent cpu=samples,interval=5,depth=24,cutoff=0,file=n.txt)" NativeWork syscall 500
  check "kernel=n: runs (exit $RC), samples, no kernel frame" \
    bash -c "[[ $RC -eq 0 ]] && (( $(cpu_total n.txt) > 0 && $(kernel_lines n.txt) == 0 ))"
else
  skip "kernel=y: kernel frames" "perf_event_open needs root or kernel.perf_event_paranoid <= 1 (it is $paranoid)"
fi

# 2. Where the kernel refuses: one warning naming why and the sysctl; samples without
# kernel frames; the program as without the agent.
HPROF_PERF_DENIED=1 run_java "$(agent cpu=samples,kernel=y,interval=5,depth=24,cutoff=0,file=d.txt)" NativeWork syscall 500
warn=$(grep -c 'kernel=y: perf_event_open is not allowed' out.txt || true)
check "not allowed: runs (exit $RC), the program's output unchanged" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
check "not allowed: one warning, naming the error and the sysctl ($warn: $(grep -m1 'kernel=y' out.txt))" \
  bash -c "[[ $warn -eq 1 ]] && grep -q 'Permission denied; kernel.perf_event_paranoid is .*sysctl kernel.perf_event_paranoid=1' out.txt"
check "not allowed: samples go on ($(cpu_total d.txt)), with native and Java frames, without kernel frames" \
  bash -c "(( $(cpu_total d.txt) > 0 && $(kernel_lines d.txt) == 0 )) && grep -q $'^\tNativeWork.reader' d.txt && grep -q $'^\tlibc.so.6' d.txt"

# 3. clock=wall: no perf event samples a thread there; said once, samples go on.
run_java "$(agent cpu=samples,kernel=y,clock=wall,interval=10,depth=24,cutoff=0,file=w.txt)" NativeWork syscall 300
check "clock=wall: runs (exit $RC), one warning saying why, samples without kernel frames" \
  bash -c "[[ $RC -eq 0 ]] && [[ \$(grep -c 'kernel=y: clock=wall' out.txt) -eq 1 ]] && (( $(cpu_total w.txt) > 0 && $(kernel_lines w.txt) == 0 ))"
