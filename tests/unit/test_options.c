/* SPDX-License-Identifier: Apache-2.0 */
/* Option parsing: defaults, every option, and every error the manual implies. */
#include <stdlib.h>

#include "options/options.h"
#include "unit.h"

static struct options parse_ok(const char *text, int *ok)
{
    struct options o;
    char err[512];
    *ok = options_parse(text, &o, err, sizeof err) == OPTIONS_OK;
    if (!*ok) printf("#   unexpected error: %s\n", err);
    return o;
}

static void expect_error(const char *text, const char *fragment)
{
    struct options o;
    char err[512];
    enum options_result r = options_parse(text, &o, err, sizeof err);
    CHECK(r == OPTIONS_ERROR && strstr(err, fragment) != NULL, "'%s' is rejected mentioning '%s' (got: %s)", text,
          fragment, err);
    if (r == OPTIONS_OK) options_free(&o);
}

int main(void)
{
    int ok;
    struct options o = parse_ok(NULL, &ok);
    CHECK(ok && o.heap == HEAP_ALL && o.cpu == CPU_OFF && !o.monitor, "no options means heap=all");
    CHECK(o.format == 'a' && strcmp(o.file, "java.hprof.txt") == 0, "default text file java.hprof.txt");
    CHECK(o.depth == 4 && o.interval_ms == 10 && o.cutoff == 0.0001, "defaults depth=4 interval=10 cutoff=0.0001");
    CHECK(o.lineno && !o.thread && o.doe && !o.msa && o.force && o.verbose, "default y/n flags");
    CHECK(o.net_host == NULL, "no socket by default");
    options_free(&o);

    o = parse_ok("cpu=samples", &ok);
    CHECK(ok && o.cpu == CPU_SAMPLES && o.heap == HEAP_NONE, "cpu=samples alone turns heap off");
    options_free(&o);
    /* timeline=, top=, format=short (the 1997 requests) */
    o = parse_ok(NULL, &ok);
    CHECK(ok && o.timeline == TIMELINE_OFF && o.top == 0 && !o.format_short, "timeline off, top all by default");
    options_free(&o);
    o = parse_ok("heap=sites,timeline=gc,top=3", &ok);
    CHECK(ok && o.timeline == TIMELINE_GC && o.top == 3 && strcmp(o.text, "heap=sites,timeline=gc,top=3") == 0,
          "timeline=gc, top=3, the options as given kept");
    options_free(&o);
    o = parse_ok("heap=sites,timeline=250", &ok);
    CHECK(ok && o.timeline == TIMELINE_MS && o.timeline_ms == 250, "timeline=250");
    options_free(&o);
    o = parse_ok("format=short", &ok);
    CHECK(ok && o.format == 'b' && o.format_short && o.heap == HEAP_SITES && o.timeline == TIMELINE_GC &&
              strcmp(o.file, "java.hprof") == 0,
          "format=short: binary, heap=sites, timeline=gc, no heap dump");
    options_free(&o);
    o = parse_ok("format=short,cpu=samples,timeline=100", &ok);
    CHECK(ok && o.heap == HEAP_NONE && o.timeline == TIMELINE_MS, "format=short keeps cpu= alone and timeline=<ms>");
    options_free(&o);
    expect_error("format=short,heap=dump", "format=short writes no heap dumps");
    /* live= (exact heap=sites: every object held, or samples past a site's first) */
    o = parse_ok("heap=sites", &ok);
    CHECK(ok && o.live == LIVE_ALL, "live=all by default");
    options_free(&o);
    o = parse_ok("heap=sites,live=sampled", &ok);
    CHECK(ok && o.live == LIVE_SAMPLED, "heap=sites,live=sampled");
    options_free(&o);
    o = parse_ok("heap=sites,live=all", &ok);
    CHECK(ok && o.live == LIVE_ALL, "live=all");
    options_free(&o);
    expect_error("heap=sites,live=some", "live option value must be all|sampled");
    expect_error("live=sampled", "live=sampled is for heap=sites alone");
    expect_error("heap=all,live=sampled", "live=sampled is for heap=sites alone");
    expect_error("cpu=samples,live=sampled", "live=sampled needs heap=sites");
    expect_error("heap=sites,alloc_sample=4096,live=sampled", "alloc_sample= estimates the live counts already");
    CHECK(strstr(options_help_text(), "live=all|sampled") != NULL, "help names live=all|sampled");
    expect_error("heap=sites,callers=some", "callers option value must be all|sampled");
    expect_error("cpu=samples,callers=sampled", "callers=sampled needs heap=sites (or heap=all)");
    expect_error("heap=dump,callers=sampled", "callers=sampled needs heap=sites (or heap=all)");
    expect_error("heap=sites,alloc_sample=4096,callers=sampled", "callers=sampled counts every allocation");
    expect_error("heap=sites,callers=sampled,live=sampled", "callers=sampled estimates the live counts already");
    CHECK(strstr(options_help_text(), "callers=all|sampled") != NULL, "help names callers=all|sampled");
    expect_error("timeline=sometimes", "timeline option value must be gc or a number");
    expect_error("timeline=0", "timeline option value must be gc or a number");
    expect_error("top=0", "top option value must be a number from 1");
    expect_error("format=c", "format option value must be a|b|short");
    o = parse_ok("cpu=y", &ok);
    CHECK(ok && o.cpu == CPU_SAMPLES, "cpu=y means samples");
    options_free(&o);
    o = parse_ok("cpu=samples", &ok);
    CHECK(ok && o.clock == CLOCK_CPU && o.sampler == ENGINE_SIGNAL && o.threads == THREADS_ALL,
          "cpu=samples: clock=cpu, sampler=signal, threads=all by default");
    options_free(&o);
    o = parse_ok("cpu=samples,clock=wall,sampler=jvmti", &ok);
    CHECK(ok && o.clock == CLOCK_WALL && o.sampler == ENGINE_JVMTI, "clock=wall, sampler=jvmti");
    options_free(&o);
    o = parse_ok("cpu=times", &ok);
    CHECK(ok && o.timing == TIMING_SAMPLED, "cpu=times: timing=sampled by default");
    options_free(&o);
    o = parse_ok("cpu=times,timing=all", &ok);
    CHECK(ok && o.timing == TIMING_ALL, "timing=all");
    options_free(&o);
    o = parse_ok("cpu=times,timing=gprof", &ok);
    CHECK(ok && o.timing == TIMING_GPROF, "timing=gprof");
    o = parse_ok("cpu=times,timing=all,timing=sampled", &ok);
    CHECK(ok && o.timing == TIMING_SAMPLED, "timing=sampled");
    options_free(&o);
    o = parse_ok("cpu=samples,clock=cpu,sampler=signal", &ok);
    CHECK(ok && o.clock == CLOCK_CPU && o.sampler == ENGINE_SIGNAL, "clock=cpu, sampler=signal");
    options_free(&o);
    o = parse_ok("cpu=samples,threads=java", &ok);
    CHECK(ok && o.threads == THREADS_JAVA, "threads=java");
    options_free(&o);
    o = parse_ok("cpu=times", &ok);
    CHECK(ok && o.cpu == CPU_TIMES, "cpu=times");
    options_free(&o);
    o = parse_ok("cpu=old", &ok);
    CHECK(ok && o.cpu == CPU_OLD, "cpu=old");
    options_free(&o);
    o = parse_ok("heap=sites", &ok);
    CHECK(ok && o.heap == HEAP_SITES, "heap=sites");
    options_free(&o);
    o = parse_ok("heap=dump,heap=sites", &ok);
    CHECK(ok && o.heap == HEAP_ALL, "heap=dump plus heap=sites is all");
    options_free(&o);
    o = parse_ok("monitor=y", &ok);
    CHECK(ok && o.monitor && o.heap == HEAP_NONE, "monitor=y alone");
    options_free(&o);
    o = parse_ok("format=b", &ok);
    CHECK(ok && o.format == 'b' && strcmp(o.file, "java.hprof") == 0, "format=b defaults to java.hprof");
    options_free(&o);
    o = parse_ok("file=out.bin", &ok);
    CHECK(ok && strcmp(o.file, "out.bin") == 0 && o.file_given, "file= used as given");
    options_free(&o);
    o = parse_ok("net=localhost:8000", &ok);
    CHECK(ok && strcmp(o.net_host, "localhost") == 0 && o.net_port == 8000, "net=host:port");
    options_free(&o);
    o = parse_ok("depth=0,interval=1,cutoff=0,lineno=n,thread=y,doe=n,msa=y,force=n,verbose=n,gc_okay=y", &ok);
    CHECK(ok && o.depth == 0 && o.interval_ms == 1 && o.cutoff == 0 && !o.lineno && o.thread && !o.doe && o.msa &&
              !o.force && !o.verbose && o.gc_okay_given,
          "every y/n and number option is read");
    options_free(&o);
    o = parse_ok(NULL, &ok);
    CHECK(o.primfields && o.primarrays && o.no_effect == 0, "primitive fields and arrays are dumped by default");
    options_free(&o);
    o = parse_ok("primfields=n,primarrays=n", &ok);
    CHECK(ok && !o.primfields && !o.primarrays && o.no_effect == 0, "primfields=n,primarrays=n are read");
    options_free(&o);
    /* The original's regression test for binary heap dumps passes logflags=4. */
    o = parse_ok("heap=dump,format=b,logflags=4", &ok);
    char names[128];
    CHECK(ok && o.format == 'b' && options_no_effect(&o, names, sizeof names) && strcmp(names, "logflags") == 0,
          "logflags=4 is accepted, as an option with no effect");
    options_free(&o);
    o = parse_ok("logflags=0x7,debugflags=010,coredump=y,errorexit=n,exitpause=y,pause=n,precrash=y,debug=y,X=-2", &ok);
    CHECK(ok && options_no_effect(&o, names, sizeof names) &&
              strcmp(names, "logflags, debugflags, coredump, errorexit, exitpause, pause, precrash, debug, X") == 0,
          "every option of the original is accepted with its value syntax (got: %s)", names);
    options_free(&o);
    o = parse_ok("cpu=samples", &ok);
    CHECK(!options_no_effect(&o, names, sizeof names) && names[0] == 0, "no option without effect given");
    options_free(&o);
    for (const char *const *h =
             (const char *const[]){"primfields=y|n", "primarrays=y|n", "logflags=<n>", "debugflags=<n>", "coredump=y|n",
                                   "errorexit=y|n", "exitpause=y|n", "pause=y|n", "precrash=y|n", "debug=y|n", "X=<n>",
                                   NULL};
         *h; h++)
        CHECK(strstr(options_help_text(), *h) != NULL, "help names %s", *h);
    CHECK(strstr(options_help_text(), "not yet supported") == NULL, "help says nothing is 'not yet supported'");

    o = parse_ok("cpu=samples,", &ok);
    CHECK(ok, "a trailing comma is fine");
    options_free(&o);

    char err[512];
    CHECK(options_parse("help", &o, err, sizeof err) == OPTIONS_HELP, "help");
    CHECK(strstr(options_help_text(), "heap=dump|sites|all    heap profiling                 all\n") != NULL,
          "help has the option table");

    expect_error("bogus=1", "Unknown option: bogus (bogus=1)");
    expect_error("bogus", "Unknown option: bogus");
    expect_error("depth=-1", "depth");
    expect_error("depth=4x", "depth");
    expect_error("interval=abc", "interval");
    expect_error("interval=0", "interval");
    expect_error("cutoff=2", "cutoff");
    expect_error("cutoff=-0.1", "cutoff");
    expect_error("file=", "file");
    expect_error("net=host", "net option missing port");
    expect_error("net=:1", "net option missing ':'");
    expect_error("net=h:0", "port");
    expect_error("net=h:x", "port");
    expect_error("file=a,net=h:1", "only appear once");
    expect_error("format=c", "format");
    expect_error("heap=x", "heap");
    expect_error("cpu=x", "cpu");
    expect_error("clock=both", "clock option value must be cpu|wall");
    expect_error("sampler=perf", "sampler option value must be signal|jvmti");
    expect_error("threads=vm", "threads option value must be all|java");
    expect_error("timing=some", "timing option value must be sampled|all|gprof");
    expect_error("timing=", "timing option value must be sampled|all|gprof");
    expect_error("lineno=yes", "lineno");
    expect_error("=y", "syntax");
    expect_error("primfields=0", "primfields option value must be y|n");
    expect_error("primarrays=yes", "primarrays option value must be y|n");
    expect_error("logflags=", "logflags option value must be numeric");
    expect_error("logflags=4x", "logflags option value must be numeric");
    expect_error("X=abc", "X option value must be numeric");
    expect_error("pause=1", "pause option value must be y|n");
    expect_error("precrash=", "precrash option value must be y|n");
    expect_error("format=b,monitor=y", "monitor=y is not supported with format=b");
    expect_error("format=b,cpu=times", "cpu=times|old is not supported with format=b");
    expect_error("cpu=old,format=b", "cpu=times|old is not supported with format=b");
    expect_error("cpu=samples,help", "help");

    /* Sessions and rolling windows (agent/session.h) */
    o = parse_ok("cpu=samples,rotate=60,keep=5,file=/tmp/p-%t.txt,service=shop.api", &ok);
    CHECK(ok && o.rotate_s == 60 && o.keep == 5 && strcmp(o.service, "shop.api") == 0 && !o.viewonly,
          "rotate=60,keep=5,service=: a text file per window, the last 5 kept");
    options_free(&o);
    o = parse_ok("cpu=samples,rotate=1,file=w-%t.pb.gz", &ok);
    CHECK(ok && o.view == VIEW_PPROF && o.viewonly && o.view_file && options_stack_sections(&o) == 1,
          "file=...pb.gz is the pprof view alone, named so");
    options_free(&o);
    o = parse_ok("heap=sites,monitor=y,file=s.html", &ok);
    CHECK(ok && o.view == VIEW_HTML && o.viewonly && options_stack_sections(&o) == 2,
          "file=...html: the flame graphs alone");
    options_free(&o);
    o = parse_ok("cpu=samples,file=a.txt", &ok);
    CHECK(ok && !o.view && !o.view_file && o.rotate_s == 0 && o.keep == 0 && !o.service,
          "no rotation by default; a .txt file is the profile");
    options_free(&o);
    expect_error("cpu=samples,rotate=60", "rotate= needs %t in file=");
    expect_error("cpu=samples,rotate=60,file=a-%t.txt,net=h:1", "only appear once");
    expect_error("cpu=samples,rotate=60,net=h:1", "rotate= writes files: drop net=");
    expect_error("heap=sites,rotate=60,timeline=gc,file=a-%t.txt", "rotate= cannot be used with timeline=");
    expect_error("cpu=samples,heap=sites,rotate=60,file=a-%t.pb.gz", "takes one of cpu=, heap=sites, monitor=y");
    expect_error("cpu=samples,keep=3,file=a-%t.txt", "keep= needs rotate=");
    expect_error("rotate=0,file=a-%t.txt", "rotate option value must be a number of seconds from 1 to 86400");
    expect_error("rotate=86401,file=a-%t.txt", "rotate option value");
    expect_error("keep=0,rotate=5,file=a-%t.txt", "keep option value must be a number of files from 1");
    expect_error("service=a b", "service option value");
    expect_error("service={x}", "service option value");
    expect_error("service=", "service option value");
    expect_error("view=html,file=a.pb.gz", "file= names a view (.pb.gz): drop view=");
    return UNIT_DONE();
}
