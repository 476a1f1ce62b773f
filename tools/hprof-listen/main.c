/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof-listen: the receiving end of net=host:port, for tests and quick captures.
 *
 *   hprof-listen PORTFILE OUTFILE
 *   hprof-listen --stall PORTFILE
 *
 * Listens on 127.0.0.1 on a free port, writes the port number to PORTFILE (so a
 * script can start the JVM with net=127.0.0.1:<port>), accepts one connection and
 * copies everything it receives into OUTFILE until the peer closes. Gives up after
 * 120 s without a connection. With --stall it accepts and never reads (with a
 * receive buffer as small as it gets), a peer that has stopped reading, until killed
 * (or for 300 s).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fd_io.h"

/* The port number, through a temporary beside PORTFILE renamed over it (fd_write_file):
 * a script waiting for the file never reads half of it. */
static int write_portfile(const char *portfile, int port)
{
    char num[16];
    int n = snprintf(num, sizeof num, "%d\n", port);
    int rc = fd_write_file(portfile, num, (size_t)n);
    return rc;
}

int main(int argc, char **argv)
{
    bool stall = argc == 3 && strcmp(argv[1], "--stall") == 0;
    if (argc != 3) {
        fprintf(stderr, "usage: hprof-listen PORTFILE OUTFILE | hprof-listen --stall PORTFILE\n");
        return 2;
    }
    if (stall) argv++;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int small = 1; /* the kernel's least; the accepted socket inherits it */
    if (stall) setsockopt(ls, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&addr, &len) != 0) {
        perror("hprof-listen: listen");
        return 1;
    }
    if (write_portfile(argv[1], ntohs(addr.sin_port)) != 0) {
        perror(argv[1]);
        return 1;
    }
    struct pollfd p = {ls, POLLIN, 0};
    if (poll(&p, 1, 120000) != 1) {
        fprintf(stderr, "hprof-listen: no connection\n");
        return 1;
    }
    int c = accept(ls, NULL, NULL);
    if (stall) {
        sleep(300);
        return c < 0;
    }
    /* Written over if it is there, never through a link; 0600: a profile holds the
     * program's data. */
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *out = fd < 0 || fchmod(fd, 0600) != 0 ? NULL : fdopen(fd, "wb");
    if (c < 0 || !out) {
        perror("hprof-listen");
        return 1;
    }
    char buf[65536];
    ssize_t n;
    long total = 0;
    while ((n = read(c, buf, sizeof buf)) > 0) {
        fwrite(buf, 1, (size_t)n, out);
        total += n;
    }
    fclose(out);
    close(c);
    close(ls);
    fprintf(stderr, "hprof-listen: received %ld bytes\n", total);
    return 0;
}
