/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny unit-test harness: each CHECK prints "ok - name" or "not ok - name"; a check
   that cannot run here prints "ok - name # SKIP reason" (SKIP), counted apart by the
   runner, never as a pass. */
#ifndef HPROF_UNIT_H
#define HPROF_UNIT_H
#include <stdio.h>
#include <string.h>

static int unit_failures;

#define CHECK(cond, ...)                                        \
    do {                                                        \
        int pass_ = (cond) ? 1 : 0;                             \
        printf(pass_ ? "ok - " : "not ok - ");                  \
        printf(__VA_ARGS__);                                    \
        if (!pass_) {                                           \
            unit_failures++;                                    \
            printf("  [%s:%d: %s]", __FILE__, __LINE__, #cond); \
        }                                                       \
        printf("\n");                                           \
    } while (0)

#define CHECK_STR(got, want, ...)                                                                         \
    do {                                                                                                  \
        const char *g_ = (got), *w_ = (want);                                                             \
        int same_ = g_ && w_ && strcmp(g_, w_) == 0;                                                      \
        CHECK(same_, __VA_ARGS__);                                                                        \
        if (!same_) printf("#   got: \"%s\"\n#  want: \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
    } while (0)

/* SKIP(REASON, name...): the check named could not run, for REASON. */
#define SKIP(why, ...)                 \
    do {                               \
        printf("ok - ");               \
        printf(__VA_ARGS__);           \
        printf(" # SKIP %s\n", (why)); \
    } while (0)

#define UNIT_DONE() (unit_failures ? 1 : 0)
#endif
