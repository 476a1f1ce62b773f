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
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    bool stall = argc == 3 && strcmp(argv[1], "--stall") == 0;
    if (argc != 3) {
        fprintf(stderr, "usage: hprof-listen PORTFILE OUTFILE | hprof-listen --stall PORTFILE\n");
        return 2;
    }
    if (stall) argv++;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int small = 1;    /* the kernel's least; the accepted socket inherits it */
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
    FILE *pf = fopen(argv[1], "w");
    if (!pf) {
        perror(argv[1]);
        return 1;
    }
    fprintf(pf, "%d\n", ntohs(addr.sin_port));
    fclose(pf);
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
    FILE *out = fopen(argv[2], "wb");
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
