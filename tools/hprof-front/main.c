/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof-front: the front end of net=host:port with format=b. It listens on a port,
 * writes everything the agent sends to a file, and sends the agent commands typed
 * by name on stdin (by a person, or a script). Run it next to a long-lived program
 * to take profiles on demand:
 *
 *   hprof-front -p 9000 -o server.hprof          then start the JVM with
 *   java -agentlib:hprof=cpu=samples,format=b,net=localhost:9000 ...
 *
 * and type `cpu samples`, `dump heap`, `exit` ... (`help` lists them). Read the file
 * with build/hprof-dump. It ends when the agent closes the connection (the program
 * ended), with status 0, or 1 if a command line could not be understood.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sources/net/socket_protocol.h"
#include "util/clock.h"
#include "util/fd_io.h"

static const char USAGE[] = "usage: hprof-front [-a ADDRESS] (-p PORT | -P PORTFILE) [-o OUTFILE] [-t SECONDS] [-q]\n"
                            "  -a ADDRESS   listen on this address (default 127.0.0.1; 0.0.0.0 for every one)\n"
                            "  -p PORT      listen on this port (0 picks a free one)\n"
                            "  -P PORTFILE  listen on a free port and write its number to PORTFILE\n"
                            "  -o OUTFILE   where the profile goes (default java.hprof)\n"
                            "  -t SECONDS   give up if the agent has not connected by then (default: wait)\n"
                            "  -q           say nothing but errors\n";

static const char HELP[] =
    "Commands (one a line; the agent answers in the profile file):\n"
    "  cpu samples [CUTOFF]      CPU SAMPLES so far (counts are not reset); CUTOFF 0..1, default 0.0001\n"
    "  traces                    DUMP TRACES: every trace not yet written\n"
    "  allocs                    ALLOCS (0x09, timeline=): allocations since the last record\n"
    "  dump heap                 DUMP HEAP\n"
    "  sites [CUTOFF] [incremental] [allocated] [gc]\n"
    "                            ALLOC SITES: only sites changed since the last time, ordered by\n"
    "                            allocated bytes, force a GC first; CUTOFF default 0.0001\n"
    "  heap summary              HEAP SUMMARY\n"
    "  gc                        FORCE GC\n"
    "  cpu on [THREAD]           CONTROL 3: CPU sampling on, for all threads or for one\n"
    "  cpu off [THREAD]          CONTROL 4: CPU sampling off (THREAD is the thread's object ID,\n"
    "                            as START_THREAD shows it, e.g. 0x5000000c; none or 0 = all)\n"
    "  cpu clear                 CONTROL 5: clear the CPU samples\n"
    "  depth N                   CONTROL 6: stack depth N (0..65535) from now on\n"
    "  alloc on | alloc off      CONTROL 1/2: allocation traces on or off\n"
    "  exit                      EXIT THE VM (status 0, after the final dump)\n"
    "  eof                       EOF: the agent stops reading commands\n"
    "  pause MS                  wait MS milliseconds before the next command (scripts)\n"
    "  raw HEX...                send these bytes as they are (testing), e.g. raw 07 00000001 00000000\n"
    "  close                     drop the connection now\n"
    "  help                      this list\n"
    "CONTROL numbers follow the manual: 1/2 alloc traces, 3/4 CPU sampling, 5 clear, 6 depth.\n";

static int quiet;
static uint32_t next_serial = 1;

static uint64_t now_ms(void) { return clock_ns() / 1000000u; }

static int parse_cutoff(const char *s, double *out)
{
    char *end;
    double d = strtod(s, &end);
    if (*end || d < 0 || d > 1) return -1;
    *out = d;
    return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (!*s || *end || errno || v > max) return -1;
    *out = v;
    return 0;
}

/* A thread's object ID as START_THREAD shows it: hex, with or without 0x. */
static int parse_thread(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 16);
    if (!*s || *end || errno || v > 0xffffffffUL) return -1;
    *out = (uint32_t)v;
    return 0;
}

enum action { SEND, PAUSE, CLOSE, NOTHING, BAD };

/* Splits a line into words (in place); returns how many. */
static int words(char *line, char **w, int max)
{
    int n = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && n < max; tok = strtok(NULL, " \t\r\n")) w[n++] = tok;
    return n;
}

/* `raw HEX...`: the words' hex digit pairs as bytes (at most 4096). */
static enum action parse_raw(char **w, int n, uint8_t *out, size_t *len)
{
    size_t k = 0;
    for (int i = 1; i < n; i++) {
        size_t l = strlen(w[i]);
        if (l % 2) return BAD;
        for (size_t j = 0; j < l; j += 2) {
            char hex[3] = {w[i][j], w[i][j + 1], 0};
            char *end;
            unsigned long b = strtoul(hex, &end, 16);
            if (*end || k >= 4096) return BAD;
            out[k++] = (uint8_t)b;
        }
    }
    *len = k;
    return SEND;
}

/* Turns one line into bytes to send (or another action). */
static enum action parse_line(char *line, uint8_t *out, size_t *len, unsigned long *pause_ms)
{
    char *w[64];
    int n = words(line, w, 64);
    if (n == 0 || w[0][0] == '#') return NOTHING;
    struct command c;
    memset(&c, 0, sizeof c);
    c.cutoff = 0.0001;
    const char *a0 = w[0], *a1 = n > 1 ? w[1] : "";
    unsigned long v;
    if (!strcasecmp(a0, "help") || !strcmp(a0, "?")) {
        fputs(HELP, stderr);
        return NOTHING;
    } else if (!strcasecmp(a0, "pause") && n == 2 && parse_uint(a1, 3600000, pause_ms) == 0) {
        return PAUSE;
    } else if (!strcasecmp(a0, "close") && n == 1) {
        return CLOSE;
    } else if (!strcasecmp(a0, "raw") && n >= 2) {
        return parse_raw(w, n, out, len);
    } else if (!strcasecmp(a0, "gc") && n == 1) {
        c.tag = CMD_FORCE_GC;
    } else if ((!strcasecmp(a0, "dump") && n == 2 && !strcasecmp(a1, "heap")) || (!strcasecmp(a0, "heap") && n == 1)) {
        c.tag = CMD_DUMP_HEAP;
    } else if ((!strcasecmp(a0, "heap") && n == 2 && !strcasecmp(a1, "summary")) ||
               (!strcasecmp(a0, "summary") && n == 1)) {
        c.tag = CMD_HEAP_SUMMARY;
    } else if ((!strcasecmp(a0, "traces") && n == 1) ||
               (!strcasecmp(a0, "dump") && n == 2 && !strcasecmp(a1, "traces"))) {
        c.tag = CMD_DUMP_TRACES;
    } else if (!strcasecmp(a0, "allocs") && n == 1) {
        c.tag = CMD_ALLOCS;
    } else if (!strcasecmp(a0, "exit") && n == 1) {
        c.tag = CMD_EXIT;
    } else if (!strcasecmp(a0, "eof") && n == 1) {
        c.tag = CMD_EOF;
    } else if (!strcasecmp(a0, "sites")) {
        c.tag = CMD_ALLOC_SITES;
        for (int i = 1; i < n; i++) {
            if (!strcasecmp(w[i], "incremental"))
                c.flags |= 0x1;
            else if (!strcasecmp(w[i], "allocated"))
                c.flags |= 0x2;
            else if (!strcasecmp(w[i], "gc"))
                c.flags |= 0x4;
            else if (parse_cutoff(w[i], &c.cutoff) != 0)
                return BAD;
        }
    } else if ((!strcasecmp(a0, "cpu") && n >= 2 && !strcasecmp(a1, "samples")) || !strcasecmp(a0, "samples")) {
        int at = !strcasecmp(a0, "cpu") ? 2 : 1;
        c.tag = CMD_CPU_SAMPLES;
        if (n > at + 1 || (n == at + 1 && parse_cutoff(w[at], &c.cutoff) != 0)) return BAD;
    } else if (!strcasecmp(a0, "cpu") && (!strcasecmp(a1, "on") || !strcasecmp(a1, "off")) && n <= 3) {
        c.tag = CMD_CONTROL;
        c.control = !strcasecmp(a1, "on") ? CTL_CPU_ON : CTL_CPU_OFF;
        if (n == 3 && parse_thread(w[2], &c.thread_id) != 0) return BAD;
    } else if ((!strcasecmp(a0, "cpu") && n == 2 && !strcasecmp(a1, "clear")) || (!strcasecmp(a0, "clear") && n == 1)) {
        c.tag = CMD_CONTROL;
        c.control = CTL_CPU_CLEAR;
    } else if (!strcasecmp(a0, "alloc") && n == 2 && (!strcasecmp(a1, "on") || !strcasecmp(a1, "off"))) {
        c.tag = CMD_CONTROL;
        c.control = !strcasecmp(a1, "on") ? CTL_ALLOC_ON : CTL_ALLOC_OFF;
    } else if (!strcasecmp(a0, "depth") && n == 2 && parse_uint(a1, 65535, &v) == 0) {
        c.tag = CMD_CONTROL;
        c.control = CTL_DEPTH;
        c.depth = (uint16_t)v;
    } else {
        return BAD;
    }
    c.serial = next_serial++;
    *len = cmd_encode(&c, out, 64);
    return *len ? SEND : BAD;
}

struct session {
    int conn;
    FILE *out;        /* the profile file */
    char line[16384]; /* stdin read so far, not yet run */
    size_t linelen;
    uint64_t resume_at; /* a pause runs until then (0: none) */
    int bad_lines;
    int chatty; /* a person at a terminal: say what was sent */
};

/* Runs the whole lines read so far, until a pause; -1 when the connection is to close. */
static int run_lines(struct session *ss)
{
    char *nl;
    while (!ss->resume_at && (nl = memchr(ss->line, '\n', ss->linelen))) {
        *nl = 0;
        size_t used = (size_t)(nl - ss->line) + 1;
        char copy[sizeof ss->line];
        snprintf(copy, sizeof copy, "%s", ss->line);
        uint8_t bytes[4096];
        size_t blen = 0;
        unsigned long ms = 0;
        enum action act = parse_line(ss->line, bytes, &blen, &ms);
        memmove(ss->line, ss->line + used, ss->linelen - used);
        ss->linelen -= used;
        switch (act) {
        case SEND:
            if (fd_send_all(ss->conn, bytes, blen) != 0)
                fprintf(stderr, "hprof-front: send: %s\n", strerror(errno));
            else if (ss->chatty && cmd_name(bytes[0]))
                fprintf(stderr, "hprof-front: sent %s; the answer goes to the profile file\n", cmd_name(bytes[0]));
            break;
        case PAUSE: ss->resume_at = now_ms() + ms; break;
        case CLOSE: return -1;
        case NOTHING: break;
        case BAD:
            ss->bad_lines++;
            fprintf(stderr, "hprof-front: not understood: %s (type help for the commands)\n", copy);
            break;
        }
    }
    return 0;
}

static int listen_on(const char *addr, int port, int *bound)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        struct hostent *h = gethostbyname(addr);
        if (!h || h->h_addrtype != AF_INET) {
            fprintf(stderr, "hprof-front: cannot resolve %s\n", addr);
            return -1;
        }
        memcpy(&sa.sin_addr, h->h_addr_list[0], sizeof sa.sin_addr);
    }
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (ls >= 0) setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof sa;
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&sa, &len) != 0) {
        fprintf(stderr, "hprof-front: cannot listen on %s:%d: %s\n", addr, port, strerror(errno));
        return -1;
    }
    *bound = ntohs(sa.sin_port);
    return ls;
}

/* The port number, through a temporary beside PORTFILE renamed over it (fd_write_file):
 * a script waiting for the file never reads half of it. */
static int write_portfile(const char *portfile, int bound)
{
    char num[16];
    int n = snprintf(num, sizeof num, "%d\n", bound);
    int rc = fd_write_file(portfile, num, (size_t)n);
    if (rc != 0) fprintf(stderr, "hprof-front: cannot write %s: %s\n", portfile, strerror(errno));
    return rc;
}

/* The profile file: written over if it is there, never through a link, and 0600 (a
 * profile holds the program's data). */
static FILE *open_output(const char *name)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd < 0 || fchmod(fd, 0600) != 0 ? NULL : fdopen(fd, "wb");
    if (!f && fd >= 0) close(fd);
    return f;
}

/* Copies what the agent sends to ss->out and runs the lines read from stdin, until the
 * agent closes the connection or a `close` line; returns the bytes received. */
static uint64_t relay(struct session *ss)
{
    uint8_t rbuf[65536];
    int stdin_open = 1;
    uint64_t total = 0;
    for (;;) {
        int paused = ss->resume_at && now_ms() < ss->resume_at;
        struct pollfd p[2] = {{ss->conn, POLLIN, 0}, {0, POLLIN, 0}};
        int np = (stdin_open && !paused) ? 2 : 1;
        int wait_ms = paused ? (int)(ss->resume_at - now_ms()) + 1 : -1;
        if (poll(p, (nfds_t)np, wait_ms) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(ss->conn, rbuf, sizeof rbuf, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break; /* the agent closed: the program ended */
            fwrite(rbuf, 1, (size_t)n, ss->out);
            fflush(ss->out);
            total += (uint64_t)n;
        }
        if (np == 2 && (p[1].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(0, ss->line + ss->linelen, sizeof ss->line - 1 - ss->linelen);
            if (n <= 0) {
                stdin_open = 0;
                if (ss->linelen) ss->line[ss->linelen++] = '\n';
            } else {
                ss->linelen += (size_t)n;
            }
            if (ss->linelen == sizeof ss->line - 1 && !memchr(ss->line, '\n', ss->linelen))
                ss->linelen = 0; /* endless line */
        }
        if (ss->resume_at && now_ms() >= ss->resume_at) ss->resume_at = 0;
        if (run_lines(ss) != 0) {
            if (!quiet) fprintf(stderr, "hprof-front: closing the connection\n");
            break;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    const char *addr = "127.0.0.1", *portfile = NULL, *outname = "java.hprof";
    int port = -1, timeout_s = -1, opt;
    while ((opt = getopt(argc, argv, "a:p:P:o:t:qh")) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'P':
            portfile = optarg;
            port = 0;
            break;
        case 'o': outname = optarg; break;
        case 't': timeout_s = atoi(optarg); break;
        case 'q': quiet = 1; break;
        case 'h':
            fputs(USAGE, stdout);
            fputs(HELP, stdout);
            return 0;
        default: fputs(USAGE, stderr); return 2;
        }
    }
    if (port < 0 || port > 65535 || optind != argc) {
        fputs(USAGE, stderr);
        return 2;
    }
    int bound = 0;
    int ls = listen_on(addr, port, &bound);
    if (ls < 0) return 1;
    if (portfile && write_portfile(portfile, bound) != 0) return 1;
    if (!quiet)
        fprintf(stderr, "hprof-front: listening on %s:%d; start the JVM with net=%s:%d\n", addr, bound, addr, bound);
    struct pollfd lp = {ls, POLLIN, 0};
    if (poll(&lp, 1, timeout_s < 0 ? -1 : timeout_s * 1000) != 1) {
        fprintf(stderr, "hprof-front: no connection\n");
        return 1;
    }
    int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
    close(ls);
    FILE *out = open_output(outname);
    if (c < 0 || !out) {
        fprintf(stderr, "hprof-front: %s: %s\n", c < 0 ? "accept" : outname, strerror(errno));
        return 1;
    }
    if (!quiet)
        fprintf(stderr, "hprof-front: connected; writing the profile to %s (type help for the commands)\n", outname);

    struct session ss = {.conn = c, .out = out, .chatty = !quiet && isatty(0)};
    uint64_t total = relay(&ss);
    fclose(out);
    close(c);
    if (!quiet) fprintf(stderr, "hprof-front: done; %llu bytes in %s\n", (unsigned long long)total, outname);
    return ss.bad_lines ? 1 : 0;
}
