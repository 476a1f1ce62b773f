/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor=y on java.util.concurrent: the waits JVMTI's monitor events do not see, because
 * j.u.c locks, conditions and queues park their threads (LockSupport) instead of blocking
 * on a monitor.
 *
 * Four java.base classes are rewritten (by a JVMTI environment of this source's own, whose
 * class-file hook sees every class but rewrites only these), and no other: LockSupport's
 * park, parkNanos and parkUntil get an entry hook with the park's blocker and an exit hook;
 * the slow acquire paths, AbstractQueuedSynchronizer.acquire(Node, ...), the same of
 * AbstractQueuedLongSynchronizer, StampedLock.acquireWrite and acquireRead (the same
 * names on JDK 17 and 25), an exit hook. They run only once a thread is about to wait
 * (the fast path of lock() never reaches them) and call the Tracker's natives.
 *
 * The rule, contention against wait:
 *   - contention (MONITOR TIME): a park whose blocker is a lock: an
 *     AbstractQueuedSynchronizer, AbstractQueuedLongSynchronizer, StampedLock or Lock
 *     (ReentrantLock, ReentrantReadWriteLock, Semaphore, ThreadPoolExecutor's workers),
 *     but CountDownLatch's, which is a wait;
 *   - wait (MONITOR WAIT TIME): every other park: Condition.await (the blocker is the
 *     ConditionObject), a queue's take, Future.get, CountDownLatch.await, Phaser ...; a park
 *     with no blocker is a wait of class "(none)".
 * The parks made inside one acquire are one contention (or one wait), timed from the
 * first park to the acquire's end; an acquire that never parked (it spun) is none.
 * Other parks are timed from their entry to their exit.
 *
 * The trace is taken at the first park: the top frames of java.util.concurrent are folded
 * into the outermost of them that is in java.util.concurrent.locks, so a trace starts at
 * ReentrantLock.lock, StampedLock.writeLock, ConditionObject.await, or
 * AbstractQueuedSynchronizer.acquireSharedInterruptibly under Semaphore.acquire; depth=
 * counts from there. The walk is AsyncGetCallTrace's (sources/hotspot/async_trace.h,
 * GetStackTrace where it cannot answer), of the few frames a fold usually needs first.
 * What each method is to the fold and the blockers' classes are cached, and a thread's
 * last wait (its place, object, class and row) is kept after it ends, so that a wait
 * costs the walk and a few lookups that take no lock of the JVM's: about 0.55 us over the
 * park's own 0.12 us, against 1.4 us with GetStackTrace and the tables' lookups
 * (bench/juc.sh's park workload).
 *
 * Per thread (virtual ones included, which may park on one carrier and resume on another)
 * the wait under way is kept by the thread's id, in a striped map, while it lasts; then
 * among its stripe's last four that ended, for the thread's next.
 */
#ifndef HPROF_JUC_WAITS_H
#define HPROF_JUC_WAITS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

struct host;
struct monitor_table;
struct monitor_snapshot;

/* Agent_OnLoad (or attach): the environment and its class-file hook; the rows go to the
 * two tables of monitor=y. -1 when the JVM cannot rewrite the classes. */
int juc_waits_init(struct host *h, struct monitor_table *contended, struct monitor_table *waits);
/* VM init: the natives bound, the four classes rewritten, the hooks on. */
void juc_waits_start(struct host *h, JNIEnv *jni);
/* The hooks on or off (a paused session: they return at once); off forgets the waits
 * under way. jni may be NULL: the current thread's is taken. */
void juc_waits_enable(struct host *h, JNIEnv *jni, bool on);
/* A thread ends: a wait left open (its acquire began before the hooks) goes. */
void juc_waits_thread_end(struct host *h, JNIEnv *jni, jthread thread);

#endif
