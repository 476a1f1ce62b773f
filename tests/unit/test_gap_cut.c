/* SPDX-License-Identifier: Apache-2.0 */
/* cpu=times: cutting a thread's off-CPU time out of its events' gaps (gap_cut.h), and the
 * method codes the events carry (tracker_events.h). */
#include "unit.h"
#include "sources/cpu/gap_cut.h"
#include "sources/cpu/tracker_events.h"

#define CODE   ((int64_t)0x12345)               /* class 0x1, method 0x2345 */
#define EXIT   (TRACKER_EXIT_BIT | CODE)        /* timed: a time slot follows */
#define LEAF   (TRACKER_LEAF_BIT | CODE)        /* no time slot */
#define UNTIME (TRACKER_UNTIMED_BIT | CODE)     /* no time slot */
#define MARK   (TRACKER_MARK_BIT | (int64_t)77) /* the head of a handed-back buffer */

static void test_codes(void)
{
    uint32_t cnum, mnum;
    method_code_split(method_code(70000, 65535), &cnum, &mnum);
    CHECK(cnum == 70000 && mnum == 65535, "method code: class and method numbers back as packed");
    CHECK(method_code(1, 0x2345) == (uint64_t)CODE, "method code: class number << 16 | method number");
    CHECK(event_code(EXIT) == (uint64_t)CODE && event_code(LEAF) == (uint64_t)CODE &&
              event_code(UNTIME) == (uint64_t)CODE,
          "event code: the event bits taken off");
    CHECK(event_is_timed(CODE) && event_is_timed(EXIT) && !event_is_timed(LEAF) && !event_is_timed(UNTIME) &&
              !event_is_timed(MARK),
          "event kinds: entries and exits read the clock, leaves, untimed events and marks do not");
    CHECK(event_is_exit(EXIT) && !event_is_exit(CODE) && event_is_leaf(LEAF) && !event_is_leaf(EXIT) &&
              event_is_untimed(UNTIME) && !event_is_untimed(MARK) && event_is_mark(MARK),
          "event kinds: exit, leaf, untimed and mark told apart");
}

static void test_cut(void)
{
    CHECK(gap_cut(GAP_NO_TIME, 5000, 0) == 0, "gap_cut: no event before, no gap");
    CHECK(gap_cut(100, 250, 200) == 0, "gap_cut: a gap under the level is not cut");
    CHECK(gap_cut(100, 1100, 300) == 700, "gap_cut: a gap over the level is cut down to it");
    CHECK(gap_cut(100, 1100, INT64_MAX) == 0, "gap_cut: nothing off the CPU, nothing cut");
}

static void test_first_time(void)
{
    const int64_t p[] = {LEAF, UNTIME, CODE, 500, EXIT, 600};
    CHECK(gap_first_time(p, 6, -1) == 500, "gap_first_time: past events that read no clock");
    const int64_t q[] = {LEAF, UNTIME, CODE};
    CHECK(gap_first_time(q, 3, 42) == 42, "gap_first_time: a timed event whose time was cut off has none");
    CHECK(gap_first_time(q, 0, 42) == 42, "gap_first_time: no slots");
}

static void test_list(void)
{
    int64_t gaps[8];
    const int64_t p[] = {CODE, 100, EXIT, 150, LEAF, CODE, 400};
    int m = gap_list(gaps, p, 7, 1000, 50);
    CHECK(m == 4 && gaps[0] == 50 && gaps[1] == 50 && gaps[2] == 250 && gaps[3] == 600,
          "gap_list: from the event before, between timed events, to the hand-over (got %d: %lld %lld %lld %lld)", m,
          (long long)gaps[0], (long long)gaps[1], (long long)gaps[2], (long long)gaps[3]);
    m = gap_list(gaps, p, 7, 1000, GAP_NO_TIME);
    CHECK(m == 4 && gaps[0] == 0 && gaps[1] == 50, "gap_list: no event before: the first gap is none");
    const int64_t back[] = {CODE, 300, EXIT, 200};
    m = gap_list(gaps, back, 4, 100, 400);
    CHECK(m == 3 && gaps[0] == 0 && gaps[1] == 0 && gaps[2] == 0, "gap_list: a clock going back makes no gap");
    const int64_t cut[] = {CODE, 100, EXIT};
    m = gap_list(gaps, cut, 3, 900, 0);
    CHECK(m == 2 && gaps[0] == 100 && gaps[1] == 800, "gap_list: an event whose time was cut off ends the list");
    m = gap_list(gaps, p, 0, 900, 600);
    CHECK(m == 1 && gaps[0] == 300, "gap_list: no events: the gap to the hand-over alone");
}

static void test_level(void)
{
    const int64_t one[] = {10, 20, 1000, 30};
    CHECK(gap_level(one, 4, 500) == 500, "gap_level: one long gap cut by the time off the CPU");
    const int64_t two[] = {1000, 800, 5};
    CHECK(gap_level(two, 3, 600) == 600, "gap_level: two long gaps cut down to one level");
    const int64_t small[] = {10, 20};
    CHECK(gap_level(small, 2, 100) == 0, "gap_level: more off the CPU than all the gaps: every gap cut");
    CHECK(gap_level(small, 2, 0) == 20, "gap_level: nothing off the CPU: nothing cut");
    int64_t many[100];
    for (int i = 0; i < 100; i++) many[i] = 1000;
    CHECK(gap_level(many, 100, 1000) == 990, "gap_level: more long gaps than kept apart, searched in place");
    many[7] = 5000;
    CHECK(gap_level(many, 100, 3000) == 2000, "gap_level: the longest gap alone over the level");
}

static void test_untimed_when(void)
{
    const int64_t p[] = {UNTIME, CODE, 700};
    CHECK(gap_untimed_when(p, 1, 3, 1000, 100, 300, 50) == 350,
          "gap_untimed_when: the next timed event's time, less what was and is cut before it");
    const int64_t q[] = {UNTIME, LEAF};
    CHECK(gap_untimed_when(q, 1, 2, 1000, 900, INT64_MAX, 40) == 960,
          "gap_untimed_when: no timed event after it: the hand-over's time");
}

int main(void)
{
    test_codes();
    test_cut();
    test_first_time();
    test_list();
    test_level();
    test_untimed_when();
    return UNIT_DONE();
}
