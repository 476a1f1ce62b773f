/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a later session may not change in a running JVM (agent/session.h): JVMTI sets up
 * some parts once, at the first load (the instrumentation, the socket, the timeline, the
 * trace keys), and cannot undo or redo them in the live phase. One rule a row, each with
 * the message a refused `hprof start` gives (the tool exits with 10); users and tests
 * read these messages, so they change only on purpose.
 */
#ifndef HPROF_SWITCH_RULES_H
#define HPROF_SWITCH_RULES_H

struct host;
struct options;

/* Why a session with options o cannot follow in this agent, whose first load had
 * h->opt; NULL when it can. */
const char *switch_refused(struct host *h, const struct options *o);

#endif
