/* SPDX-License-Identifier: Apache-2.0 */
/* tables/alloc_sites.c: numbering, publishing, the traces' weights and the split. */
#include <stdlib.h>
#include <string.h>

#include "tables/alloc_sites.h"
#include "unit.h"

static void split(void)
{
    uint64_t w[3] = {3, 1, 0}, out[3];
    alloc_sites_split(1000000, w, 3, out);
    CHECK(out[0] == 750000 && out[1] == 250000 && out[2] == 0, "3:1:0 of 1000000 (%llu %llu %llu)",
          (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)out[2]);
    uint64_t t[3] = {1, 1, 1};
    alloc_sites_split(10, t, 3, out);
    CHECK(out[0] + out[1] + out[2] == 10 && out[0] == 4 && out[1] == 3 && out[2] == 3,
          "10 in thirds: the parts add up, the remainder to the first");
    uint64_t z[2] = {0, 0};
    alloc_sites_split(7, z, 2, out);
    CHECK(out[0] + out[1] == 7, "weights all 0: split evenly, nothing lost");
    uint64_t one[1] = {5};
    alloc_sites_split(123456789, one, 1, out);
    CHECK(out[0] == 123456789, "one trace: its site's exact count");
}

static void sites(void)
{
    struct alloc_sites *t = malloc(sizeof *t);
    alloc_sites_init(t);
    CHECK(alloc_sites_number(t, 1) == 0 && alloc_sites_number(t, 3) == 1 && alloc_sites_number(t, 1) == 4,
          "numbers are dense; a multianewarray takes one per dimension");
    struct alloc_site s = {.number = 4, .kind = ASITE_NEW, .new_bci = 17, .signature = "Lp/C;"};
    CHECK(alloc_sites_add(t, &s) && alloc_sites_at(t, 4) && alloc_sites_at(t, 4)->new_bci == 17 &&
              !alloc_sites_at(t, 3) && !alloc_sites_at(t, 5000000),
          "a published site is found by its number, the others are not");
    struct alloc_site *p = alloc_sites_at(t, 4);
    struct trace *a = (struct trace *)&s, *b = (struct trace *)&t;
    CHECK(alloc_sites_sample(t, p, a, 1, 16) == 1 && alloc_sites_sample(t, p, a, 2, 32) == 1 &&
              alloc_sites_sample(t, p, b, 1, 16) == 2,
          "a second trace makes two");
    uint64_t objs = 0;
    int listed = 0;
    for (struct site_trace *x = atomic_load(&p->traces); x; x = x->next, listed++)
        if (x->trace == a) objs = atomic_load(&x->objs);
    CHECK(objs == 3 && listed == 2 && atomic_load(&p->samples) == 3,
          "a trace's weight adds up its samples' (%llu), each trace listed once (%d)", (unsigned long long)objs,
          listed);
    /* the same trace at another site is that site's own */
    struct alloc_site s2 = {.number = 0, .kind = ASITE_ARRAY, .signature = "[I"};
    CHECK(alloc_sites_add(t, &s2) && alloc_sites_sample(t, alloc_sites_at(t, 0), a, 5, 80) == 1 &&
              atomic_load(&alloc_sites_at(t, 0)->traces)->objs == 5 && atomic_load(&p->ntraces) == 2,
          "a trace is weighed per site");
    /* the sites of what the VM makes: one per class and call, numbered after the others */
    struct alloc_site *n1 = alloc_sites_made(t, (struct class_info *)a, "Lp/D;", NULL);
    CHECK(n1 && n1 == alloc_sites_made(t, (struct class_info *)a, "Lp/D;", NULL) && n1->number == 5 &&
              n1->kind == ASITE_NEW && n1->new_bci == ASITE_NO_BCI && strcmp(n1->signature, "Lp/D;") == 0 &&
              alloc_sites_at(t, 5) == n1 && atomic_load(&n1->cls) == (struct class_info *)a,
          "a made object's site without a call is made once per class, published under its number");
    struct alloc_site *n2 = alloc_sites_made(t, (struct class_info *)b, "Lp/E;", NULL);
    CHECK(n2 && n2 != n1 && n2->number == 6 && alloc_sites_count(t) == 7, "another class is another site");
    struct alloc_site call = {
        .number = 7, .cnum = 3, .mnum = 4, .bci = 10, .new_bci = 17, .kind = ASITE_CALL, .signature = ""};
    CHECK(alloc_sites_add(t, &call) && alloc_sites_number(t, 1) == 7, "a call site is numbered as the others");
    struct alloc_site *n3 = alloc_sites_made(t, (struct class_info *)a, "[J", alloc_sites_at(t, 7));
    CHECK(n3 && n3 != n1 && n3->number == 8 && n3->kind == ASITE_ARRAY && n3->cnum == 3 && n3->mnum == 4 &&
              n3->bci == 10 && n3->new_bci == 17 &&
              n3 == alloc_sites_made(t, (struct class_info *)a, "[J", alloc_sites_at(t, 7)),
          "a class made for a call is a site of its own, at the call's place; an array class's is an array site");
    CHECK(alloc_sites_group(t, NULL, (void *)a) == alloc_sites_group(t, NULL, (void *)a) &&
              alloc_sites_group_find(t, NULL, (void *)b) == NULL && alloc_sites_group_count(t) == 1 &&
              alloc_sites_group_by_id(t, 1) == alloc_sites_group(t, NULL, (void *)a),
          "live groups: one per frame and class, by id");
}

int main(void)
{
    split();
    sites();
    return UNIT_DONE();
}
