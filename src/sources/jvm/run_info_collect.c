/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/jvm/run_info_collect.h"

#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sources/host.h"
#include "sources/hotspot/vm_flags.h"
#include "util/clock.h"
#include "util/perfdata.h"

static void add_property(struct host *h, struct run_info *r, const char *name, const char *property)
{
    char *v = NULL;
    if ((*h->jvmti)->GetSystemProperty(h->jvmti, property, &v) != JVMTI_ERROR_NONE) v = NULL;
    run_info_add(r, name, v);
    if (v) (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)v);
}

/* The JDK's os.arch for the machine uname(2) names (it says amd64 for x86_64). */
static const char *java_arch(const char *machine)
{
    if (strcmp(machine, "x86_64") == 0) return "amd64";
    if (strcmp(machine, "i686") == 0 || strcmp(machine, "i586") == 0) return "x86";
    return machine;
}

static void add_flag_size(struct host *h, struct run_info *r, const char *name, const char *flag)
{
    unsigned long long v;
    char text[32] = "";
    if (vm_flags_get_u64(h->jvmti, flag, &v)) snprintf(text, sizeof text, "%llu", v);
    run_info_add(r, name, text);
}

static const char *collector(struct host *h)
{
    static const char *const GCS[][2] = {
        {"UseSerialGC", "Serial"}, {"UseParallelGC", "Parallel"},     {"UseG1GC", "G1"},
        {"UseZGC", "Z"},           {"UseShenandoahGC", "Shenandoah"}, {"UseEpsilonGC", "Epsilon"},
    };
    for (size_t i = 0; i < sizeof GCS / sizeof GCS[0]; i++) {
        bool on = false;
        if (vm_flags_get_bool(h->jvmti, GCS[i][0], &on) && on) return GCS[i][1];
    }
    return "";
}

/* When the JVM finished starting, as its management interface says it. */
static unsigned long long start_ms(void)
{
    struct perfdata p;
    unsigned long long ms = clock_wall_us() / 1000u;
    if (perfdata_map_self(&p)) {
        const volatile int64_t *v = perfdata_long(&p, "sun.rt.vmInitDoneTime");
        if (v && *v > 0) ms = (unsigned long long)*v;
        perfdata_unmap(&p);
    }
    return ms;
}

void run_info_collect(struct host *h, const struct options *o, struct run_info *r)
{
    memset(r, 0, sizeof *r);
    struct utsname u;
    bool have_u = uname(&u) == 0;
    char text[256];
    add_property(h, r, "command", "sun.java.command");
    add_property(h, r, "java.class.path", "java.class.path");
    run_info_add(r, "os.name", have_u ? u.sysname : NULL);
    run_info_add(r, "os.arch", have_u ? java_arch(u.machine) : NULL);
    run_info_add(r, "os.version", have_u ? u.release : NULL);
    add_flag_size(h, r, "heap.initial", "InitialHeapSize");
    add_flag_size(h, r, "heap.max", "MaxHeapSize");
    add_property(h, r, "java.vm.name", "java.vm.name");
    add_property(h, r, "java.vm.version", "java.vm.version");
    run_info_add(r, "gc", collector(h));
    snprintf(text, sizeof text, "%ld", (long)getpid());
    run_info_add(r, "pid", text);
    if (gethostname(text, sizeof text) != 0) text[0] = 0;
    text[sizeof text - 1] = 0;
    run_info_add(r, "host", text);
    snprintf(text, sizeof text, "%llu", start_ms());
    run_info_add(r, "start", text);
    run_info_add(r, "options", o->text);
    snprintf(text, sizeof text, "%d", o->depth);
    run_info_add(r, "depth", text);
}
