/* SPDX-License-Identifier: Apache-2.0 */
#include "agent/switch_rules.h"

#include <stdbool.h>
#include <stddef.h>

#include "options/options.h"
#include "sources/alloc/alloc_tracker.h"
#include "sources/cpu/call_counts.h"
#include "sources/host.h"

/* What a rule looks at: the new session's options, the first load's, and how the
 * allocation source was set up then. */
struct switch_case {
    const struct options *o, *first;
    bool sites;    /* o asks for heap=sites */
    bool counting; /* the allocation source runs (heap=sites at some load or session) */
    bool exact;    /* it counts exactly (instrumented at the first load) */
};

static bool net(const struct switch_case *c) { return c->o->net_host || c->first->net_host; }

static bool timeline(const struct switch_case *c)
{
    return c->o->timeline != c->first->timeline || c->o->timeline_ms != c->first->timeline_ms;
}

static bool thread_keys(const struct switch_case *c) { return c->o->thread != c->first->thread; }

static bool sampler(const struct switch_case *c)
{
    return c->o->cpu == CPU_SAMPLES && (c->o->clock != c->first->clock || c->o->sampler != c->first->sampler);
}

static bool times(const struct switch_case *c)
{
    return (c->o->cpu == CPU_TIMES || c->o->cpu == CPU_OLD) && c->o->cpu != c->first->cpu;
}

static bool gprof(const struct switch_case *c)
{
    return c->o->cpu == CPU_TIMES && call_counts_wanted(c->o) != call_counts_wanted(c->first);
}

static bool exact_sites(const struct switch_case *c)
{
    return c->sites && c->o->alloc_sample == 0 && !(c->counting && c->exact);
}

static bool sampled_sites(const struct switch_case *c)
{
    return c->sites && c->o->alloc_sample > 0 && c->counting && c->exact;
}

static bool callers(const struct switch_case *c)
{
    return c->sites && c->counting && c->o->alloc_sample == 0 && c->o->callers != c->first->callers;
}

static bool live_sampled(const struct switch_case *c)
{
    return c->sites && c->counting && c->o->live == LIVE_SAMPLED && c->first->live != LIVE_SAMPLED;
}

static bool dump_of_samples(const struct switch_case *c)
{
    return (c->o->heap & HEAP_DUMP) && c->first->live == LIVE_SAMPLED;
}

static bool sites_timeline(const struct switch_case *c)
{
    return c->sites && !c->counting && c->first->timeline != TIMELINE_OFF;
}

static bool dump_format(const struct switch_case *c)
{
    return (c->o->heap & HEAP_DUMP) && c->o->format != c->first->format;
}

/* In order: the first that applies is said. */
static const struct rule {
    bool (*refuses)(const struct switch_case *c);
    const char *why;
} RULES[] = {
    {net, "net=: a socket's profile is set at the first load, for good"},
    {timeline, "timeline=: the timeline's GC records are set up at the first load"},
    {thread_keys, "thread=: the traces are keyed by thread (or not) since the first load"},
    {sampler, "clock= and sampler= stay as at the first load"},
    {times, "cpu=times and cpu=old need the classes instrumented for them at the first load"},
    {gprof, "timing=gprof (calls counted by the threads themselves) is set at the first load, for good"},
    {exact_sites,
     "exact heap=sites needs the allocation instrumentation of the first load; give "
     "alloc_sample=<bytes> for sampled counts"},
    {sampled_sites,
     "alloc_sample=: this agent counts allocations exactly since the first load; leave alloc_sample= "
     "out"},
    {callers,
     "callers=: whether allocations are counted at bytecode sites (callers=sampled) or with every "
     "trace (callers=all) is set at the first load, for good"},
    {live_sampled, "live=sampled: whether every counted object is held is set at the first load, for good"},
    {dump_of_samples,
     "heap=dump: this agent holds only samples of busy sites' objects (live=sampled), so a dump "
     "could not name every object's site"},
    {sites_timeline, "heap=sites with timeline= needs heap=sites at the first load"},
    {dump_format, "heap=dump writes the format of the first load's heap dumps; give its format="},
};

const char *switch_refused(struct host *h, const struct options *o)
{
    struct switch_case c = {
        .o = o,
        .first = h->opt,
        .sites = (o->heap & HEAP_SITES) != 0,
        .counting = alloc_tracker_sites(h) != NULL,
        .exact = alloc_tracker_exact(h),
    };
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        if (RULES[i].refuses(&c)) return RULES[i].why;
    return NULL;
}
