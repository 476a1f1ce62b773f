/*
 * The bytecode tracker source: instruments classes as they load so that they call
 * the Tracker class (java/hprof/Tracker.java), which the agent delivers on the
 * bootstrap class path so classes of every module, java.base included, reach it.
 *
 * Classes loaded before the agent could see them do not exist: with the early
 * class-hook capabilities the hook sees java.lang.Object first. Instrumentation is
 * on only for the options that need it (cpu=times, cpu=old, exact heap=sites).
 */
#ifndef HPROF_TRACKER_H
#define HPROF_TRACKER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#define TRACKER_CLASS "hprof/Tracker"

/* The life cycle (tracker_source, sources/source.h):
 *   init           capabilities, the Tracker class on the boot class path, the class hook
 *   start          name the classes loaded so far, bind the natives, engage the Tracker
 *   stop           hand over what threads still hold, then go inert
 *   thread_end     hand over what the thread's Tracker buffer still holds (on that thread)
 *   class_prepare  number the methods of an instrumented class */
#include "sources/source.h"

#endif
