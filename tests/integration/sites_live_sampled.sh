#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=sites,live=sampled: every allocation still counted exactly (the same counts per
# class as live=all, on every path: new, arrays, clone, reflection, JNI, compiled code,
# threads), live counts estimated from the samples held past a site's first 4096
# objects, and most objects not held at all.
source "$(dirname "$0")/../lib/common.sh"

# by_site FILE PROG: "frame class objs bytes" allocated, summed over the rows of the last
# SITES section whose trace runs through PROG's own code (frame: the first such; what
# the JVM allocates for itself varies from run to run), lambda classes without their
# address.
by_site() {
  awk -v p="$2" '/^TRACE [0-9]+:/ { t = $2; sub(/:.*/, "", t); next } /^[^\t]/ { t = "" }
    t != "" && !(t in at) && /^\t/ { f = $1; sub(/\(.*/, "", f)
      if (index(f, p ".") == 1 || index(f, p "$") == 1) at[t] = f }
    /^SITES BEGIN/ { delete o; delete b; i = 1; next } /^SITES END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ && ($8 in at) { k = at[$8] " " $9; gsub(/Lambda\.0x[0-9a-f]+/, "Lambda", k)
      o[k] += $7; b[k] += $6 }
    END { for (k in o) print k, o[k], b[k] }' "$1" | sort
}
# by_class FILE: "class objs bytes" allocated, summed over the last SITES section's rows.
by_class() {
  awk '/^SITES BEGIN/ { delete o; delete b; i = 1; next } /^SITES END/ { i = 0 }
    i && $1 ~ /^[0-9]+$/ { o[$9] += $7; b[$9] += $6 }
    END { for (c in o) print c, o[c], b[c] }' "$1" | sort
}
# row FILE N CLASS: "live_objs alloc_objs" of CLASS in the Nth SITES section
row() {
  awk -v want="$2" -v c="$3" '/^SITES BEGIN/ { n++; i = (n == want); next } /^SITES END/ { i = 0 }
    i && $9 == c { l += $5; a += $7 } END { print l + 0, a + 0 }' "$1"
}
# within N LO HI
within() { [[ $1 -ge $2 && $1 -le $3 ]]; }
noted() { sed -n 's/^HPROF: heap=sites objects noted, not held (live=sampled): \([0-9]*\)$/\1/p' "$1" | tail -1; }

gcc -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$WORK/libsitesjni.so" \
  "$HPROF_ROOT/tests/java/native/sites_jni.c"

# The same programs under live=all and live=sampled: the allocation counts must agree.
for prog in SitesKnown SitesClone SitesJit SitesDeep; do
  args=(); [[ $prog == SitesKnown ]] && args=("$WORK/libsitesjni.so")
  run_java -Xverify:all "$(agent heap=sites,depth=3,cutoff=0,file=$prog-all.txt)" $prog "${args[@]}"
  rc_all=$RC; cp out.txt "$prog-all.out"
  HPROF_STACK_STATS=1 run_java -Xverify:all "$(agent heap=sites,depth=3,cutoff=0,live=sampled,file=$prog-s.txt)" \
    $prog "${args[@]}"
  cat out.txt >>"$WORK/all-runs.txt"
  by_site "$prog-all.txt" $prog >"$prog-all.cls"
  by_site "$prog-s.txt" $prog >"$prog-s.cls"
  by_class "$prog-s.txt" >"$prog-s.classes"
  check "$prog: same exit status and output as with live=all ($rc_all, $RC)" \
    bash -c "[[ $RC -eq $rc_all ]] && diff <(grep -v '^HPROF' $prog-all.out) <(grep -v '^HPROF' out.txt) >/dev/null"
  check "$prog: the objects and bytes allocated at each of its sites as with live=all ($(wc -l <"$prog-s.cls") sites)" \
    bash -c "[[ \$(wc -l <$prog-s.cls) -ge 2 ]] && diff $prog-all.cls $prog-s.cls"
  check "$prog: objects noted rather than held ($(noted out.txt))" test "$(noted out.txt)" -gt 0
done
check "SitesKnown: the SITES header says the live counts are estimates" \
  has_line SitesKnown-s.txt "^SITES BEGIN \(ordered by live bytes, live estimated from 1 in 16 objects past a site's first 4096\) "
check "SitesKnown: 12345 Foo allocated, 6173 live within 20% ($(awk '$1 == "SitesKnown$Foo" { print $2 }' SitesKnown-s.classes))" \
  bash -c "[[ \$(awk '\$1 == \"SitesKnown\$Foo\" { print \$2 }' SitesKnown-s.classes) -eq 12645 ]] &&
    l=\$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && \$9 == \"SitesKnown\$Foo\" && \$7 == 12345 { print \$5 }' SitesKnown-s.txt) &&
    [[ \$l -ge 4938 && \$l -le 7408 ]]"

# Live counts: SitesLive keeps 100,000 Kept, half of 50,000 Half, none of 200,000
# Dropped and 3,000,000 Temp; a dump while it runs, one at exit (Kept let go).
for gc in default ParallelGC ZGC; do
  opts=(); [[ $gc != default ]] && opts=("-XX:+Use$gc")
  [[ $gc == default ]] || have_collector "$gc" || continue
  sites_live_run heap=sites,cutoff=0,live=sampled "${opts[@]}"
  rc=$SL_RC
  check "$gc: runs to its end, exit 0, two SITES sections (status $rc)" \
    bash -c "[[ $rc -eq 0 ]] && grep -qx 'done 25000' s.out && [[ \$(grep -c '^SITES END' s.txt) -eq 2 ]]"
  read -r kept_live kept_all <<<"$(row s.txt 1 'SitesLive$Kept')"
  read -r half_live half_all <<<"$(row s.txt 1 'SitesLive$Half')"
  check "$gc: allocations exact: 100000 Kept, 50000 Half, 200000 Dropped, 3000000 Temp" \
    bash -c "[[ $kept_all -eq 100000 && $half_all -eq 50000 && '$(row s.txt 1 'SitesLive$Dropped')' == '0 200000' &&
      '$(row s.txt 1 'SitesLive$Temp')' == '0 3000000' ]]"
  if [[ $gc == ZGC ]]; then
    # ZGC moves objects while the program runs: no notes, every object held, exact.
    check "ZGC: said that every object is held, and live counts exact (Kept $kept_live, Half $half_live)" \
      bash -c "grep -q 'live=sampled: this collector moves objects' s.out && [[ $kept_live -eq 100000 && $half_live -eq 25000 ]]"
    continue
  fi
  # The estimates' spread: about 4 sqrt(live) (1.2% of Kept, 2.3% of Half); the checks
  # allow more than four times that.
  check "$gc: dump while running: 100000 Kept live, estimated within 5% ($kept_live)" within "$kept_live" 95000 105000
  check "$gc: dump while running: 25000 Half live, estimated within 10% ($half_live)" within "$half_live" 22500 27500
  check "$gc: dump at exit: the Kept let go of are no longer live" test "$(row s.txt 2 'SitesLive$Kept')" = "0 100000"
  n=$(noted s.out)
  check "$gc: most objects noted, not held (${n:-none} of 3,350,000)" bash -c "[[ -n '$n' && '$n' -ge 2900000 ]]"
done

# Sessions: live= is the first load's; a later session keeps it, and a heap dump, which
# would name every object's site, is refused.
source "$HPROF_ROOT/tests/lib/attach.sh"
phase() {
  echo "$3" >"$WORK/$1/cmd.$2"
  for _ in $(seq 600); do [[ -f "$WORK/$1/ack.$2" ]] && return 0; sleep 0.1; done
}
start_phases L
if [[ -z "$PID" ]]; then not_ok "sessions: the target program did not start"; exit 0; fi
hp start $PID heap=sites,live=sampled,cutoff=0,file="$WORK/l1.txt"
check_said "sessions: attached with live=sampled" 'profiling this JVM from now on: heap=sites'
phase L 1 "alloc 1 10000"
hp stop $PID
hp start $PID heap=sites,cutoff=0,file="$WORK/l2.txt"
phase L 2 "alloc 2 20000"
hp stop $PID
check "sessions: the first session's SITES header says the live counts are estimated" \
  has_line l1.txt '^SITES BEGIN \(ordered by live bytes, live estimated from 1 in 16 '
check "sessions: a later session without live= keeps live=sampled, and says so" \
  has_line l2.txt '^SITES BEGIN \(ordered by live bytes, live estimated from 1 in 16 '
check "sessions: its allocations exact (Phases\$Mark2 x20000: $(row l2.txt 1 'Phases$Mark2'))" \
  bash -c "[[ '$(row l2.txt 1 'Phases$Mark2' | cut -d' ' -f2)' == 20000 ]]"
hp start $PID heap=dump,file="$WORK/l3.hprof",format=b
expect_fail 10 "live=sampled" "sessions: a heap dump session refused, the reason said"
end_phases L
cat "$WORK/L.out" >>"$WORK/all-runs.txt"
jni_clean
