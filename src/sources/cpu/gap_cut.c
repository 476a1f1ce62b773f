/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/gap_cut.h"

#include "sources/cpu/tracker_events.h"

/* The most gaps gap_level searches on the C stack: usually only a few are long enough. */
#define FEW_GAPS 64

int64_t gap_first_time(const int64_t *p, int n, int64_t otherwise)
{
    for (int k = 0; k + 1 < n; k++)
        if (event_is_timed(p[k])) return p[k + 1];
    return otherwise;
}

int64_t gap_untimed_when(const int64_t *p, int i, int n, int64_t end, int64_t prev, int64_t level, int64_t paused)
{
    int64_t t = gap_first_time(p + i, n - i, end);
    return t - paused - gap_cut(prev, t, level);
}

int gap_list(int64_t *gaps, const int64_t *p, int n, int64_t end, int64_t prev)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!event_is_timed(p[i])) continue;
        if (++i == n) break; /* its time cut off */
        int64_t t = p[i], g = prev == GAP_NO_TIME ? 0 : t - prev;
        gaps[m++] = g > 0 ? g : 0;
        prev = t;
    }
    int64_t g = prev == GAP_NO_TIME ? 0 : end - prev;
    gaps[m++] = g > 0 ? g : 0;
    return m;
}

/* What cutting every gap down to `level` cuts, in all. */
static int64_t cut_above(const int64_t *gaps, int n, int64_t level)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        if (gaps[i] > level) sum += gaps[i] - level;
    return sum;
}

/* The level is no lower than the longest gap less `off`, so only the gaps above that
 * count, usually a few: they are searched alone, by halving. */
int64_t gap_level(const int64_t *gaps, int n, int64_t off)
{
    int64_t hi = 0;
    for (int i = 0; i < n; i++)
        if (gaps[i] > hi) hi = gaps[i];
    int64_t lo = hi > off ? hi - off : 0, few[FEW_GAPS];
    int k = 0;
    for (int i = 0; i < n && k <= FEW_GAPS; i++)
        if (gaps[i] > lo) {
            if (k < FEW_GAPS) few[k] = gaps[i];
            k++;
        }
    const int64_t *c = k <= FEW_GAPS ? few : gaps;
    int m = k <= FEW_GAPS ? k : n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (cut_above(c, m, mid) >= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
