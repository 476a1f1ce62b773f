/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's options: parsing, validation and the `help` text.
 * Pure C (no JVMTI), so it is unit-tested on its own.
 */
#ifndef HPROF_OPTIONS_H
#define HPROF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum timeline_mode { TIMELINE_OFF = 0, TIMELINE_GC = 1, TIMELINE_MS = 2 };
enum heap_mode { HEAP_NONE = 0, HEAP_SITES = 1, HEAP_DUMP = 2, HEAP_ALL = 3 };
enum cpu_mode { CPU_OFF = 0, CPU_SAMPLES, CPU_TIMES, CPU_OLD };
/* cpu=samples: what a sample's interval is measured in, and who takes the stacks. */
enum sample_clock { CLOCK_CPU = 0, CLOCK_WALL };
enum sample_engine { ENGINE_SIGNAL = 0, ENGINE_JVMTI };
/* cpu=samples (signal engine, clock=cpu): every thread's CPU, or the Java threads' only. */
enum sample_threads { THREADS_ALL = 0, THREADS_JAVA };
/* cpu=times: methods found cheap timed by sample (the default), or every call timed. */
enum cpu_timing { TIMING_SAMPLED = 0, TIMING_ALL, TIMING_GPROF };
/* Exact heap=sites: every counted object held for the live counts, or past a site's
 * first objects one in LIVE_SAMPLE_EVERY (estimates). */
enum live_mode { LIVE_ALL = 0, LIVE_SAMPLED };
/* Exact heap=sites: every allocation's trace taken (callers=all), or each bytecode site
 * counted exactly and its callers found on samples (callers=sampled, alloc_counted.c). */
enum callers_mode { CALLERS_ALL = 0, CALLERS_SAMPLED };
#define LIVE_EXACT_FIRST  4096 /* objects of a site all held (the help text says so too) */
#define LIVE_SAMPLE_EVERY 16   /* then one in this many, each standing for as many */
/* The views of a stack profile (writers/views.h), a bit each in view=. */
enum view_kind { VIEW_HTML = 1, VIEW_COLLAPSED = 2, VIEW_PPROF = 4 };
#define VIEW_ALL (VIEW_HTML | VIEW_COLLAPSED | VIEW_PPROF)

struct options {
    enum heap_mode heap;
    enum cpu_mode cpu;
    bool monitor;
    char format; /* 'a' text, 'b' binary */
    char *file;  /* as given, or the default for the format */
    bool file_given;
    char *net_host; /* NULL unless net= */
    int net_port;
    int depth;
    int interval_ms;
    double cutoff;
    bool lineno, thread, doe, msa, force, verbose;
    bool native;                 /* cpu=samples: native frames (C, C++, the JVM's own) in stacks */
    bool precise;                /* cpu=samples: HotSpot's DebugNonSafepoints on (n: left as it was) */
    bool kernel;                 /* cpu=samples: the kernel's frames (perf events) on top */
    bool gc_okay_given;          /* obsolete: accepted, with a note */
    bool primfields;             /* format=b heap dumps: primitive field values (n: written as 0) */
    bool primarrays;             /* format=b heap dumps: primitive arrays' elements (n: none) */
    unsigned no_effect;          /* the original's options given that do nothing here: a bit each */
    long alloc_sample;           /* heap=sites sampled every this many bytes (0: exact counts) */
    enum live_mode live;         /* exact heap=sites: live=all (default) or sampled */
    enum callers_mode callers;   /* exact heap=sites: callers=all (default) or sampled */
    enum sample_clock clock;     /* cpu=samples: clock=cpu (CPU used) or wall (every thread) */
    enum sample_engine sampler;  /* cpu=samples: sampler=signal (default) or jvmti */
    enum sample_threads threads; /* cpu=samples: threads=all (default: the VM's too) or java */
    enum cpu_timing timing;      /* cpu=times: timing=sampled (default), all or gprof */
    unsigned view;               /* view=: VIEW_* bits */
    bool viewonly;               /* viewonly=y: the views instead of the usual file */
    bool depth_given;            /* depth= was given (else a view makes stacks VIEW_DEPTH deep) */
    enum timeline_mode timeline; /* timeline=: off, gc or every timeline_ms */
    int timeline_ms;             /* timeline=<ms>: the period of its records */
    bool format_short;           /* format=short: binary, timeline on, no heap dumps */
    bool heap_given;             /* heap= was given */
    char *text;                  /* the options as given, for the run header */
    int top;                     /* top=N: at most N rows per ranked section and timeline record (0: all) */
    bool view_file;              /* file= ends in a view's extension: that view alone, named so */
    int rotate_s;                /* rotate=<seconds>: a file per window (0: off) */
    int keep;                    /* keep=<n>: rotate= deletes all but the last n files (0: keeps all) */
    char *service;               /* service=<name>: pprof's service_name label (NULL: the main class) */
};

/* The stack depth when a view is asked for and depth= is not given: a flame graph of 4
 * frames shows nothing. */
#define VIEW_DEPTH 64
/* The longest sampling interval or timeline period, in ms (an hour), and as text for
 * messages. */
#define OPT_MAX_MS      3600000
#define OPT_MAX_MS_TEXT "3600000"

enum options_result { OPTIONS_OK = 0, OPTIONS_HELP = 1, OPTIONS_ERROR = -1 };

/*
 * Parses "name=value,name=value" (NULL or "" means no options). On error writes one
 * sentence into err (without the "HPROF ERROR: " prefix) and returns OPTIONS_ERROR.
 * The result owns its strings: release them with options_free.
 */
enum options_result options_parse(const char *text, struct options *o, char *err, size_t errlen);
void options_free(struct options *o);

/* The name of the i-th option the parser takes (for tests), NULL past the last. */
const char *options_name(size_t i);

/* The text printed for `help`. */
const char *options_help_text(void);

/*
 * The names of the original's options given in o that have no effect here, comma
 * separated, into buf; returns false when none was given.
 */
bool options_no_effect(const struct options *o, char *buf, size_t len);

/* How many sections with stacks (each its own view) o asks for: cpu=samples|times,
 * heap=sites, monitor=y. */
int options_stack_sections(const struct options *o);

/* The short name of a cpu= mode, for messages. */
const char *options_cpu_name(enum cpu_mode m);

#endif
