/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/cpu/call_counts.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "options/options.h"
#include "sources/cpu/method_names.h"
#include "sources/cpu/tracker_events.h"
#include "sources/host.h"
#include "sources/resolve.h"
#include "tables/bci_classes.h"
#include "tables/traces.h"
#include "util/cmap.h"

/* The Tracker's counts array (Tracker.java, "timing=gprof"): a head, the stack, then the
 * node slots (key, calls, shape). Its sizes are checked against the array's length. */
#define C_HEAD      6
#define C_MAX_NODES (1 << 20)
#define C_MAX_STACK (1 << 20)
#define CODE_BITS   40

/* What the agent has read of one thread's table, in its current generation. */
struct counted {
    struct cmap_node node;
    int64_t tid;
    int64_t generation;
    uint32_t slots;
    int depth;             /* of the traces below */
    uint32_t serial;       /* and their thread serial */
    uint64_t *seen;        /* calls already added, per node slot */
    struct trace **traces; /* the node's trace, once named */
};

#define OWN_METHODS 128

struct call_counts {
    struct cmap threads;
    pthread_mutex_t lock;       /* the Tracker calls one at a time (under its lock): cheap */
    jmethodID own[OWN_METHODS]; /* the Tracker's methods, set once before it is engaged */
    _Atomic int nown;
    jmethodID entries[2]; /* of them, the hooks called at a method's entry */
    /* Instrumented code may have run while the Tracker was not counting (attached, or a
     * session ended): a thread's first count may find such calls open on its stack. */
    _Atomic bool uncounted;
    struct cmap methods;                 /* struct known_method: the sampled methods */
    _Atomic uint64_t apart[APART_KINDS]; /* samples left out of CPU TIME, since the last dump */
    _Atomic uint64_t apart_ns;           /* and their time */
};

/* Whether a sampled method's calls are counted: of an instrumented class. A method found
 * not counted is asked again once more classes were numbered (its class may have been
 * retransformed since, after an attach). Entries stay: one per method sampled. */
struct known_method {
    struct cmap_node node;
    jmethodID id;
    _Atomic bool counted;
    _Atomic uint32_t classes; /* classes numbered when it was last asked */
};

bool call_counts_wanted(const struct options *o) { return o->cpu == CPU_TIMES && o->timing == TIMING_GPROF; }

struct call_counts *call_counts_new(void)
{
    struct call_counts *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    cmap_init(&c->threads);
    cmap_init(&c->methods);
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static bool counted_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct counted *)n)->tid == *(const int64_t *)key;
}

static struct cmap_node *counted_make(const void *key, void *ctx)
{
    struct counted *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->tid = *(const int64_t *)key;
    t->generation = -1;
    return &t->node;
}

static void counted_free(struct counted *t)
{
    free(t->seen);
    free(t->traces);
    free(t);
}

/* A new generation (or the first): nothing of it read yet. */
static bool counted_reset(struct counted *t, int64_t generation, uint32_t slots)
{
    free(t->seen);
    free(t->traces);
    t->seen = calloc(slots, sizeof *t->seen);
    t->traces = calloc(slots, sizeof *t->traces);
    t->generation = generation;
    t->slots = t->seen && t->traces ? slots : 0;
    return t->slots != 0;
}

/* The trace node i stands for: its method, then the nodes under it, `depth` frames at
 * most (so a table whatever its content is walked in bounded steps); NULL when a key
 * is not a node's or a method cannot be named. */
static struct trace *trace_of_node(struct host *h, JNIEnv *jni, const struct counted *t, const jlong *nodes, uint32_t i)
{
    struct frame *f[TRACKER_MAX_DEPTH];
    int n = 0;
    while (n < t->depth) {
        jlong key = nodes[3 * (size_t)i];
        if (key <= 0) return NULL;
        uint64_t k = (uint64_t)key - 1, code = k & (((uint64_t)1 << CODE_BITS) - 1), under = k >> CODE_BITS;
        uint32_t cnum, mnum;
        method_code_split(code, &cnum, &mnum);
        if (!(f[n++] = method_names_frame(h, jni, cnum, mnum, NULL))) return NULL;
        if (under == 0) break;
        if (under > t->slots) return NULL;
        i = (uint32_t)(under - 1);
    }
    return traces_of_frames(&h->t.traces, t->serial, f, n);
}

/* Adds the calls of each node past what was seen. */
static void add_counts(struct host *h, JNIEnv *jni, struct counted *t, const jlong *nodes)
{
    for (uint32_t i = 0; i < t->slots; i++) {
        jlong calls = nodes[3 * (size_t)i + 1];
        if (calls <= 0 || (uint64_t)calls <= t->seen[i]) continue;
        if (!t->traces[i]) t->traces[i] = trace_of_node(h, jni, t, nodes, i);
        if (!t->traces[i]) continue; /* named at the next reading, if it can be then */
        atomic_fetch_add_explicit(&t->traces[i]->calls, (uint64_t)calls - t->seen[i], memory_order_relaxed);
        t->seen[i] = (uint64_t)calls;
    }
}

/* Reads the array's head and its node slots; false when its sizes do not add up. */
static bool read_table(JNIEnv *jni, jlongArray a, jlong head[C_HEAD], jlong **nodes)
{
    jsize len = (*jni)->GetArrayLength(jni, a);
    if (len < C_HEAD) return false;
    (*jni)->GetLongArrayRegion(jni, a, 0, C_HEAD, head);
    jlong slots = head[3], stack = head[4];
    if (slots <= 0 || slots > C_MAX_NODES || (slots & (slots - 1)) || stack < 0 || stack > C_MAX_STACK ||
        len != C_HEAD + stack + 3 * slots || head[5] < 0)
        return false;
    if (!(*nodes = malloc((size_t)slots * 3 * sizeof **nodes))) return false;
    (*jni)->GetLongArrayRegion(jni, a, (jsize)(C_HEAD + stack), (jsize)(3 * slots), *nodes);
    return true;
}

static void take(struct host *h, JNIEnv *jni, struct call_counts *c, jlongArray a, int64_t tid, uint32_t serial,
                 bool last)
{
    uint64_t hash = hash_mix64((uint64_t)tid);
    jlong head[C_HEAD], *nodes = NULL;
    if (!read_table(jni, a, head, &nodes)) return;
    struct counted *t = (struct counted *)cmap_intern(&c->threads, hash, &tid, counted_eq, counted_make, NULL, NULL);
    int depth = host_depth(h) < TRACKER_MAX_DEPTH ? host_depth(h) : TRACKER_MAX_DEPTH;
    /* An older generation's array (read by a dump while its thread moved on) adds nothing. */
    if (t && head[5] >= t->generation) {
        bool fresh = head[5] > t->generation || (uint32_t)head[3] != t->slots;
        if (!fresh || counted_reset(t, head[5], (uint32_t)head[3])) {
            if (depth != t->depth || serial != t->serial) memset(t->traces, 0, t->slots * sizeof *t->traces);
            t->depth = depth > 0 ? depth : 1;
            t->serial = serial;
            add_counts(h, jni, t, nodes);
        }
    }
    free(nodes);
    if (t && last) {
        cmap_remove(&c->threads, hash, &tid, counted_eq);
        counted_free(t);
    }
}

void call_counts_take(struct host *h, JNIEnv *jni, jlongArray counts, int64_t tid, uint32_t thread_serial, bool last)
{
    struct call_counts *c = host_call_counts(h);
    if (!c || !counts) return;
    pthread_mutex_lock(&c->lock);
    take(h, jni, c, counts, tid, h->opt->thread ? thread_serial : 0, last);
    pthread_mutex_unlock(&c->lock);
}

void call_counts_sampled(struct host *h, struct trace *t, uint64_t weight)
{
    if (!t || !call_counts_wanted(h->opt)) return;
    uint64_t ns = weight * (uint64_t)host_interval(h) * 1000000u;
    atomic_fetch_add_explicit(&t->cost_ns, ns, memory_order_relaxed);
}

void call_counts_bind(struct host *h, JNIEnv *jni, jclass tracker)
{
    struct call_counts *c = host_call_counts(h);
    jint n = 0;
    jmethodID *ids = NULL;
    if (!c || (*h->jvmti)->GetClassMethods(h->jvmti, tracker, &n, &ids) != JVMTI_ERROR_NONE) return;
    int kept = n < OWN_METHODS ? n : OWN_METHODS;
    memcpy(c->own, ids, (size_t)kept * sizeof *ids);
    for (int i = 0, e = 0; i < kept && e < 2; i++) {
        char *name = NULL;
        if ((*h->jvmti)->GetMethodName(h->jvmti, ids[i], &name, NULL, NULL) != JVMTI_ERROR_NONE || !name) continue;
        if (strcmp(name, "CallSite") == 0 || strcmp(name, "LeafSite") == 0) c->entries[e++] = ids[i];
        (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)name);
    }
    atomic_store(&c->nown, kept);
    if (h->late_start) atomic_store(&c->uncounted, true);
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)ids);
}

/* Whether m is one of the Tracker's methods. */
static bool call_counts_ours(struct host *h, jmethodID m)
{
    struct call_counts *c = host_call_counts(h);
    for (int i = 0, n = c ? atomic_load(&c->nown) : 0; i < n; i++)
        if (c->own[i] == m) return true;
    return false;
}

/* The number of method m in class c: by its jmethodID, else (a frame still running the
 * code from before the class was instrumented, under an ID of its own) by its name and
 * descriptor; -1 when it is not one of c's. */
static int method_number(struct host *h, const struct bci_class *c, jmethodID m)
{
    for (unsigned i = 0; c->ids && i < c->nmethods; i++)
        if (atomic_load_explicit(&c->ids[i], memory_order_relaxed) == m) return (int)i;
    char *name = NULL, *desc = NULL;
    int found = -1;
    if ((*h->jvmti)->GetMethodName(h->jvmti, m, &name, &desc, NULL) == JVMTI_ERROR_NONE && name && desc)
        for (unsigned i = 0; found < 0 && c->method_names && c->method_descs && i < c->nmethods; i++)
            if (strcmp(c->method_names[i], name) == 0 && strcmp(c->method_descs[i], desc) == 0) found = (int)i;
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)name);
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)desc);
    return found;
}

/* The code of an instrumented method; false for one of a class not numbered. */
static bool code_of(struct host *h, JNIEnv *jni, jmethodID m, jlong *code)
{
    jclass cls = NULL;
    if (!m || (*h->jvmti)->GetMethodDeclaringClass(h->jvmti, m, &cls) != JVMTI_ERROR_NONE || !cls) return false;
    struct bci_class *c = bci_classes_of(host_bci_classes(h), h->jvmti, jni, cls);
    (*jni)->DeleteLocalRef(jni, cls);
    int i = c ? method_number(h, c, m) : -1;
    if (i >= 0) *code = (jlong)method_code(c->cnum, (uint32_t)i);
    return i >= 0;
}

/* Whether m is a hook called at a method's entry (the method is not open yet). */
static bool entry_hook(struct host *h, jmethodID m)
{
    struct call_counts *c = host_call_counts(h);
    return m && (m == c->entries[0] || m == c->entries[1]);
}

void call_counts_paused(struct host *h)
{
    if (host_call_counts(h)) atomic_store(&host_call_counts(h)->uncounted, true);
}

/* Whether a frame under a thread's first count can be an instrumented call open since
 * before it: one running code from before its class was instrumented, or, once code ran
 * uncounted, any. Counting from the start, a thread's other frames are of classes not
 * instrumented (else their entries would have counted first): asking each of them for
 * its class and method number made a virtual thread's start cost 12 us more. */
static bool maybe_open(struct host *h, jmethodID m)
{
    jboolean obsolete = JNI_FALSE;
    return atomic_load_explicit(&host_call_counts(h)->uncounted, memory_order_relaxed) ||
        ((*h->jvmti)->IsMethodObsolete(h->jvmti, m, &obsolete) == JVMTI_ERROR_NONE && obsolete);
}

#define OPEN_FIRST  64   /* frames looked at first, on the C stack: a new thread has few */
#define OPEN_FRAMES 4096 /* the most open calls taken (the innermost) */

/* The codes of the open calls among a thread's frames f[0..n), outermost first; how many. */
static jint open_codes(struct host *h, JNIEnv *jni, const jvmtiFrameInfo *f, jint n, jlong *codes)
{
    jint top = 0, k = 0;
    bool entering = false;
    for (; top < n && call_counts_ours(h, f[top].method); top++) entering = entry_hook(h, f[top].method);
    if (entering) top++;
    for (jint i = n - 1; i >= top; i--)
        if (maybe_open(h, f[i].method) && code_of(h, jni, f[i].method, &codes[k])) k++;
    return k;
}

jlongArray call_counts_open_calls(struct host *h, JNIEnv *jni)
{
    jvmtiFrameInfo few[OPEN_FIRST], *f = few;
    jlong few_codes[OPEN_FIRST], *codes = few_codes;
    jint n = 0, k = 0;
    jvmtiError e = (*h->jvmti)->GetStackTrace(h->jvmti, NULL, 0, OPEN_FIRST, f, &n);
    if (e == JVMTI_ERROR_NONE && n == OPEN_FIRST) { /* maybe deeper: again, all of it */
        f = malloc(OPEN_FRAMES * sizeof *f);
        codes = malloc(OPEN_FRAMES * sizeof *codes);
        e = f && codes ? (*h->jvmti)->GetStackTrace(h->jvmti, NULL, 0, OPEN_FRAMES, f, &n) : JVMTI_ERROR_OUT_OF_MEMORY;
    }
    if (e == JVMTI_ERROR_NONE) k = open_codes(h, jni, f, n, codes);
    jlongArray a = k > 0 ? (*jni)->NewLongArray(jni, k) : NULL;
    if (a) (*jni)->SetLongArrayRegion(jni, a, 0, k, codes);
    if (f != few) {
        free(f);
        free(codes);
    }
    return a;
}

/* The method a sampled frame names, as the counts name it: a frame still running the code
 * from before its class was instrumented (a late attach) has an ID of its own. */
static jmethodID call_counts_current(struct host *h, JNIEnv *jni, jmethodID m)
{
    jboolean obsolete = JNI_FALSE;
    jlong code = 0;
    if (!m || (*h->jvmti)->IsMethodObsolete(h->jvmti, m, &obsolete) != JVMTI_ERROR_NONE || !obsolete ||
        !code_of(h, jni, m, &code))
        return m;
    uint32_t cnum, i;
    method_code_split((uint64_t)code, &cnum, &i);
    struct bci_class *c = bci_classes_get(host_bci_classes(h), cnum);
    jmethodID now = c && c->ids && i < c->nmethods ? atomic_load_explicit(&c->ids[i], memory_order_relaxed) : NULL;
    return now ? now : m;
}

static bool known_eq(const struct cmap_node *n, const void *key)
{
    return ((const struct known_method *)n)->id == *(const jmethodID *)key;
}

static struct cmap_node *known_make(const void *key, void *ctx)
{
    struct known_method *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->id = *(const jmethodID *)key;
    return &k->node;
}

/* Whether the calls of sampled method m are counted (see struct known_method). */
static bool counted_method(struct host *h, JNIEnv *jni, jmethodID m)
{
    struct call_counts *c = host_call_counts(h);
    if (!host_bci_classes(h)) return true;
    uint32_t classes = registry_count(&host_bci_classes(h)->all);
    uint64_t hash = hash_mix64((uint64_t)(uintptr_t)m);
    struct known_method *k = (struct known_method *)cmap_find(&c->methods, hash, &m, known_eq);
    if (k && (atomic_load(&k->counted) || atomic_load(&k->classes) == classes)) return atomic_load(&k->counted);
    jlong code;
    bool counted = code_of(h, jni, m, &code);
    if (!k) k = (struct known_method *)cmap_intern(&c->methods, hash, &m, known_eq, known_make, NULL, NULL);
    if (k) {
        atomic_store(&k->classes, classes);
        atomic_store(&k->counted, counted);
    }
    return counted;
}

void call_counts_set_apart(struct host *h, enum call_counts_apart why, uint64_t weight)
{
    struct call_counts *c = host_call_counts(h);
    if (!c) return;
    atomic_fetch_add_explicit(&c->apart[why], weight, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->apart_ns, weight * (uint64_t)host_interval(h) * 1000000u, memory_order_relaxed);
}

void call_counts_take_apart(struct host *h, uint64_t n[APART_KINDS], uint64_t *ns)
{
    struct call_counts *c = host_call_counts(h);
    for (int i = 0; i < APART_KINDS; i++) n[i] = c ? atomic_exchange(&c->apart[i], 0) : 0;
    *ns = c ? atomic_exchange(&c->apart_ns, 0) : 0;
}

/* How far down a sample the Tracker's frames are looked for: its hooks call a few JDK
 * methods (Thread.getId, then threadId on a newer JDK), and rarely more (a class loaded
 * for its first array); they are never under the program's frames. */
#define OWN_WITHIN 16

int call_counts_frames(struct host *h, JNIEnv *jni, jvmtiFrameInfo *f, int n, int depth, jmethodID no_id)
{
    for (int i = 0; i < n && i < OWN_WITHIN; i++)
        if (f[i].method && call_counts_ours(h, f[i].method)) return 0;
    int kept = 0, methods = 0;
    for (int i = 0; i < n && kept < depth; i++) {
        if (f[i].location == -1) continue; /* native: no count of its own */
        if (f[i].method && !counted_method(h, jni, f[i].method)) continue;
        methods += f[i].method != NULL;
        f[kept++] = (jvmtiFrameInfo){f[i].method ? call_counts_current(h, jni, f[i].method) : no_id, -1};
    }
    return n > 0 && methods == 0 ? -1 : kept;
}
