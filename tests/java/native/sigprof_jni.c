/* SPDX-License-Identifier: Apache-2.0 */
/* SigprofUser's own SIGPROF handler and process CPU timer (ITIMER_PROF, every 10 ms). */
#include <jni.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t count;

static void on_prof(int sig) { count++; }

JNIEXPORT jboolean JNICALL Java_SigprofUser_install(JNIEnv *env, jclass self)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) return JNI_FALSE;
    struct itimerval every = {{0, 10000}, {0, 10000}};
    return setitimer(ITIMER_PROF, &every, NULL) == 0 ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jint JNICALL Java_SigprofUser_handled(JNIEnv *env, jclass self) { return count; }
