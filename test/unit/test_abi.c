// SPDX-License-Identifier: GPL-2.0
/*
 * The UAPI header's own promises: its ioctl type is not one that
 * Documentation/userspace-api/ioctl/ioctl-number.rst gives to someone
 * else (argv[1], from the kernel source test/setup.sh unpacks), every
 * command has that type and a number of its own, and
 * stackid_cost_bucket_low() is defined for every bucket (this file is
 * built with -fsanitize=undefined -fno-sanitize-recover) and agrees with
 * how the module files a cost into a bucket. TAP on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <stackid.h>
#include "tap.h"

/* The module's bucket for a cost of @ns (src/sample.c, the same rule). */
static unsigned int bucket_of(uint64_t ns)
{
	unsigned int t, b;

	if (ns < 8)
		return ns;
	t = 63 - __builtin_clzll(ns);
	b = 8 * t + ((ns >> (t - 3)) & 7);
	return b < STACKID_COST_BUCKETS - 1 ? b : STACKID_COST_BUCKETS - 1;
}

static void check_magic(const char *rst)
{
	char line[512], code[16];
	unsigned int listed = 0, lines = 0;
	FILE *f = fopen(rst, "r");

	if (!f) {
		tap_ok(0, "ioctl-number.rst readable at %s (run test/setup.sh)", rst);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int v;

		if (sscanf(line, "%15s", code) != 1)
			continue;
		if (code[0] == '\'' && code[1] && code[2] == '\'')
			v = (unsigned char)code[1];
		else if (!strncmp(code, "0x", 2) && strlen(code) == 4)
			v = strtoul(code, NULL, 16);
		else
			continue;
		lines++;
		if (v == STACKID_IOC_MAGIC) {
			listed++;
			printf("# listed: %s", line);
		}
	}
	fclose(f);
	tap_ok(lines > 200, "ioctl-number.rst: %u entries read", lines);
	tap_ok(!listed, "ioctl type %#x is nobody else's in ioctl-number.rst",
	   STACKID_IOC_MAGIC);
}

int main(int argc, char **argv)
{
	static const unsigned long cmds[] = {
		STACKID_IOC_GET_VERSION, STACKID_IOC_GET_FREQ,
		STACKID_IOC_SET_FREQ, STACKID_IOC_ENABLE,
		STACKID_IOC_DISABLE, STACKID_IOC_GET_STATS,
		STACKID_IOC_RESET_STATS, STACKID_IOC_SET_FILTER,
		STACKID_IOC_GET_FILTER, STACKID_IOC_GET_COST,
	};
	unsigned int i, j, bad = 0;
	uint64_t v;

	setvbuf(stdout, NULL, _IOLBF, 0);
	check_magic(argc > 1 ? argv[1] : "ioctl-number.rst");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (_IOC_TYPE(cmds[i]) != STACKID_IOC_MAGIC)
			bad++;
		for (j = 0; j < i; j++)
			if (_IOC_NR(cmds[i]) == _IOC_NR(cmds[j]))
				bad++;
	}
	tap_ok(!bad, "every command has type %#x and a number of its own",
	   STACKID_IOC_MAGIC);

	bad = 0;
	for (i = 0; i < STACKID_COST_BUCKETS; i++) {
		uint64_t lo = stackid_cost_bucket_low(i);

		/* a bucket's low bound falls in that bucket, or it is empty */
		if (bucket_of(lo) != i && !(i >= 8 && i < 24))
			bad++;
		if (i && lo < stackid_cost_bucket_low(i - 1))
			bad++;
	}
	tap_ok(!bad, "stackid_cost_bucket_low(): defined and ordered for all %u buckets",
	   STACKID_COST_BUCKETS);
	bad = 0;
	for (v = 1; v < (1ULL << 40); v = v * 3 + 1)
		if (stackid_cost_bucket_low(bucket_of(v)) > v)
			bad++;
	tap_ok(!bad, "a cost is never below its bucket's low bound");
	return tap_done();
}
