#include "sources/socket_commands.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/dump.h"
#include "sources/cpu_sampler.h"
#include "sources/socket_protocol.h"
#include "util/log.h"

struct listener {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int fd;                 /* our own duplicate of the output socket */
    _Atomic bool stop;
    bool running;           /* inside its loop (guarded by lock) */
    pthread_t self;
    int bad;                /* bad commands dropped */
    bool said_missing;      /* "this build has no ..." said once */
};

#define POLL_MS 100

/* heap=sites' switch for allocation counting (sources/alloc_tracker.h); weak, so that
 * a build without heap=sites links, and CONTROL 1/2 then only set the flag. */
void alloc_tracker_enable(struct agent *a, JNIEnv *jni, bool on) __attribute__((weak, visibility("hidden")));

static void alloc_traces(struct agent *a, JNIEnv *jni, bool on)
{
    atomic_store(&a->alloc_traces_off, !on);
    if (alloc_tracker_enable) alloc_tracker_enable(a, jni, on);
}

static void bad_input(struct listener *l, const char *why, const char *then)
{
    if (l->bad++ == 0)
        log_warning("bad command on the net= socket: %s; %s (later bad commands are dropped without a word)",
                    why, then);
}

static void missing(struct listener *l, const char *what)
{
    if (l->said_missing) return;
    l->said_missing = true;
    log_warning("the net= command %s needs heap=sites; nothing is written for it", what);
}

/* CPU sampling on or off for one thread (by its object ID) or all (0). */
static void cpu_sampling(struct agent *a, JNIEnv *jni, struct listener *l, uint32_t thread_id, bool on)
{
    if (thread_id != 0) {
        if (!threads_set_sampled_by_id(&a->threads, thread_id, on)) {
            char why[96];
            snprintf(why, sizeof why, "CONTROL names thread object 0x%x, which is not a live thread", thread_id);
            bad_input(l, why, "dropped");
            return;
        }
        if (on) cpu_sampler_enable(a, true);
        return;
    }
    threads_set_sampled(&a->threads, jni, NULL, on);
    if (on && !a->sampler) cpu_sampler_start(a, jni);
    cpu_sampler_enable(a, on);
}

static void exit_vm(struct agent *a, JNIEnv *jni)
{
    if (a->opt.verbose) log_plain("HPROF: received exit event, exiting ...");
    output_lock(&a->out);
    output_flush(&a->out);
    output_unlock(&a->out);
    /* Through System.exit, so that shutdown hooks run and VM death writes the final dump. */
    jclass sys = (*jni)->FindClass(jni, "java/lang/System");
    jmethodID m = sys ? (*jni)->GetStaticMethodID(jni, sys, "exit", "(I)V") : NULL;
    if (m) (*jni)->CallStaticVoidMethod(jni, sys, m, (jint)0);
    (*jni)->ExceptionClear(jni);
    log_error("System.exit failed; exiting without the final dump");
    exit(0);
}

/* Does the command write a section? Those wait for a dump under way (and a dump
 * asked for meanwhile by SIGQUIT is dropped, as during any other dump). */
static bool writes_section(uint8_t tag)
{
    return tag == CMD_DUMP_HEAP || tag == CMD_ALLOC_SITES || tag == CMD_HEAP_SUMMARY || tag == CMD_DUMP_TRACES ||
           tag == CMD_CPU_SAMPLES;
}

static void run(struct agent *a, JNIEnv *jni, struct listener *l, const struct command *c)
{
    bool locked = writes_section(c->tag);
    if (locked) pthread_mutex_lock(&a->dump_lock);
    switch (c->tag) {
    case CMD_FORCE_GC:
        (*a->jvmti)->ForceGarbageCollection(a->jvmti);
        break;
    case CMD_DUMP_HEAP:
        dump_heap_section(a, jni);
        break;
    case CMD_ALLOC_SITES:
        if (c->flags & 0x4) (*a->jvmti)->ForceGarbageCollection(a->jvmti);
        if (!dump_sites(a, jni, c->flags, c->cutoff)) missing(l, "ALLOC SITES");
        break;
    case CMD_HEAP_SUMMARY:
        if (!dump_heap_summary(a, jni)) missing(l, "HEAP SUMMARY");
        break;
    case CMD_EXIT:
        exit_vm(a, jni);
        break;
    case CMD_DUMP_TRACES:
        output_lock(&a->out);
        dump_unwritten_traces(a);
        output_unlock(&a->out);
        break;
    case CMD_CPU_SAMPLES:
        dump_cpu_samples(a, c->cutoff);
        break;
    case CMD_CONTROL:
        switch (c->control) {
        case CTL_ALLOC_ON: alloc_traces(a, jni, true); break;
        case CTL_ALLOC_OFF: alloc_traces(a, jni, false); break;
        case CTL_CPU_ON: cpu_sampling(a, jni, l, c->thread_id, true); break;
        case CTL_CPU_OFF: cpu_sampling(a, jni, l, c->thread_id, false); break;
        case CTL_CPU_CLEAR: traces_clear_cpu_samples(&a->traces); break;
        case CTL_DEPTH: __atomic_store_n(&a->opt.depth, (int)c->depth, __ATOMIC_RELAXED); break;
        }
        break;
    }
    /* Each answer goes out at once. */
    output_lock(&a->out);
    output_flush(&a->out);
    output_unlock(&a->out);
    if (locked) pthread_mutex_unlock(&a->dump_lock);
}

/* Reads and runs commands until told to stop, EOF, or the stream goes bad. */
static void serve(struct agent *a, JNIEnv *jni, struct listener *l)
{
    uint8_t buf[CMD_HEADER_SIZE + CMD_MAX_BODY];
    size_t have = 0;
    while (!atomic_load(&l->stop)) {
        struct pollfd p = {l->fd, POLLIN, 0};
        int r = poll(&p, 1, POLL_MS);
        if (r < 0 && errno != EINTR) return;
        if (r <= 0) continue;
        ssize_t n = recv(l->fd, buf + have, sizeof buf - have, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            if (have > 0 && n == 0)
                bad_input(l, "the peer closed the connection in the middle of a command", "it is dropped");
            return;   /* closed or broken: the output reports its own errors */
        }
        have += (size_t)n;
        for (;;) {
            struct command c;
            size_t used = 0;
            char why[160];
            enum cmd_status st = cmd_next(buf, have, &c, &used, why, sizeof why);
            if (st == CMD_NEED_MORE) break;
            if (st == CMD_DESYNC) {
                bad_input(l, why, "no more commands are read from this connection; the profile is still sent");
                return;
            }
            if (atomic_load(&l->stop)) return;
            if (st == CMD_READY && c.tag == CMD_EOF) return;
            if (st == CMD_READY) run(a, jni, l, &c);
            else bad_input(l, why, "dropped");
            memmove(buf, buf + used, have - used);
            have -= used;
        }
    }
}

static void JNICALL listener_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct agent *a = arg;
    struct listener *l = a->listener;
    l->self = pthread_self();
    serve(a, jni, l);
    pthread_mutex_lock(&l->lock);
    close(l->fd);
    l->fd = -1;
    l->running = false;
    pthread_cond_broadcast(&l->done);
    pthread_mutex_unlock(&l->lock);
}

int socket_commands_start(struct agent *a, JNIEnv *jni)
{
    int out_fd = output_socket_fd(&a->out);
    if (out_fd < 0) return -1;
    struct listener *l = calloc(1, sizeof *l);
    if (!l) return -1;
    pthread_mutex_init(&l->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->done, &ca);
    pthread_condattr_destroy(&ca);
    /* A descriptor of our own: closing the output at VM death cannot pull it from
     * under a read, nor hand its number to another file meanwhile. */
    l->fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 0);
    if (l->fd < 0) {
        free(l);
        return -1;
    }
    l->running = true;
    a->listener = l;
    if (!agent_start_thread(a, jni, "HPROF listener thread", listener_main, a)) {
        l->running = false;
        close(l->fd);
        log_error("cannot start the listener thread; commands on the net= socket will not be read");
        return -1;
    }
    return 0;
}

void socket_commands_stop(struct agent *a)
{
    struct listener *l = a->listener;
    if (!l) return;
    atomic_store(&l->stop, true);
    pthread_mutex_lock(&l->lock);
    /* EXIT THE VM runs VM death on the listener itself: nothing to wait for then. */
    if (l->running && !pthread_equal(l->self, pthread_self())) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 3;
        while (l->running && pthread_cond_timedwait(&l->done, &l->lock, &until) != ETIMEDOUT) {}
    }
    pthread_mutex_unlock(&l->lock);
}
