#include "sources/async_trace.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The walker's own frame and trace shapes (HotSpot's, unchanged since JDK 6). */
struct agct_frame {
    jint bci;                 /* -3 in a native method; negative values < -3: no answer */
    jmethodID method;
};

struct agct_trace {
    JNIEnv *env;
    jint nframes;             /* <= 0: the walk failed (GC active, not walkable, ...) */
    struct agct_frame *frames;
};

typedef void (*agct_fn)(struct agct_trace *, jint, void *);

#define AGCT_NATIVE_BCI (-3)
#define LOCAL_FRAMES 80

/* Looked up once, in Agent_OnLoad, before any thread can call in: never written after. */
static agct_fn walker;

bool async_trace_available(void)
{
    /* A switch for tests: compare what the fast walk finds with GetStackTrace's frames. */
    const char *off = getenv("HPROF_JVMTI_STACKS");
    if (off && *off && strcmp(off, "0") != 0) return false;
    if (!walker) walker = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (walker) return true;
    /* libjvm may have been opened without RTLD_GLOBAL. */
    void *jvm = dlopen("libjvm.so", RTLD_LAZY | RTLD_NOLOAD);
    if (jvm) walker = (agct_fn)dlsym(jvm, "AsyncGetCallTrace");
    return walker != NULL;
}

void JNICALL async_trace_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass cls) {}

void async_trace_enable_events(jvmtiEnv *jvmti)
{
    if (!walker) return;
    /* The walker declines to answer unless ClassLoad events are on. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL);
}

/* Asking for a class's methods makes their jmethodIDs, which the walker only reads. */
void async_trace_class_prepared(jvmtiEnv *jvmti, jclass cls)
{
    if (!walker) return;
    jint n = 0;
    jmethodID *methods = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, cls, &n, &methods) == JVMTI_ERROR_NONE)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
}

void async_trace_vm_init(jvmtiEnv *jvmti)
{
    if (!walker) return;
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE) return;
    for (jint i = 0; i < n; i++) async_trace_class_prepared(jvmti, classes[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

int async_trace_current(JNIEnv *jni, int skip, jvmtiFrameInfo *frames, int max)
{
    if (!walker || skip < 0 || max < 0 || skip + max > LOCAL_FRAMES) return -1;
    struct agct_frame raw[LOCAL_FRAMES];
    struct agct_trace t = {jni, 0, raw};
    /* In a native method or a JVMTI callback the walker starts from the thread's last
     * Java frame and never looks at a signal context. */
    walker(&t, skip + max, NULL);
    if (t.nframes <= 0) return -1;
    int n = 0;
    for (int i = skip; i < t.nframes; i++) {
        if (!raw[i].method || (raw[i].bci < 0 && raw[i].bci != AGCT_NATIVE_BCI)) return -1;
        frames[n].method = raw[i].method;
        frames[n].location = raw[i].bci == AGCT_NATIVE_BCI ? -1 : raw[i].bci;
        n++;
    }
    return n;
}
