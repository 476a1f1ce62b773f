/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/bci/bci_spec.h"

#include <string.h>

#include "sources/alloc/alloc_tracker.h"

/* Methods the Tracker itself calls must stay plain, or it would call itself: the current
 * thread and its id, whether a thread is alive (Thread.isAlive calls alive(), which
 * virtual threads override), and the weak references to classes it keeps and reads
 * (callers=sampled's sites of what the VM makes, made under its lock). */
unsigned bci_spec_filter(void *ctx, const char *class_name, const char *name, const char *desc, unsigned access,
                         unsigned mnum)
{
    if (strcmp(class_name, "java/lang/Thread") == 0 &&
        (strcmp(name, "currentThread") == 0 || strcmp(name, "getId") == 0 || strcmp(name, "threadId") == 0 ||
         strcmp(name, "currentCarrierThread") == 0 || strcmp(name, "isAlive") == 0))
        return 0;
    if ((strcmp(class_name, "java/lang/ref/Reference") == 0 &&
         (strcmp(name, "<init>") == 0 || strcmp(name, "get") == 0 || strcmp(name, "get0") == 0)) ||
        (strcmp(class_name, "java/lang/ref/WeakReference") == 0 && strcmp(name, "<init>") == 0))
        return 0;
    if (strcmp(name, "alive") == 0 && strcmp(desc, "()Z") == 0 &&
        (strcmp(class_name, "java/lang/Thread") == 0 || strcmp(class_name, "java/lang/VirtualThread") == 0 ||
         strcmp(class_name, "java/lang/BaseVirtualThread") == 0 ||
         strcmp(class_name, "java/lang/ThreadBuilders$BoundVirtualThread") == 0))
        return 0;
    return CF_INJ_ALL;
}

/* callers=sampled: numbers for the instrumenter's allocation sites. */
static long number_sites(void *ctx, const cf_site_info *site)
{
    return alloc_tracker_number_sites(ctx, site->kind == CF_SITE_MULTI ? site->dims : 1);
}

/*
 * callers=sampled: sites counted in Java, and what the VM makes (after the natives that
 * make it, clones): the Tracker's own code, which counts nothing until the agent turns
 * counting on once its natives are bound, so classes loaded before VM init get every
 * hook too.
 */
void bci_spec_sites(struct host *h, cf_inject_spec *spec)
{
    spec->newsite_name = "newSite";
    spec->arraysite_name = "arraySite";
    spec->multisite_name = "multiSite";
    spec->site_fn = number_sites;
    spec->site_ctx = h;
    spec->allocinst_name = "allocInst";
    spec->madeall_name = "madeAll";
    spec->vclone_name = "clonedVirtual"; /* Object.clone's copies: allocInst */
}
