/* SPDX-License-Identifier: Apache-2.0 */
/* cf_instrument: which hooks a class gets, method by method, and the result it reports. */
#include <stdlib.h>
#include <string.h>

#include "classfile/cf_internal.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void cf_result_free(cf_result *res)
{
    if (!res) return;
    free(res->data);
    free(res->class_name);
    if (res->methods) {
        for (unsigned i = 0; i < res->method_count; i++) {
            free(res->methods[i].name);
            free(res->methods[i].desc);
        }
        free(res->methods);
    }
    if (res->sites) {
        for (unsigned i = 0; i < res->site_count; i++) free((char *)res->sites[i].type);
        free(res->sites);
    }
    memset(res, 0, sizeof(*res));
}

/* The class name and every method's name, descriptor and access, copied for the caller. */
static int list_methods(cf_result *res, const cf_class *c)
{
    res->class_name = xstrdup(c->name);
    res->methods = calloc(c->nmethods ? c->nmethods : 1, sizeof(cf_method_info));
    if (!res->class_name || !res->methods) return CF_ERR_NOMEM;
    res->method_count = c->nmethods;
    for (unsigned i = 0; i < c->nmethods; i++) {
        res->methods[i].name = xstrdup(c->methods[i].sname);
        res->methods[i].desc = xstrdup(c->methods[i].sdesc);
        res->methods[i].access = c->methods[i].access;
        if (!res->methods[i].name || !res->methods[i].desc) return CF_ERR_NOMEM;
    }
    return CF_OK;
}

/* The injections the spec configures for class c (CF_INJ_*). */
static unsigned hooks_available(const cf_inject_spec *spec, const cf_class *c)
{
    unsigned avail = 0;
    if (spec->entry_name && spec->entry_desc) avail |= CF_INJ_ENTRY;
    if (spec->return_name && spec->return_desc) avail |= CF_INJ_RETURN;
    if (spec->objinit_name && spec->objinit_desc && strcmp(c->name, "java/lang/Object") == 0) avail |= CF_INJ_OBJINIT;
    if (spec->newarray_name && spec->newarray_desc) avail |= CF_INJ_NEWARRAY;
    /* with the natives' hooks, a copy Object.clone surely made takes theirs */
    if (spec->vclone_name && (spec->clone_name || (spec->allocinst_name && spec->site_fn))) avail |= CF_INJ_CLONE;
    if (spec->exception_exit && (avail & CF_INJ_RETURN)) avail |= CF_INJ_EXC_EXIT;
    if (spec->site_fn && (spec->newsite_name || spec->arraysite_name || spec->multisite_name)) avail |= CF_INJ_SITES;
    if (spec->allocinst_name && spec->site_fn) avail |= CF_INJ_ALLOCINST;
    if (spec->definer_name) avail |= CF_INJ_DEFINER;
    return avail;
}

static int cnum_needs_int(int32_t cn) { return cn < -32768 || cn > 32767; } /* past sipush */

/* Adds the Methodref of hook name with descriptor desc into *slot; 0 or a CF_ERR_*. */
static int add_hook(cf_class *c, const char *t, const char *name, const char *desc, uint32_t *slot)
{
    if (!name || (*slot = cp_find_or_add_methodref(c, t, name, desc))) return CF_OK;
    return c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
}

/* The allocation-site hooks and those after the natives that make objects (allocinst,
 * madeall), as the spec names them. */
static int add_site_hooks(cf_class *c, const cf_inject_spec *spec, unsigned avail, uint32_t hooks[CF_HOOKS])
{
    const char *t = spec->tracker_class;
    int rc = CF_OK;
    if (avail & CF_INJ_SITES) {
        rc = add_hook(c, t, spec->newsite_name, "(I)V", &hooks[HOOK_NEWSITE]);
        if (rc == CF_OK) rc = add_hook(c, t, spec->arraysite_name, "(III)V", &hooks[HOOK_ARRAYSITE]);
        if (rc == CF_OK) rc = add_hook(c, t, spec->multisite_name, "(Ljava/lang/Object;I)V", &hooks[HOOK_MULTISITE]);
    }
    if (rc == CF_OK && (avail & CF_INJ_ALLOCINST))
        rc = add_hook(c, t, spec->allocinst_name, "(Ljava/lang/Object;I)V", &hooks[HOOK_ALLOCINST]);
    if (rc == CF_OK && (avail & CF_INJ_ALLOCINST))
        rc = add_hook(c, t, spec->madeall_name ? spec->madeall_name : spec->allocinst_name, "(Ljava/lang/Object;I)V",
                      &hooks[HOOK_MADEALL]);
    if (rc == CF_OK && (avail & CF_INJ_DEFINER))
        rc = add_hook(c, t, spec->definer_name, "([BLjava/lang/Object;)[B", &hooks[HOOK_DEFINER]);
    return rc;
}

/* Adds the Methodrefs of the available hooks, and cnum's Integer when it needs one. */
static int add_hooks(cf_class *c, const cf_inject_spec *spec, unsigned avail, uint32_t hooks[CF_HOOKS])
{
    const char *t = spec->tracker_class, *obj = "(Ljava/lang/Object;)V";
    if (avail & CF_INJ_ENTRY) hooks[HOOK_ENTRY] = cp_find_or_add_methodref(c, t, spec->entry_name, spec->entry_desc);
    if (avail & CF_INJ_RETURN)
        hooks[HOOK_RETURN] = cp_find_or_add_methodref(c, t, spec->return_name, spec->return_desc);
    if ((avail & CF_INJ_ENTRY) && spec->leaf_name &&
        !(hooks[HOOK_LEAF] = cp_find_or_add_methodref(c, t, spec->leaf_name, "(II)V")))
        return c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
    if (avail & CF_INJ_OBJINIT) {
        hooks[HOOK_OBJINIT] = cp_find_or_add_methodref(c, t, spec->objinit_name, spec->objinit_desc);
        if (!strcmp(spec->objinit_desc, CF_OBJINIT_WITH_CLASS) &&
            !(hooks[HOOK_GETCLASS] =
                  cp_find_or_add_methodref(c, "java/lang/Object", "getClass", "()Ljava/lang/Class;")))
            return c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
    }
    if (avail & CF_INJ_NEWARRAY)
        hooks[HOOK_NEWARRAY] = cp_find_or_add_methodref(c, t, spec->newarray_name, spec->newarray_desc);
    if (avail & CF_INJ_CLONE) {
        if (spec->clone_name) hooks[HOOK_CLONE] = cp_find_or_add_methodref(c, t, spec->clone_name, obj);
        hooks[HOOK_VCLONE] = cp_find_or_add_methodref(c, t, spec->vclone_name, obj);
    }
    int rc = add_site_hooks(c, spec, avail, hooks);
    if (rc != CF_OK) return rc;
    int32_t cn = (int32_t)spec->cnum;
    if (cnum_needs_int(cn)) hooks[HOOK_CNUM_INT] = cp_find_or_add_int(c, cn);
    if (((avail & CF_INJ_ENTRY) && !hooks[HOOK_ENTRY]) || ((avail & CF_INJ_RETURN) && !hooks[HOOK_RETURN]) ||
        ((avail & CF_INJ_OBJINIT) && !hooks[HOOK_OBJINIT]) || ((avail & CF_INJ_NEWARRAY) && !hooks[HOOK_NEWARRAY]) ||
        ((avail & CF_INJ_CLONE) && ((spec->clone_name && !hooks[HOOK_CLONE]) || !hooks[HOOK_VCLONE])) ||
        (cnum_needs_int(cn) && !hooks[HOOK_CNUM_INT]))
        return c->ar.failed ? CF_ERR_NOMEM : CF_ERR_LIMIT;
    return CF_OK;
}

/* The injections method i gets: avail as narrowed by the filter. */
static unsigned method_mask(const cf_class *c, unsigned i, const cf_inject_spec *spec, unsigned avail)
{
    const cf_method *m = &c->methods[i];
    /* An empty finalize() must stay empty: HotSpot registers a finalizer for every instance
     * of a class whose finalize does something (Object.finalize too). */
    int empty_finalize =
        strcmp(m->sname, "finalize") == 0 && strcmp(m->sdesc, "()V") == 0 && cf_method_code_length(c, i) == 1;
    if (strcmp(c->name, spec->tracker_class) == 0 || empty_finalize) return 0;
    if (spec->filter) avail &= spec->filter(spec->filter_ctx, c->name, m->sname, m->sdesc, m->access, i);
    return avail;
}

static void count_status(cf_result *res, unsigned st)
{
    switch (st) {
    case CF_M_INSTRUMENTED: res->instrumented++; break;
    case CF_M_NO_CODE: res->no_code++; break;
    case CF_M_FILTERED: res->filtered++; break;
    case CF_M_NOTHING: res->nothing++; break;
    case CF_M_TOO_BIG: res->too_big++; break;
    default: res->unrewritable++; break;
    }
}

/* Rewrites every method that gets a hook; the hooks join the pool with the first of them
 * (the site hooks only when the filter allows them somewhere, so that a spec naming them
 * changes nothing where they are not used). Returns CF_OK when some method changed,
 * CF_UNCHANGED, or an error. */
static int instrument_methods(cf_class *c, const cf_inject_spec *spec, cf_result *res)
{
    unsigned avail = hooks_available(spec, c), used = 0;
    unsigned *masks = cf_arena_array(&c->ar, c->nmethods ? c->nmethods : 1, sizeof(unsigned));
    if (!masks) return CF_ERR_NOMEM;
    for (unsigned i = 0; i < c->nmethods; i++)
        if (c->methods[i].code >= 0) used |= masks[i] = method_mask(c, i, spec, avail);
    avail &= ~(unsigned)(CF_INJ_SITES | CF_INJ_ALLOCINST | CF_INJ_DEFINER) | used;
    uint32_t hooks[CF_HOOKS] = {0};
    int have_hooks = 0, changed = 0;
    for (unsigned i = 0; i < c->nmethods; i++) {
        unsigned st, mask = masks[i];
        if (c->methods[i].code < 0)
            st = CF_M_NO_CODE;
        else if (!mask)
            st = CF_M_FILTERED;
        else {
            int rc;
            if (!have_hooks && (rc = add_hooks(c, spec, avail, hooks)) != CF_OK) return rc;
            have_hooks = 1;
            if ((rc = cf_rewrite_method(c, i, mask, spec, hooks, res)) < 0) return rc;
            st = (unsigned)rc;
            if (st == CF_M_INSTRUMENTED) changed = 1;
        }
        res->methods[i].status = st;
        count_status(res, st);
    }
    return changed ? CF_OK : CF_UNCHANGED;
}

int cf_instrument(const uint8_t *buf, size_t len, const cf_inject_spec *spec, cf_result *res)
{
    if (!res) return CF_ERR_ARG;
    memset(res, 0, sizeof(*res));
    if (!buf || !spec || !spec->tracker_class) return CF_ERR_ARG;
    cf_class *c = NULL;
    int rc = cf_parse(buf, len, 0, &c);
    if (rc != CF_OK) return rc;
    rc = list_methods(res, c);
    if (rc == CF_OK) rc = instrument_methods(c, spec, res);
    if (rc == CF_OK) rc = cf_write(c, &res->data, &res->len);
    if (rc < 0) {
        /* keep the names for diagnostics, drop everything else */
        char *name = res->class_name;
        res->class_name = NULL;
        cf_result_free(res);
        res->class_name = name;
    }
    cf_free(c);
    return rc;
}
