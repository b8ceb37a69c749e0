// SPDX-License-Identifier: GPL-2.0
/*
 * mkcapture: synthetic capture files.
 *
 *   mkcapture demo FILE       the demo capture (report/capgen.h)
 *   mkcapture bench FILE [SAMPLES [DEPTH [STACKS]]]
 *                             SAMPLES samples (default 1000000) of DEPTH
 *                             frames (16), drawn from STACKS distinct
 *                             stacks (1000; 0: every sample distinct),
 *                             over 8 build-ids with path records
 *   mkcapture seeds DIR       fuzzer seeds: small captures, good and bad
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/capgen.h"
#include "report/bench.h"

static int save(const char *path, const struct capgen *g)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(g->buf, 1, g->len, f) != g->len || fclose(f)) {
		fprintf(stderr, "mkcapture: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int seeds(const char *dir)
{
	static const unsigned char id[20] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct stackid_frame f[3];
	struct capgen g = { 0 };
	char path[4096];
	int ret = 0;

	cg_demo(&g);
	snprintf(path, sizeof(path), "%s/demo", dir);
	ret |= save(path, &g);
	g.len -= 8;
	snprintf(path, sizeof(path), "%s/demo-cut", dir);
	ret |= save(path, &g);
	cg_free(&g);

	cg_header(&g, STACKID_ABI_VERSION, 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	ret |= save(path, &g);
	cg_path(&g, id, 20, "/x");
	f[0] = cg_valid(id, 20, 0x10);
	f[1] = cg_ip(0x20, STACKID_IP_MM_BUSY);
	f[2] = cg_valid(id, 8, 0x30);
	cg_sample(&g, 1, 0, 1, 1, "a", STACKID_SF_USER, 3, f);
	cg_sample(&g, 2, 0, 1, 1, "a", STACKID_SF_USER, 2, f);
	snprintf(path, sizeof(path), "%s/small", dir);
	ret |= save(path, &g);
	cg_free(&g);
	return ret;
}

int main(int argc, char **argv)
{
	struct capgen g = { 0 };
	struct bench_cfg cfg = BENCH_DEFAULTS;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "demo")) {
		cg_demo(&g);
		ret = save(argv[2], &g);
		cg_free(&g);
		return ret;
	}
	if (argc == 3 && !strcmp(argv[1], "seeds"))
		return seeds(argv[2]);
	if (argc >= 3 && argc <= 6 && !strcmp(argv[1], "bench")) {
		if (argc > 3)
			cfg.samples = strtoull(argv[3], NULL, 0);
		if (argc > 4)
			cfg.depth = strtoul(argv[4], NULL, 0);
		if (argc > 5)
			cfg.stacks = strtoul(argv[5], NULL, 0);
		return bench_write(argv[2], &cfg) ? 1 : 0;
	}
	fprintf(stderr, "usage: mkcapture demo FILE | bench FILE [SAMPLES "
		"[DEPTH [STACKS]]] | seeds DIR\n");
	return 1;
}
