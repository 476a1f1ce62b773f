#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=sites live counts: at a dump while the program runs (after a forced GC) and at exit
# (a reference walk: no GC can be forced at VM death), under several collectors; and the
# agent holds the live objects, not every object ever counted.
source "$(dirname "$0")/../lib/common.sh"

# row FILE N CLASS: "live_objs alloc_objs" of CLASS in the Nth SITES section (summed over its sites)
row() {
  awk -v want="$2" -v c="$3" '/^SITES BEGIN/ { n++; i = (n == want); next } /^SITES END/ { i = 0 }
    i && $9 == c { l += $5; a += $7 } END { print l + 0, a + 0 }' "$1"
}

for gc in default ZGC ShenandoahGC ParallelGC; do
  opts=(); [[ $gc != default ]] && opts=("-XX:+Use$gc")
  [[ $gc == default ]] || have_collector "$gc" || continue
  sites_live_run heap=sites,cutoff=0 -Xverify:all "${opts[@]}"
  rc=$SL_RC
  check "$gc: runs to its end, exit 0, two SITES sections (status $rc, $(grep -c '^SITES END' s.txt) sections)" \
    bash -c "[[ $rc -eq 0 ]] && grep -qx 'done 25000' s.out && [[ \$(grep -c '^SITES END' s.txt) -eq 2 ]]"
  check "$gc: dump while running: 100000 Kept, all live" test "$(row s.txt 1 'SitesLive$Kept')" = "100000 100000"
  check "$gc: dump while running: 50000 Half, 25000 live" test "$(row s.txt 1 'SitesLive$Half')" = "25000 50000"
  check "$gc: dump while running: 200000 Dropped, none live" test "$(row s.txt 1 'SitesLive$Dropped')" = "0 200000"
  check "$gc: dump while running: 3000000 Temp, none live" test "$(row s.txt 1 'SitesLive$Temp')" = "0 3000000"
  check "$gc: dump at exit: the Kept let go of are no longer live" test "$(row s.txt 2 'SitesLive$Kept')" = "0 100000"
  check "$gc: dump at exit: still 25000 Half live" test "$(row s.txt 2 'SitesLive$Half')" = "25000 50000"
  # Objects held just before the first dump: the logs were swept after the program's
  # GCs, so far fewer than the 3.35 M counted (the live ones are about 130,000).
  held=$(sed -n 's/^HPROF: heap=sites objects held: \([0-9]*\) .*/\1/p' s.out | head -1)
  check "$gc: objects held before the first dump (${held:-none}) follow the live ones, not the 3.35 M counted" \
    bash -c "[[ -n '$held' && '$held' -lt 1000000 ]]"
  # Sweeps read the weak references' slots: alone where the collector clears them only
  # in its pauses, for the collected ones where it clears them concurrently.
  want_slots=slot; [[ $gc == ZGC || $gc == ShenandoahGC ]] && want_slots="null slot"
  slots=$(sed -n 's/^HPROF: heap=sites objects held: .*, swept by \(.*\)$/\1/p' s.out | head -1)
  check "$gc: sweeps read the references' slots (${slots:-none}, want $want_slots)" test "$slots" = "$want_slots"
done
jni_clean
