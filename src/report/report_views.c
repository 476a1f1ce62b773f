/* SPDX-License-Identifier: Apache-2.0 */
#include "report/report_views.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options/options.h"
#include "sources/host.h"
#include "tables/classes.h"
#include "tables/frames.h"
#include "tables/ids.h"
#include "tables/methods.h"
#include "tables/monitors.h"
#include "tables/sites.h"
#include "tables/traces.h"
#include "util/clock.h"
#include "util/log.h"
#include "writers/text_records.h"
#include "writers/views.h"

/* ---- what was profiled ---- */

/* The JVM's options take a value as the next word. */
static bool takes_value(const char *a)
{
    static const char *const WITH_VALUE[] = {"-cp",         "-classpath",    "--class-path",
                                             "-p",          "--module-path", "--add-modules",
                                             "--add-opens", "--add-exports", "--add-reads"};
    for (size_t i = 0; i < sizeof WITH_VALUE / sizeof WITH_VALUE[0]; i++)
        if (strcmp(a, WITH_VALUE[i]) == 0) return true;
    return false;
}

/* "java Main args" (or "java -jar app.jar args", "java -m mod/Main"), without the JVM's
 * options: the command line of this process, from /proc. */
static void program_name(struct stack_profile *p)
{
    char cmd[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return;
    cmd[n] = 0;
    struct buf b;
    buf_init(&b);
    buf_printf(&b, "java");
    bool main_seen = false;
    for (char *a = cmd + strlen(cmd) + 1; a < cmd + n; a += strlen(a) + 1) {
        bool keep = main_seen || a[0] != '-' || strcmp(a, "-jar") == 0 || strcmp(a, "-m") == 0;
        if (!main_seen && takes_value(a) && a + strlen(a) + 1 < cmd + n) {
            a += strlen(a) + 1;
            continue;
        }
        if (keep) buf_printf(&b, " %s", a);
        if (a[0] != '-') main_seen = true;
        if (b.len > 200) break;
    }
    buf_u1(&b, 0);
    if (!b.oom) sp_set(p, &p->program, "%.200s", (const char *)b.data);
    buf_free(&b);
}

/* ---- frames ---- */

/* The profile's frame for each trace frame, found by the frame's ID (dense from
 * ID_FRAME_BASE + 1): traces share most frames. */
struct frame_cache {
    uint32_t *ix; /* index + 1, 0: not yet */
    size_t cap;
};

static uint32_t frame_of(struct stack_profile *p, struct frame_cache *c, const struct frame *f)
{
    size_t k = f->id - ID_FRAME_BASE;
    if (k < c->cap && c->ix[k]) return c->ix[k] - 1;
    const struct method_info *m = f->method;
    char name[1024];
    snprintf(name, sizeof name, "%s.%s", m->cls->name, m->name);
    uint32_t ix =
        sp_frame(p, name, m->cls->source_file, f->line, m->native || f->line == LINE_NATIVE ? SP_NATIVE : SP_JAVA);
    if (grow_array_zeroed((void **)&c->ix, &c->cap, k + 1, sizeof *c->ix)) c->ix[k] = ix + 1;
    return ix;
}

/* The trace's frames, top first, after `top` (a pseudo-frame, when not NULL) and with the
 * thread (thread=y) as the root. */
static void add_trace(struct stack_profile *p, struct frame_cache *c, const struct trace *t, const char *top,
                      const int64_t *values)
{
    uint32_t *fr = malloc((t->nframes + 3) * sizeof *fr);
    if (!fr) {
        p->oom = true;
        return;
    }
    uint32_t n = 0;
    if (top) fr[n++] = sp_frame(p, top, NULL, 0, SP_PSEUDO);
    for (uint32_t i = 0; i < t->nframes; i++) fr[n++] = frame_of(p, c, t->frames[i]);
    if (!t->nframes) fr[n++] = sp_frame(p, "[no Java frames]", NULL, 0, SP_PSEUDO);
    if (t->thread_serial) {
        char thread[32];
        snprintf(thread, sizeof thread, "thread %u", t->thread_serial);
        fr[n++] = sp_frame(p, thread, NULL, 0, SP_PSEUDO);
    }
    sp_add(p, fr, n, values);
    free(fr);
}

/* ---- the files ---- */

/* <file>.<section>[.<dump>]<ext>: <file> without ".txt"; the dump's number unless it is
 * the one at exit. A file= that names a view (view_file) is that view's name when one
 * section has stacks, else <file without its extension>.<section><ext>. */
static void write_views(struct report *r, struct stack_profile *p, const char *section)
{
    const struct options *o = r->opt;
    const char *file = r->file ? r->file : "java.hprof";
    size_t len = strlen(file);
    bool exact = o->view_file && options_stack_sections(o) == 1;
    if (o->view_file)
        len -= strlen(view_extension((int)o->view));
    else if (len > 4 && strcmp(file + len - 4, ".txt") == 0)
        len -= 4;
    char seq[16] = "";
    if (r->view_seq && !o->view_file) snprintf(seq, sizeof seq, ".%u", r->view_seq);
    for (int kind = 1; kind <= VIEW_ALL; kind <<= 1) {
        if (!(o->view & (unsigned)kind)) continue;
        char *path = NULL, err[512];
        int n = exact ? asprintf(&path, "%s", file)
                      : asprintf(&path, "%.*s.%s%s%s", (int)len, file, section, seq, view_extension(kind));
        if (n < 0) continue;
        if (view_write_file(p, NULL, kind, path, err, sizeof err) != 0) log_error("view=: %s", err);
        free(path);
    }
}

/* The main class (or jar, or module) of "java Main args": pprof's service_name when
 * service= is not given. */
static void default_service(const char *program, char *out, size_t len)
{
    const char *w = program && strncmp(program, "java ", 5) == 0 ? program + 5 : "java";
    if (strncmp(w, "-jar ", 5) == 0 || strncmp(w, "-m ", 3) == 0) w = strchr(w, ' ') + 1;
    size_t n = strcspn(w, " ");
    const char *slash = memrchr(w, '/', n);
    if (slash) n -= (size_t)(slash + 1 - w), w = slash + 1;
    snprintf(out, len, "%.*s", (int)(n ? n : 4), n ? w : "java");
}

/* What fleet tools read of a profile: the window it covers and who it is from. */
static void window_and_labels(struct report *r, struct stack_profile *p)
{
    int64_t now = (int64_t)clock_wall_us() * 1000;
    p->time_nanos = r->window_ns;
    p->duration_nanos = now > r->window_ns ? now - r->window_ns : 0;
    char service[160], host[256] = "";
    if (r->opt->service)
        snprintf(service, sizeof service, "%s", r->opt->service);
    else
        default_service(p->program, service, sizeof service);
    gethostname(host, sizeof host - 1);
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    sp_label(p, "service_name", service);
    sp_label(p, "host", host);
    sp_label(p, "pid", pid);
}

/* A profile with what every view says at the top: program, date, mode, depth. */
static void begin(struct report *r, struct stack_profile *p, const char *mode)
{
    sp_init(p);
    program_name(p);
    char when[64];
    sp_set(p, &p->date, "%s", text_now(when, sizeof when));
    sp_set(p, &p->mode, "%s", mode);
    p->depth = r->opt->depth;
    window_and_labels(r, p);
    if (!r->opt->depth_given) sp_set(p, &p->note, "stacks at most %d frames deep (depth= not given)", r->opt->depth);
}

static void finish(struct report *r, struct stack_profile *p, const char *section, struct frame_cache *c)
{
    if (p->oom)
        log_error("view=: out of memory building the %s views", section);
    else
        write_views(r, p, section);
    free(c->ix);
    sp_free(p);
}

/* ---- the sections ---- */

void views_cpu(struct report *r, const struct rank_row *rows, int nrows, bool times)
{
    if (!r->opt->view) return;
    struct stack_profile p;
    struct frame_cache c = {NULL, 0};
    begin(r, &p, times ? "cpu=times" : "cpu=samples");
    int64_t period = (int64_t)r->opt->interval_ms * 1000000;
    if (times) {
        sp_add_type(&p, "cpu", "nanoseconds");
        sp_add_type(&p, "calls", "count");
    } else {
        sp_add_type(&p, "samples", "count");
        sp_add_type(&p, "cpu", "nanoseconds"); /* a sample stands for one interval */
        p.period_type = (struct sp_type){"cpu", "nanoseconds"};
        p.period = period;
    }
    for (int i = 0; i < nrows; i++) {
        int64_t v[2] = {(int64_t)rows[i].cost, (int64_t)rows[i].count};
        if (!times) v[1] = (int64_t)rows[i].count * period;
        add_trace(&p, &c, rows[i].trace, NULL, v);
    }
    finish(r, &p, "cpu", &c);
}

/*
 * The sites' views: every site, whatever the cutoff, so that their totals are the run's
 * (SITES ranks and cuts by live bytes, which leaves out what was allocated and died, a
 * server's per-request garbage). Each sample's values are one site's; the views merge
 * the sites whose stacks of method names are the same.
 */
void views_sites(struct report *r, struct site *const *rows, int nrows)
{
    if (!r->opt->view) return;
    struct stack_profile p;
    struct frame_cache c = {NULL, 0};
    begin(r, &p, "heap=sites");
    if (r->opt->alloc_sample > 0)
        sp_set(&p, &p.note,
               "estimated from allocation samples every %ld bytes, a sample of n bytes counting as %ld/n objects, "
               "at least 1, allocated and, while it lives, in use; stacks at most %d frames deep",
               r->opt->alloc_sample, r->opt->alloc_sample, p.depth);
    else if (r->opt->live == LIVE_SAMPLED)
        sp_set(&p, &p.note,
               "in use estimated from 1 in %d objects past a site's first %d; stacks at most %d frames deep",
               LIVE_SAMPLE_EVERY, LIVE_EXACT_FIRST, p.depth);
    else if (r->opt->callers == CALLERS_SAMPLED)
        sp_set(&p, &p.note,
               "allocations exact per allocation site; a class frame named '(apportioned)' holds its share of a "
               "site's count split among the site's sampled traces; in use estimated from allocation samples; "
               "stacks at most %d frames deep",
               p.depth);
    sp_add_type(&p, "alloc_space", "bytes");
    sp_add_type(&p, "alloc_objects", "count");
    sp_add_type(&p, "inuse_space", "bytes");
    sp_add_type(&p, "inuse_objects", "count");
    for (int i = 0; i < nrows; i++) {
        const struct site *s = rows[i];
        int64_t v[4] = {(int64_t)s->shown_bytes, (int64_t)s->shown_objs, (int64_t)s->live_bytes, (int64_t)s->live_objs};
        char shared[1024];
        const char *name = s->cls->name;
        if (atomic_load_explicit(&s->apportioned, memory_order_relaxed)) {
            snprintf(shared, sizeof shared, "%s (apportioned)", s->cls->name);
            name = shared;
        }
        if (v[0] || v[2]) add_trace(&p, &c, s->trace, name, v);
    }
    finish(r, &p, "sites", &c);
}

void views_monitors(struct report *r, const struct monitor_times *t)
{
    if (!r->opt->view || !t->total_count) return;
    struct stack_profile p;
    struct frame_cache c = {NULL, 0};
    begin(r, &p, "monitor=y (contention)");
    sp_add_type(&p, "delay", "nanoseconds");
    sp_add_type(&p, "contentions", "count");
    for (int i = 0; i < t->nall; i++) {
        const struct monitor_entry *e = t->rows[i].entry;
        int64_t v[2] = {(int64_t)t->rows[i].ns, (int64_t)t->rows[i].count};
        char top[512];
        snprintf(top, sizeof top, "lock %s", e->cls && e->cls->name ? e->cls->name : "[unknown class]");
        add_trace(&p, &c, e->trace ? e->trace : &r->h->t.traces.empty, top, v);
    }
    finish(r, &p, "monitor", &c);
}
