/* SPDX-License-Identifier: Apache-2.0 */
#include "analyze.h"
void an_report(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *out)
{
    (void)h, (void)d, (void)o, (void)out;
}
void an_report_diff(const struct an_heap *h0, const struct an_dom *d0, const struct an_heap *h1,
                    const struct an_dom *d1, const struct an_opts *o, FILE *out)
{
    (void)h0, (void)d0, (void)h1, (void)d1, (void)o, (void)out;
}
void an_html(const struct an_heap *h, const struct an_dom *d, const struct an_opts *o, FILE *out)
{
    (void)h, (void)d, (void)o, (void)out;
}
