// SPDX-License-Identifier: GPL-2.0
/*
 * The demo workload: a pretend request handler. Each "request" parses
 * (hashes) its input, sorts a table, and compresses a reply, through the
 * shared library libdemo.so. `demo_app batch` weights sorting, `demo_app
 * web` weights hashing, so two processes give two distinct profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long demo_hash(const unsigned char *p, size_t n);
void demo_sort(unsigned int *v, size_t n);
size_t demo_compress(const unsigned char *in, size_t n, unsigned char *out);

static unsigned char buf[1 << 16], out[1 << 17];
static unsigned int table[1 << 12];
volatile unsigned long demo_sink;

static void parse_request(int rounds)
{
	while (rounds--)
		demo_sink += demo_hash(buf, sizeof(buf));
}

static void build_table(int rounds)
{
	unsigned int i;

	while (rounds--) {
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			table[i] = (i * 2654435761U) ^ demo_sink;
		demo_sort(table, sizeof(table) / sizeof(table[0]));
	}
}

static void send_reply(int rounds)
{
	while (rounds--)
		demo_sink += demo_compress(buf, sizeof(buf), out);
}

static void handle_request(int web)
{
	parse_request(web ? 8 : 1);
	build_table(web ? 1 : 6);
	send_reply(2);
}

int main(int argc, char **argv)
{
	int web = argc > 1 && !strcmp(argv[1], "web");
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (i / 7) & 0xff;
	printf("%d\n", getpid());
	fflush(stdout);
	for (;;)
		handle_request(web);
	return 0;
}
