/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A large synthetic capture for the report benchmark, written straight
 * to a file in the shape `stackid record` writes on a busy host:
 *
 *  - an INFO record first, an END record last;
 *  - processes of a few executables over libc, libstdc++ and a shared
 *    library of their own (6 build-ids, a path record each at its first
 *    use), several threads each, each process in its cgroup (a cgroup
 *    record at its first use);
 *  - user stacks of DEPTH frames (11 by default: the bench's known
 *    chain), outermost _start, __libc_start_main, main, then functions
 *    drawn from a few dozen per file, so that stacks share prefixes as
 *    real ones do; frame 0 found by the registers, libc's callers by
 *    unwind tables, the rest by frame pointers;
 *  - about a third of the samples interrupted in the kernel, with 2..6
 *    kernel frames (syscall, page fault and ext4 paths) before the user
 *    frames, and 1 in 50 stacks a kernel thread's (kernel frames only);
 *    1 in 64 with an ip frame (anonymous code) innermost;
 *  - RINGS rings, samples spread over them; each ring defines a
 *    build-id or kernel symbol (BUILD_ID, KSYM records) before the first
 *    sample of its epoch that uses it; every ring starts an epoch at the
 *    start and every EPOCH samples after;
 *  - STACKS distinct call paths, drawn with a skew (the minimum of two
 *    uniform draws: the hottest about twice the mean), or every sample
 *    its own (STACKS 0); the innermost frame at one of 48 instructions
 *    of its function (a kernel one: 8, each its own symbol index, as the
 *    module numbers them by address), so that the raw stacks number
 *    about 25 times STACKS, and those ending in the kernel render alike
 *    (folded shows no kernel offsets) and are merged.
 */
#ifndef STACKID_BENCH_H
#define STACKID_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "capgen.h"

struct bench_cfg {
	uint64_t samples;
	unsigned int depth;	/* user frames, 3..STACKID_MAX_DEPTH - 6 */
	unsigned int stacks;	/* 0: every sample a distinct stack */
	unsigned int rings;	/* 1..64 */
	uint64_t epoch;		/* samples between epochs (0: one, at 0) */
};

#define BENCH_DEFAULTS { .samples = 3000000, .depth = 11, .stacks = 400, \
			 .rings = 8, .epoch = 1000000 }

static inline uint64_t bench_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#define BENCH_FILES	6	/* 3 executables, libc, libstdc++, libapp */
#define BENCH_EXES	3
#define BENCH_LIBC	3
#define BENCH_PROCS	12
#define BENCH_RINGS	64
#define BENCH_LEAF_IPS	48	/* a leaf function's sampled instructions */
#define BENCH_KOFFS	8	/* ... a kernel one's (each its own index) */

static const char *const bench_paths[BENCH_FILES] = {
	"/usr/bin/bench-server", "/usr/bin/bench-worker",
	"/usr/local/bin/bench-batch", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
	"/opt/bench/lib/libbenchapp.so.1",
};

/* Kernel functions: name, module ("": the kernel), offset. */
static const struct bench_kfn {
	const char *name, *mod;
	uint64_t off;
} bench_kfns[] = {
	/* 0..5: a read() on ext4 */
	{ "entry_SYSCALL_64_after_hwframe", "", 0x76 },
	{ "do_syscall_64", "", 0x5d },
	{ "ksys_read", "", 0x6b },
	{ "vfs_read", "", 0xa8 },
	{ "ext4_file_read_iter", "ext4", 0x5a },
	{ "filemap_read", "", 0x1c4 },
	/* 6..10: a page fault */
	{ "asm_exc_page_fault", "", 0x26 },
	{ "exc_page_fault", "", 0x7c },
	{ "do_user_addr_fault", "", 0x1b0 },
	{ "handle_mm_fault", "", 0xe2 },
	{ "clear_page_erms", "", 0x7 },
	/* 11..15: a write() and a futex */
	{ "ksys_write", "", 0x6b },
	{ "vfs_write", "", 0x26c },
	{ "pipe_write", "", 0x1de },
	{ "__x64_sys_futex", "", 0x94 },
	{ "futex_wait", "", 0xf4 },
	/* 16..21: a kernel thread */
	{ "ret_from_fork_asm", "", 0x1b },
	{ "kthread", "", 0xe8 },
	{ "worker_thread", "", 0x266 },
	{ "process_one_work", "", 0x174 },
	{ "ext4_end_bio", "ext4", 0x12 },
	{ "memset_orig", "", 0x33 },
};
#define BENCH_KFNS	(sizeof(bench_kfns) / sizeof(bench_kfns[0]))

/* Kernel paths, outermost first (frames are written innermost first). */
static const unsigned char bench_kpaths[][6] = {
	{ 0, 1, 2, 3, 4, 5 }, { 0, 1, 2, 3 }, { 6, 7, 8, 9, 10 },
	{ 6, 7, 8 }, { 0, 1, 11, 12, 13 }, { 0, 1, 14, 15 },
};
static const unsigned char bench_klen[] = { 6, 4, 5, 3, 5, 4 };
static const unsigned char bench_kthread[][6] = {
	{ 16, 17, 18, 19, 20 }, { 16, 17, 18, 19, 21 },
};

struct bench_frame {
	uint8_t status;		/* STACKID_FRAME_* */
	uint8_t file;		/* valid */
	uint8_t how;
	uint8_t kfn;		/* kernel */
	uint64_t addr;
};

struct bench_stack {
	unsigned int proc, nr, nk;
	uint32_t flags;
	struct bench_frame f[STACKID_MAX_DEPTH];
};

/* Stack @st, innermost frame first, as the module would write it. */
static inline void bench_stack(uint64_t st, unsigned int depth,
			       struct bench_stack *s)
{
	uint64_t h = bench_mix(st * 0x9e3779b97f4a7c15ULL + 1);
	unsigned int proc = st % BENCH_PROCS, exe = proc % BENCH_EXES;
	unsigned int nk = 0, i, j;
	const unsigned char *kp = NULL;
	struct bench_frame u[STACKID_MAX_DEPTH];

	s->proc = proc;
	s->flags = STACKID_SF_USER;
	if (st % 50 == 49) {			/* a kernel thread */
		kp = bench_kthread[h % 2];
		nk = 5;
		s->flags = STACKID_SF_KERNEL | STACKID_SF_KTHREAD;
		depth = 0;
	} else if (h % 3 == 0) {		/* in a system call */
		j = (h >> 8) % (sizeof(bench_klen));
		kp = bench_kpaths[j];
		nk = bench_klen[j];
		s->flags = STACKID_SF_KERNEL;
	}
	/* user frames, outermost first */
	for (i = 0; i < depth; i++) {
		uint64_t x = bench_mix(st * 131 + i);
		struct bench_frame *f = &u[i];

		f->status = STACKID_FRAME_VALID;
		f->how = STACKID_HOW_FP;
		f->kfn = 0;
		if (i == 0) {
			f->file = exe;
			f->addr = 0x1040 + exe * 0x10;		/* _start */
		} else if (i == 1) {
			f->file = BENCH_LIBC;			/* libc_start */
			f->addr = 0x2724a;
		} else if (i == 2) {
			f->file = exe;
			f->addr = 0x1200 + exe * 0x80;		/* main */
		} else {
			/* one of 24 functions of one of the 4 files; the
			 * same for many stacks near the root */
			uint64_t y = i < depth / 2 ? bench_mix(st % 16 * 7 + i)
						  : x;
			static const uint8_t pick[4] = { 0, BENCH_LIBC, 4, 5 };

			f->file = pick[y % 4];
			if (!f->file)
				f->file = exe;
			f->addr = 0x10000 + (y >> 8) % 24 * 0x400 +
				  (y >> 20) % 0x100;
		}
	}
	/* the callers of libc's frames: found by libc's unwind table */
	for (i = 0; i + 1 < depth; i++)
		if (u[i + 1].file == BENCH_LIBC)
			u[i].how = STACKID_HOW_TABLE;
	s->nr = 0;
	for (i = nk; i-- > 0;) {
		struct bench_frame *f = &s->f[s->nr++];

		f->status = STACKID_FRAME_KERNEL;
		f->kfn = kp[i];
		f->addr = bench_kfns[kp[i]].off;
		f->file = 0;
		f->how = 0;
	}
	for (i = depth; i-- > 0;)
		s->f[s->nr++] = u[i];
	if (depth) {
		s->f[nk].how = STACKID_HOW_REGS;
		if (h % 64 == 7) {		/* JIT or anonymous code */
			s->f[nk].status = STACKID_FRAME_IP;
			s->f[nk].addr = 0x7f0000001000ULL + (h >> 16) % 0x10000;
		}
	}
	s->nk = nk;
}

struct bench_writer {
	struct capgen g;
	FILE *out;
	int ret;
	/* per ring: the index of each file and kernel function, 0: none */
	uint16_t bid[BENCH_RINGS][BENCH_FILES];
	uint16_t kid[BENCH_RINGS][BENCH_KFNS][BENCH_KOFFS];
	uint16_t nbid[BENCH_RINGS], nkid[BENCH_RINGS];
	bool pathed[BENCH_FILES];
	bool cgrouped[BENCH_PROCS];
	unsigned char ids[BENCH_FILES][20];
};

static inline void bench_flush(struct bench_writer *w, bool all)
{
	if (!all && w->g.len < 1 << 20)
		return;
	if (w->g.len && fwrite(w->g.buf, 1, w->g.len, w->out) != w->g.len)
		w->ret = -1;
	w->g.len = 0;
}

static inline uint16_t bench_bid(struct bench_writer *w, unsigned int ring,
				 unsigned int file)
{
	struct stackid_build_id b = {
		.hdr = { sizeof(b), STACKID_REC_BUILD_ID, STACKID_ABI_MAJOR },
		.ring = ring,
		.build_id_len = 20,
	};

	if (!w->pathed[file]) {
		w->pathed[file] = true;
		cg_path(&w->g, w->ids[file], 20, bench_paths[file]);
	}
	if (w->bid[ring][file])
		return w->bid[ring][file];
	b.index = w->bid[ring][file] = ++w->nbid[ring];
	memcpy(b.build_id, w->ids[file], 20);
	memcpy(cg_room(&w->g, sizeof(b)), &b, sizeof(b));
	return b.index;
}

/* The module numbers kernel symbols by address: by offset @v too. */
static inline uint16_t bench_kid(struct bench_writer *w, unsigned int ring,
				 unsigned int k, unsigned int v)
{
	if (!w->kid[ring][k][v]) {
		w->kid[ring][k][v] = ++w->nkid[ring];
		cg_ksym(&w->g, ring, w->kid[ring][k][v], bench_kfns[k].name,
			bench_kfns[k].mod);
	}
	return w->kid[ring][k][v];
}

static inline void bench_epoch(struct bench_writer *w, unsigned int ring)
{
	struct stackid_epoch ep = {
		.hdr = { sizeof(ep), STACKID_REC_EPOCH, STACKID_ABI_MAJOR },
		.ring = ring,
	};

	memcpy(cg_room(&w->g, sizeof(ep)), &ep, sizeof(ep));
	memset(w->bid[ring], 0, sizeof(w->bid[ring]));
	memset(w->kid[ring], 0, sizeof(w->kid[ring]));
	w->nbid[ring] = w->nkid[ring] = 0;
}

static inline void bench_sample(struct bench_writer *w, uint64_t n,
				uint64_t t, unsigned int ring,
				const struct bench_stack *s)
{
	static const char *const comms[BENCH_EXES] = {
		"bench-server", "bench-worker", "bench-batch",
	};
	uint64_t h = bench_mix(n ^ 0x5bd1e995);
	struct stackid_sample hd = {
		/* type and size: cg_put_sample() */
		.hdr = { .abi_major = STACKID_ABI_MAJOR },
		.flags = s->flags,
		.cpu = ring,
		.time_ns = t,
		.nr_frames = s->nr,
		.nr_kernel = s->nk,
		.ring = ring,
	};
	struct stackid_frame f[STACKID_MAX_DEPTH];
	unsigned int i;

	if (s->flags & STACKID_SF_KTHREAD) {
		hd.tgid = hd.tid = 40 + ring;
		snprintf(hd.comm, sizeof(hd.comm), "kworker/%u:1", ring);
	} else {
		hd.tgid = 1000 + s->proc * 17;
		hd.tid = hd.tgid + h % 4;
		hd.cgroup_id = 100 + s->proc;
		hd.stop = STACKID_STOP_END;
		memcpy(hd.comm, comms[s->proc % BENCH_EXES],
		       strlen(comms[s->proc % BENCH_EXES]));
		if (!w->cgrouped[s->proc]) {
			char cg[64];

			w->cgrouped[s->proc] = true;
			snprintf(cg, sizeof(cg),
				 "/system.slice/bench-%u.service", s->proc);
			cg_cgroup(&w->g, hd.cgroup_id, cg);
		}
	}
	memset(f, 0, s->nr * sizeof(f[0]));
	for (i = 0; i < s->nr; i++) {
		unsigned int v = i ? 0 : (h >> 8) % BENCH_KOFFS;

		f[i].status = s->f[i].status;
		f[i].addr = s->f[i].addr;
		f[i].how = s->f[i].how;
		/* the interrupted instruction: one of the leaf's */
		if (!i && s->f[i].status == STACKID_FRAME_KERNEL)
			f[i].addr += v * 4;
		else if (!i)
			f[i].addr += (h >> 8) % BENCH_LEAF_IPS * 3;
		if (s->f[i].status == STACKID_FRAME_KERNEL)
			f[i].bid = bench_kid(w, ring, s->f[i].kfn, v);
		else if (s->f[i].status == STACKID_FRAME_VALID)
			f[i].bid = bench_bid(w, ring, s->f[i].file);
		else
			f[i].reason = STACKID_IP_NO_FILE;
	}
	/* packed where the frames fit, as `stackid record` asks the module */
	cg_put_sample(&w->g, &hd, f, s->nr, true);
}

/* Returns 0, or -1 (and a message) if the file cannot be written. */
static inline int bench_write(const char *path, const struct bench_cfg *cfg)
{
	const uint64_t t0 = 1000000000000ULL;
	unsigned int depth = cfg->depth, rings = cfg->rings, r, i, j;
	struct bench_writer *w = calloc(1, sizeof(*w));
	struct bench_stack *s = malloc(sizeof(*s));
	struct capture_info info = {
		.hdr = { sizeof(info), CAPTURE_REC_INFO, STACKID_ABI_MAJOR },
		.realtime_ns = 1700000000000000000ULL,
		.freq_hz = 999,
		.run_id = 0x5eed,
	};
	struct capture_end end = {
		.hdr = { sizeof(end), CAPTURE_REC_END, STACKID_ABI_MAJOR },
		.nr = STACKID_STAT_NR,
	};
	uint64_t n, st;

	if (!w || !s)
		abort();
	if (depth < 3)
		depth = 3;
	if (depth > STACKID_MAX_DEPTH - 6)
		depth = STACKID_MAX_DEPTH - 6;
	if (rings < 1)
		rings = 1;
	if (rings > BENCH_RINGS)
		rings = BENCH_RINGS;
	w->out = fopen(path, "w");
	if (!w->out) {
		perror(path);
		free(w);
		free(s);
		return -1;
	}
	for (i = 0; i < BENCH_FILES; i++)
		for (j = 0; j < 20; j++)
			w->ids[i][j] = bench_mix(i * 20 + j);
	cg_header(&w->g, STACKID_ABI_VERSION, t0);
	memcpy(cg_room(&w->g, sizeof(info)), &info, sizeof(info));
	for (n = 0; n < cfg->samples; n++) {
		if (n == 0 || (cfg->epoch && n % cfg->epoch == 0))
			for (r = 0; r < rings; r++)
				bench_epoch(w, r);
		if (cfg->stacks) {
			uint64_t a = bench_mix(n) % cfg->stacks,
				 b = bench_mix(n + 0x1234567) % cfg->stacks;

			st = a < b ? a : b;
		} else {
			st = n;
		}
		bench_stack(st, depth, s);
		bench_sample(w, n, t0 + n * 125000, bench_mix(n * 3) % rings,
			     s);
		bench_flush(w, false);
	}
	end.end_ns = t0 + cfg->samples * 125000 + 1000;
	end.counters[STACKID_STAT_SAMPLES] = cfg->samples;
	end.counters[STACKID_STAT_DELIVERED] = cfg->samples;
	memcpy(cg_room(&w->g, sizeof(end)), &end, sizeof(end));
	bench_flush(w, true);
	if (fclose(w->out))
		w->ret = -1;
	if (w->ret)
		perror(path);
	n = w->ret;
	cg_free(&w->g);
	free(w);
	free(s);
	return (int)n;
}

#endif /* STACKID_BENCH_H */
