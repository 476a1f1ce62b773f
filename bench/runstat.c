/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runstat: runs one command and reports its wall time, peak RSS and CPU time.
 *
 *   runstat [-t TIMEOUT_S] [-o STATFILE] [-C DIR] -- COMMAND [ARGS...]
 *
 * Writes one line "WALL_S MAXRSS_KB USER_S SYS_S STATUS OTHERS" to STATFILE (default stderr),
 * where STATUS is the command's exit code, 128+N when signal N ended it, 124 when it ran past
 * TIMEOUT_S (it is then killed with SIGKILL), or 127 when it could not be started; and
 * OTHERS is how many CPUs everything else on the machine kept busy on average meanwhile
 * (busy time in /proc/stat, steal included, less the command's own user+sys, over the wall
 * time), so that a run disturbed by other work can be told apart.
 * The command inherits stdin/stdout/stderr. runstat itself exits with STATUS.
 *
 * Wall time is CLOCK_MONOTONIC from just before fork to wait4's return; peak RSS and CPU
 * time are the child's rusage from wait4 (ru_maxrss counts the largest of the process and
 * the descendants it waited for).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;
static volatile pid_t child;

static void on_alarm(int sig)
{
    (void)sig;
    timed_out = 1;
    if (child > 0) kill(child, SIGKILL);
}

static void forward(int sig)
{
    if (child > 0) kill(child, sig);
}

/* Busy CPU time of the whole machine so far, in seconds (-1 when /proc/stat is unreadable). */
static double machine_busy(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                   &v[7]);
    fclose(f);
    if (n < 4) return -1;
    /* user nice system idle iowait irq softirq steal: all but idle and iowait are busy */
    unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static void usage(void)
{
    fprintf(stderr, "usage: runstat [-t TIMEOUT_S] [-o STATFILE] [-C DIR] -- COMMAND [ARGS...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *statfile = NULL, *dir = NULL;
    long timeout = 0;
    int opt;
    while ((opt = getopt(argc, argv, "+t:o:C:")) != -1) {
        switch (opt) {
        case 't': timeout = strtol(optarg, NULL, 10); break;
        case 'o': statfile = optarg; break;
        case 'C': dir = optarg; break;
        default: usage();
        }
    }
    if (optind >= argc) usage();
    char **cmd = argv + optind;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    int pipefd[2]; /* reports an exec failure to the parent */
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        perror("runstat: pipe");
        return 127;
    }
    struct timespec t0, t1;
    double busy0 = machine_busy();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 127;
    }
    if (pid == 0) {
        close(pipefd[0]);
        signal(SIGALRM, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (dir && chdir(dir) != 0) {
            int e = errno;
            (void)!write(pipefd[1], &e, sizeof e);
            _exit(127);
        }
        execvp(cmd[0], cmd);
        int e = errno;
        (void)!write(pipefd[1], &e, sizeof e);
        _exit(127);
    }
    child = pid;
    close(pipefd[1]);
    if (timeout > 0) alarm((unsigned)timeout);

    int exec_errno = 0;
    ssize_t n;
    while ((n = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
    close(pipefd[0]);

    int wstatus = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    while ((w = wait4(pid, &wstatus, 0, &ru)) < 0 && errno == EINTR) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double busy1 = machine_busy();
    alarm(0);
    if (w < 0) {
        perror("runstat: wait4");
        return 127;
    }

    int status;
    if (n > 0) {
        fprintf(stderr, "runstat: cannot run %s%s%s: %s\n", cmd[0], dir ? " in " : "", dir ? dir : "",
                strerror(exec_errno));
        status = 127;
    } else if (timed_out) {
        fprintf(stderr, "runstat: %s killed after %ld s\n", cmd[0], timeout);
        status = 124;
    } else if (WIFEXITED(wstatus)) {
        status = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        status = 128 + WTERMSIG(wstatus);
    } else {
        status = 125;
    }

    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double own = seconds(ru.ru_utime) + seconds(ru.ru_stime);
    double others = 0;
    if (busy0 >= 0 && busy1 >= 0 && wall > 0) {
        others = (busy1 - busy0 - own) / wall;
        if (others < 0) others = 0; /* jiffy rounding */
    }
    FILE *f = stderr;
    if (statfile && !(f = fopen(statfile, "w"))) {
        perror(statfile);
        return 127;
    }
    fprintf(f, "%.6f %ld %.3f %.3f %d %.2f\n", wall, ru.ru_maxrss, seconds(ru.ru_utime), seconds(ru.ru_stime), status,
            others);
    if (f != stderr && fclose(f) != 0) {
        perror(statfile);
        return 127;
    }
    return status;
}
