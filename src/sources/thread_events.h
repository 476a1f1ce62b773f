/*
 * Threads: every Java thread (but the agent's own) is registered in the thread table
 * when it starts, or at VM init for those already running, and its THREAD START and
 * THREAD END records are handed over as they happen. See thread_events_source.
 */
#ifndef HPROF_THREAD_EVENTS_H
#define HPROF_THREAD_EVENTS_H

#include "sources/source.h"

#endif
