#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu=samples: the known hot method ranks first; every option that shapes traces works.
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent cpu=samples,file=s.txt)" HotMethod 1500
check "program output and exit status unchanged" bash -c "[[ $RC -eq 0 ]] && grep -qx done out.txt"
check "header line" bash -c "head -1 s.txt | grep -Eq '^JAVA PROFILE 1\\.0\\.1, created [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$'"
check "legend is followed by the -------- separator" bash -c "grep -qx -- '--------' s.txt"
check "hot method is rank 1" test "$(rank1_method s.txt)" = "HotMethod.hot"
check "THREAD START for main with id 200001" has_line s.txt '^THREAD START \(obj=5[0-9a-f]{7}, id = 200001, name="main", group="main"\)$'
check "THREAD END for main" has_line s.txt '^THREAD END \(id = 200001\)$'
check "CPU SAMPLES header and column line" bash -c "grep -Eq '^CPU SAMPLES BEGIN \\(total = [0-9]+\\) [A-Z][a-z]{2} ' s.txt && grep -qx 'rank   self  accum   count trace method' s.txt"
cpu_rows s.txt >rows.txt
# (The method is the rest of the line: a thread's kind may hold a space, [JIT compiler].)
check "rows have the original's layout (%4u %5.2f%% %5.2f%% %7u %5u method)" bash -c "[[ -s rows.txt ]] && awk '{ m = \$0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ /, \"\", m); r = sprintf(\"%4d %5.2f%% %5.2f%% %7d %5d %s\", \$1, \$2, \$3, \$4, \$5, m); if (r != \$0) bad = 1 } END { exit bad }' rows.txt"

total=$(cpu_total s.txt)
sum=$(cpu_rows s.txt | awk '{ s += $4 } END { print s + 0 }')
check "total equals the sum of counts (default cutoff keeps all here)" test "$total" -eq "$sum"
# Samples follow the CPU time used, which on a shared machine may be a fraction of 1.5 s.
check "a busy 1.5 s run has a plausible number of samples ($total)" test "$total" -ge 10
hot_trace=$(cpu_rows s.txt | awk 'NR == 1 { print $5 }')
check "rank 1 trace is written with frames" bash -c "[[ \$(grep -c '^TRACE $hot_trace:\$' s.txt) -eq 1 ]]"
# Line 8 is the loop's body, where the CPU is; a safepoint sampler (sampler=jvmti) says
# line 7, the loop's back branch, where its poll is.
check "hot trace's top frame has its source line (line 8, the loop's body)" bash -c "trace() { awk -v s='TRACE $hot_trace:' 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' s.txt; }; trace | head -1 | grep -q $'^\tHotMethod.hot(HotMethod.java:8)\$'"
check "every trace named by a row is written before the section" bash -c '
  awk "/^TRACE [0-9]+:/ { sub(/:.*/, \"\", \$2); seen[\$2] = 1 }
       /^CPU SAMPLES BEGIN/ { s = 1; next } /^CPU SAMPLES END/ { s = 0 }
       s && \$1 ~ /^[0-9]+\$/ && !(\$5 in seen) { bad = 1 } END { exit bad }" s.txt'
check "default depth 4: no trace longer than 4 frames" bash -c "awk '/^TRACE/{n=0;next} /^\t/{n++; if(n>4) bad=1} END{exit bad}' s.txt"

# depth
run_java "$(agent cpu=samples,depth=1,file=d1.txt)" HotMethod 800
check "depth=1: every trace has exactly one frame" bash -c "awk '/^TRACE/{if(t&&n!=1)bad=1;t=1;n=0;next} /^\t/{n++} END{if(t&&n!=1)bad=1; exit bad}' d1.txt && grep -q '^TRACE' d1.txt"
run_java "$(agent cpu=samples,depth=12,file=d12.txt)" HotMethod 800
# (The first Java row: in a short run the JVM's start-up, [VM].JVM start-up, may lead.)
check "depth=12: the hot trace reaches main" bash -c "t=\$(awk '/^CPU SAMPLES BEGIN/{i=1;next} i&&\$1~/^[0-9]+\$/&&\$6!~/^\\[/{print \$5;exit}' d12.txt); awk -v s=\"TRACE \$t:\" 'index(\$0,s)==1{i=1;next} /^[^\t]/{i=0} i' d12.txt | grep -q 'HotMethod.main'"

# lineno
run_java "$(agent cpu=samples,lineno=n,file=ln.txt)" HotMethod 800
check "lineno=n: no line numbers in frames" bash -c "grep -P '^\t' ln.txt | grep -Evq ':Unknown line\)\$' && exit 1; grep -qP '^\t' ln.txt"

# thread
run_java "$(agent cpu=samples,thread=y,file=th.txt)" HotMethod 800
# (Those of the threads that are not Java threads name none: they have no THREAD START.)
check "thread=y: traces name a started thread" bash -c "
  ids=\$(sed -n 's/^THREAD START .*id = \\([0-9]*\\),.*/\\1/p' th.txt | sort -u)
  awk '/^TRACE [0-9]+:/ { if (t != \"\" && !native) exit 1; t = (\$0 ~ /[(]thread=/) ? \"\" : \$0; native = 0; next }
    /^\t\[(JIT compiler|GC|VM|hprof|other native)\]\./ { native = 1 } END { exit t != \"\" && !native }' th.txt || exit 1
  for t in \$(sed -n 's/^TRACE [0-9]*: (thread=\\([0-9]*\\))\$/\\1/p' th.txt); do echo \"\$ids\" | grep -qx \"\$t\" || exit 1; done
  grep -q '(thread=200001)' th.txt"
check "thread=n (default): traces name no thread" bash -c "grep -q '^TRACE [0-9]*:' s.txt && ! grep -q '(thread=' s.txt"

# interval: fewer samples with a longer interval (counts, not timings)
run_java "$(agent cpu=samples,interval=400,file=iv.txt)" HotMethod 1500
slow=$(cpu_total iv.txt)
check "interval=400 takes few samples ($slow vs $total at 10 ms)" bash -c "[[ $slow -le 6 && $total -ge 10 && $total -ge $((8 * slow)) ]]"

# cutoff: rows under the cutoff share are left out, but still counted in the total.
# (The Java threads only: the JIT's share must not push hotA under the cut.)
run_java "$(agent cpu=samples,cutoff=0,threads=java,file=c0.txt)" Mixed 2000
run_java "$(agent cpu=samples,cutoff=0.5,threads=java,file=c5.txt)" Mixed 2000
check "cutoff=0: both hot methods listed" bash -c "cpu_rows() { awk '/^CPU SAMPLES BEGIN/{i=1;next}/^CPU SAMPLES END/{i=0}i&&/^ *[0-9]/' c0.txt; }; cpu_rows | grep -q 'Mixed.hotA\$' && cpu_rows | grep -q 'Mixed.hotB\$'"
check "cutoff=0.5: only rows of 50% or more" bash -c "awk '/^CPU SAMPLES BEGIN/{i=1;next}/^CPU SAMPLES END/{i=0} i&&/^ *[0-9]/{n++; if (\$2+0 < 50) bad=1} END{exit bad || n < 1}' c5.txt && ! grep -q 'Mixed.hotB\$' c5.txt"
check "cutoff=0.5: total still counts every sample" bash -c "[[ \$(awk '/^CPU SAMPLES BEGIN/{i=1;next}/^CPU SAMPLES END/{i=0} i&&/^ *[0-9]/{s+=\$4} END{print s+0}' c5.txt) -lt \$(sed -n 's/^CPU SAMPLES BEGIN (total = \\([0-9]*\\)).*/\\1/p' c5.txt) ]]"
jni_clean
