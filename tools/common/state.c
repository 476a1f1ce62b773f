/* SPDX-License-Identifier: Apache-2.0 */
/* A reader's state, made empty and freed. Calls heap.c, reader.c and table.c. */
#include "hd.h"

#include <stdlib.h>
#include <string.h>

void hd_state_init(hd_state *st, FILE *out)
{
    memset(st, 0, sizeof *st);
    st->out = out;
    st->spool_fd = -1;
    st->objs_sorted = 1;
}

void hd_state_free(hd_state *st)
{
    hd_map *maps[] = {&st->strings, &st->classes_by_serial, &st->classes_by_obj, &st->frames,
                      &st->traces,  &st->threads,           &st->thread_ends,    &st->root_threads};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) hd_map_free(maps[i]);
    for (int k = 0; k < K_NKINDS; k++) hd_map_free(&st->undef_idx[k]);
    buf_free(&st->pool);
    free(st->strv);
    free(st->clsv);
    free(st->frv);
    free(st->trv);
    free(st->trframes);
    free(st->thv);
    free(st->undv);
    buf_free(&st->line);
    hd_heap_free(st);
    hd_reader_free(&st->r);
}
