// SPDX-License-Identifier: GPL-2.0
/*
 * test/system.sh's ingest endpoint: `ingest PORT LOG` listens on
 * 127.0.0.1:PORT and answers every HTTP/1.1 request 200 (100 Continue
 * first when asked), appending one line per request to LOG:
 *	METHOD TARGET BODY-BYTES FIRST-BODY-BYTES-HEX
 * Sequential connections, keep-alive honoured. Enough to see what
 * `stackid push` sends (Pyroscope's /ingest with a pprof body), not a
 * Pyroscope: the real one is test/unit/pyroscope-test.js's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define HDR_MAX	16384

/* Read until the end of the headers; 0 at EOF, -1 on error. */
static ssize_t read_head(int fd, char *buf, size_t *have)
{
	char *end;
	ssize_t n;

	for (;;) {
		buf[*have] = 0;
		end = strstr(buf, "\r\n\r\n");
		if (end)
			return end + 4 - buf;
		if (*have >= HDR_MAX - 1)
			return -1;
		n = read(fd, buf + *have, HDR_MAX - 1 - *have);
		if (n <= 0)
			return n ? -1 : 0;
		*have += n;
	}
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n <= 0)
			return -1;
		s += n;
		len -= n;
	}
	return 0;
}

static void serve(int fd, FILE *log)
{
	static char buf[HDR_MAX];
	char method[16], target[4096], first[9], *p;
	unsigned char peek[4];
	size_t have = 0, body, got, i;
	ssize_t head, n;
	int npeek;

	for (;;) {
		head = read_head(fd, buf, &have);
		if (head <= 0)
			return;
		if (sscanf(buf, "%15s %4095s", method, target) != 2)
			return;
		body = 0;
		p = strcasestr(buf, "\r\ncontent-length:");
		if (p && p < buf + head)
			body = strtoul(p + 17, NULL, 10);
		p = strcasestr(buf, "\r\nexpect: 100-continue");
		if (p && p < buf + head &&
		    write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25))
			return;
		/* the body: what came with the head, then the rest */
		have -= head;
		memmove(buf, buf + head, have);
		got = 0;
		npeek = 0;
		while (got < body) {
			if (!have) {
				n = read(fd, buf, sizeof(buf) - 1);
				if (n <= 0)
					return;
				have = n;
			}
			i = body - got < have ? body - got : have;
			while (npeek < 4 && (size_t)npeek < i)
				peek[npeek] = buf[npeek], npeek++;
			got += i;
			have -= i;
			memmove(buf, buf + i, have);
		}
		for (i = 0; i < (size_t)npeek; i++)
			sprintf(first + 2 * i, "%02x", peek[i]);
		first[2 * npeek] = 0;
		fprintf(log, "%s %s %zu %s\n", method, target, body,
			npeek ? first : "-");
		fflush(log);
		if (write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
			      38))
			return;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s, c, one = 1;
	FILE *log;

	if (argc != 3) {
		fprintf(stderr, "usage: ingest PORT LOG\n");
		return 2;
	}
	log = fopen(argv[2], "a");
	if (!log) {
		perror(argv[2]);
		return 1;
	}
	a.sin_port = htons(atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 8)) {
		perror("ingest: listen");
		return 1;
	}
	for (;;) {
		c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		serve(c, log);
		close(c);
	}
}
