/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A large synthetic capture for the report benchmark, written straight
 * to a file: samples of a fixed depth drawn from a set of distinct
 * stacks (or all distinct), over 8 build-ids that have path records.
 */
#ifndef STACKID_BENCH_H
#define STACKID_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "capgen.h"

struct bench_cfg {
	uint64_t samples;
	unsigned int depth;
	unsigned int stacks;	/* 0: every sample a distinct stack */
};

#define BENCH_DEFAULTS { .samples = 1000000, .depth = 16, .stacks = 1000 }

static inline uint64_t bench_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* Returns 0, or -1 (and a message) if the file cannot be written. */
static inline int bench_write(const char *path, const struct bench_cfg *cfg)
{
	unsigned char ids[8][20];
	struct cg_frame f[STACKID_MAX_DEPTH];
	struct capgen g = { 0 };
	unsigned int depth = cfg->depth, i, j;
	char name[64];
	FILE *out = fopen(path, "w");
	uint64_t n, st;
	int ret = 0;

	if (!out) {
		perror(path);
		return -1;
	}
	if (depth > STACKID_MAX_DEPTH)
		depth = STACKID_MAX_DEPTH;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	for (i = 0; i < 8; i++) {
		for (j = 0; j < 20; j++)
			ids[i][j] = bench_mix(i * 20 + j);
		snprintf(name, sizeof(name), "/usr/lib/bench/lib%u.so", i);
		cg_path(&g, ids[i], 20, name);
	}
	for (n = 0; n < cfg->samples; n++) {
		st = cfg->stacks ? bench_mix(n) % cfg->stacks : n;
		for (j = 0; j < depth; j++) {
			uint64_t h = bench_mix(st * 131 + j);

			f[j] = cg_valid(ids[h % 8], 20, (h >> 8) & 0xfffff);
		}
		snprintf(name, sizeof(name), "proc%u", (unsigned int)(st % 7));
		cg_sample(&g, n * 1000, n % 2, 1000 + st % 7, 1000 + st % 7,
			  name, STACKID_SF_USER, depth, f);
		if (g.len >= 1 << 20) {
			if (fwrite(g.buf, 1, g.len, out) != g.len)
				ret = -1;
			g.len = 0;
		}
	}
	if (g.len && fwrite(g.buf, 1, g.len, out) != g.len)
		ret = -1;
	if (fclose(out))
		ret = -1;
	if (ret)
		perror(path);
	cg_free(&g);
	return ret;
}

#endif /* STACKID_BENCH_H */
