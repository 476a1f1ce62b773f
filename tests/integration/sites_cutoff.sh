#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# heap=sites with a cutoff and many traces (SitesWide: 1728 sites of 100 objects each):
# the text profile writes only the traces its rows name, and the sites' views hold every
# site whatever the cutoff (sites merged by method names).
source "$(dirname "$0")/../lib/common.sh"

run_java "$(agent heap=sites,cutoff=0.01,depth=8,view=collapsed,file=c.txt)" SitesWide
check "heap=sites,cutoff=0.01,view=collapsed runs" test "$RC" -eq 0 -a -s c.txt -a -s c.sites.collapsed
awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $1 ~ /^[0-9]+$/ { print $8 }' c.txt | sort -u >named.txt
sed -n 's/^TRACE \([0-9]*\):.*/\1/p' c.txt | grep -vx 300000 | sort -u >written.txt
check "every TRACE written is one a SITES row names ($(wc -l <written.txt) written, $(wc -l <named.txt) named)" \
  bash -c "[[ -s named.txt ]] && cmp -s named.txt written.txt"
check "TRACE 300000 (<empty>) still comes first" bash -c "grep -m1 '^TRACE' c.txt | grep -qx 'TRACE 300000:'"
check "the collapsed stacks hold no stack of sites cut out: the cutoff is the text's" \
  bash -c "! grep -q 'under cutoff' c.sites.collapsed"
# Each SitesWide site is under 1%: they are there all the same, merged (lines apart) into
# four stacks. (Only the stacks of what l3 allocates: loading Cell from l3 allocates in the
# class loader under it, and at depth=8 that stack may or may not reach main.)
wide='^SitesWide\.main;SitesWide\.l1;SitesWide\.l2;SitesWide\.l3;(SitesWide\$Cell\.<init>;SitesWide\$Cell|int\[\]|long\[\]|java\.lang\.String\[\]) '
nwide=$(grep -cE "$wide" c.sites.collapsed || true)
check "the four SitesWide stacks are there ($nwide)" test "$nwide" = 4
check "Cell's stack holds all 86400 Cells (1382400 bytes)" \
  grep -qx 'SitesWide\.main;SitesWide\.l1;SitesWide\.l2;SitesWide\.l3;SitesWide\$Cell\.<init>;SitesWide\$Cell 1382400' c.sites.collapsed

# With cutoff=0 the views keep every site, and their total is every byte allocated.
run_java "$(agent heap=sites,cutoff=0,depth=8,view=collapsed,file=z.txt)" SitesWide
total=$(awk '/^SITES BEGIN/{i=1;next} /^SITES END/{i=0} i && $1 ~ /^[0-9]+$/ { s += $6 } END { print s + 0 }' z.txt)
check "cutoff=0: collapsed stacks add up to the bytes SITES says were allocated ($total)" \
  test "$(awk '{ s += $NF } END { printf "%.0f\n", s }' z.sites.collapsed)" = "$total"
check "cutoff=0: no stack of cut sites" bash -c "! grep -q 'sites under cutoff' z.sites.collapsed"
check "cutoff=0: the same four SitesWide stacks" test "$(grep -cE "$wide" z.sites.collapsed)" = 4
jni_clean
