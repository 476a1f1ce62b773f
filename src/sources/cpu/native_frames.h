/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpu=samples' native frames (native=y), on the agent's side of the signal handler:
 *   - the snapshot of the process's code the handler walks by (native_modules.h), built
 *     at start and again when libraries were loaded or unloaded (dl_iterate_phdr's
 *     counters, at each drain) or when the walks of threads that are not Java threads began to end on
 *     a stack or code the snapshot does not know (a thread or library newer than it);
 *     published to the handler through the sampler's native_publish;
 *   - each native pc of a sample as a frame: a made-up method per function, named by
 *     the library's symbols (native_symbolize.h), in a made-up class named after the
 *     library (libjvm.so.G1ParScanThreadState::trim_queue_partially), a native method
 *     whose source file is the library; names are looked up once per pc;
 *   - the frame that says why a native walk stopped short,
 *     [native_walk_stopped].<reason> (no_row, unreadable, ...).
 * The drain's alone (its lock held): never in a handler. The last snapshot is not freed
 * at VM death: the handler stays installed (signal_sampler.c's stop), so a handler may
 * still be reading it; the process is ending.
 */
#ifndef HPROF_NATIVE_FRAMES_H
#define HPROF_NATIVE_FRAMES_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct host;
struct signal_sampler;
struct sample_frame;
struct native_frames;

/* The tables, and the first snapshot published to s's handler (the map and each
 * library's ELF headers read here; unwind tables compiled when first needed). NULL when
 * out of memory. */
struct native_frames *native_frames_new(struct host *h, struct signal_sampler *s);
/* The unwind tables the handlers' walks asked for, compiled (native_modules.h: lazy
 * tables); then a new snapshot when libraries were loaded or unloaded since the last, when new_threads
 * (threads that are not Java threads, just given timers: their stacks are newer than the
 * snapshot's map), or when their walks began to end on the unknown (checked at most
 * every few hundred ms, by now_ms). Called at each drain. */
void native_frames_refresh(struct native_frames *nf, struct signal_sampler *s, uint64_t now_ms, bool new_threads);
/* A sample's native frames (the first native_frames_count), top first, into out (at
 * most max): each native pc or stop marker (signal_internal.h's FRAME_NATIVE_*) as its
 * frame. How many. */
int native_frames_convert(struct native_frames *nf, const struct sample_frame *in, int n, jvmtiFrameInfo *out, int max);
/* What reading the process's code cost (HPROF_STACK_STATS=1, at VM death, on stderr):
 * the first snapshot's CPU time, the tables built later and theirs. */
void native_frames_report(const struct native_frames *nf);
/* How many leading frames of a sample are native (pcs and stop markers). */
int native_frames_count(const struct sample_frame *in, int n);

#endif
