// SPDX-License-Identifier: GPL-2.0
/*
 * mkcapture: synthetic capture files.
 *
 *   mkcapture demo FILE       the demo capture (report/capgen.h)
 *   mkcapture kernel FILE     the kernel frames and cgroups capture
 *                             (cg_kdemo())
 *   mkcapture bench FILE [SAMPLES [DEPTH [STACKS]]]
 *                             the benchmark's capture (report/bench.h):
 *                             SAMPLES samples (default 3000000) of DEPTH
 *                             user frames (11), a third with kernel
 *                             frames too, from STACKS distinct call paths
 *                             (400; 0: every sample distinct), 8 rings
 *   mkcapture seeds DIR       fuzzer seeds: small captures, good and bad
 *                             (16-byte and packed frames)
 *   mkcapture chain FILE EXPECT EXE LIB
 *                             the known chain (main;app_a1;app_a2;app_a3;
 *                             lib_b1;lib_b2;lib_spin) over EXE and LIB,
 *                             from EXPECT (lines "NAME BUILDID START END"
 *                             of test/guest/expect.sh): see chain() for
 *                             what it holds; the host tests of pprof, the
 *                             flame graph and debuginfod read it
 *   mkcapture push FILE hostile|threads WALL
 *                             the real-server tests' captures, at wall
 *                             clock WALL s (see pushcap())
 */
#include <errno.h>
#include <stdbool.h>
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
	struct cg_frame f[3];
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
	cg_kdemo(&g);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	ret |= save(path, &g);
	cg_free(&g);
	/* ABI 2.4's packed samples */
	g.packed = true;
	cg_demo(&g);
	snprintf(path, sizeof(path), "%s/demo-packed", dir);
	ret |= save(path, &g);
	cg_free(&g);
	g.packed = true;
	cg_kdemo(&g);
	snprintf(path, sizeof(path), "%s/kernel-packed", dir);
	ret |= save(path, &g);
	cg_free(&g);

	/* ABI 2.6's delta samples: the small capture's, then again */
	g.packed = g.delta = true;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, id, 20, "/x");
	f[0] = cg_valid(id, 20, 0x10);
	f[1] = cg_valid(id, 20, 0x20);
	f[2] = cg_valid(id, 8, 0x30);
	cg_sample(&g, 1, 0, 1, 1, "a", STACKID_SF_USER, 3, f);
	cg_sample(&g, 2, 0, 1, 1, "a", STACKID_SF_USER, 2, f + 1);
	f[0] = cg_valid(id, 20, 0x18);
	cg_sample(&g, 3, 0, 1, 2, "a", STACKID_SF_USER, 3, f);
	cg_sample(&g, 4, 1, 1, 2, "a", STACKID_SF_USER, 3, f);
	snprintf(path, sizeof(path), "%s/delta", dir);
	ret |= save(path, &g);
	cg_free(&g);

	cg_header(&g, STACKID_ABI_VERSION, 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	ret |= save(path, &g);
	cg_path(&g, id, 20, "/x");
	f[0] = cg_valid(id, 20, 0x10);
	f[1] = cg_ip(0x20, STACKID_IP_NOT_RESOLVED);
	f[2] = cg_valid(id, 8, 0x30);
	cg_sample(&g, 1, 0, 1, 1, "a", STACKID_SF_USER, 3, f);
	cg_sample(&g, 2, 0, 1, 1, "a", STACKID_SF_USER, 2, f);
	snprintf(path, sizeof(path), "%s/small", dir);
	ret |= save(path, &g);
	cg_free(&g);
	return ret;
}

static int unhex(const char *s, unsigned char *out)
{
	unsigned int n = 0, b;

	while (n < 20 && sscanf(s + 2 * n, "%2x", &b) == 1)
		out[n++] = b;
	return n;
}

/*
 * The known chain capture. Functions of CHAIN, innermost first; the
 * innermost frame lies 4 bytes into its function, the others (return
 * addresses) half-way in. What it holds, which the tests expect:
 *   chain (pid 4242, tids 4242 and 4243, CPUs 0 and 1):
 *     60 x the whole chain, 30 x the chain without lib_spin;
 *   other (pid 77): 10 x main;app_a1 under a raw address 0x7fff0000;
 * an INFO record (99 Hz, wall clock CHAIN_WALL), path records for both
 * files and an END record 10 s after the start.
 */
#define CHAIN_START	5000000000ULL
#define CHAIN_WALL	1767225600000000000ULL	/* 2026-01-01T00:00:00Z */

static int chain(const char *out, const char *expect, const char *exe,
		 const char *lib)
{
	static const char *const names[7] = {
		"lib_spin", "lib_b2", "lib_b1", "app_a3", "app_a2", "app_a1",
		"main",
	};
	struct cg_frame f[8];
	struct capture_info in = { 0 };
	struct capture_end end = { 0 };
	unsigned char ids[7][20];
	unsigned int idl[7] = { 0 }, i;
	unsigned long long st[7], en[7];
	struct capgen g = { 0 };
	char line[512], name[64], bid[64];
	unsigned long long a, b;
	FILE *e = fopen(expect, "r");
	int ret, k;

	if (!e) {
		fprintf(stderr, "mkcapture: %s: %s\n", expect, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), e)) {
		if (sscanf(line, "%63s %63s %llx %llx", name, bid, &a, &b) != 4)
			continue;
		for (i = 0; i < 7; i++) {
			if (strcmp(name, names[i]))
				continue;
			idl[i] = unhex(bid, ids[i]);
			st[i] = a;
			en[i] = b;
		}
	}
	fclose(e);
	for (i = 0; i < 7; i++) {
		if (!idl[i]) {
			fprintf(stderr, "mkcapture: no %s in %s\n", names[i],
				expect);
			return 1;
		}
		f[i] = cg_valid(ids[i], idl[i],
				i ? st[i] + (en[i] - st[i]) / 2 : st[i] + 4);
	}
	cg_header(&g, STACKID_ABI_VERSION, CHAIN_START);
	in.hdr.size = sizeof(in);
	in.hdr.type = CAPTURE_REC_INFO;
	in.hdr.abi_major = STACKID_ABI_MAJOR;
	in.realtime_ns = CHAIN_WALL;
	in.freq_hz = 99;
	in.run_id = 0x5eed;
	memcpy(cg_room(&g, sizeof(in)), &in, sizeof(in));
	cg_path(&g, ids[6], idl[6], exe);
	cg_path(&g, ids[0], idl[0], lib);
	for (k = 0; k < 90; k++) {
		bool full = k % 3 != 2;

		cg_sample(&g, CHAIN_START + k * 10000000ULL, k % 2, 4242,
			  4242 + k % 2, "chain", STACKID_SF_USER,
			  full ? 7 : 6, full ? f : f + 1);
	}
	f[4] = cg_ip(0x7fff0000, STACKID_IP_NO_VMA);
	f[5] = cg_valid(ids[5], idl[5], st[5] + (en[5] - st[5]) / 2);
	f[6] = cg_valid(ids[6], idl[6], st[6] + (en[6] - st[6]) / 2);
	for (k = 0; k < 10; k++)
		cg_sample(&g, CHAIN_START + 950000000ULL + k, 1, 77, 77,
			  "other", STACKID_SF_USER, 3, f + 4);
	end.hdr.size = sizeof(end);
	end.hdr.type = CAPTURE_REC_END;
	end.hdr.abi_major = STACKID_ABI_MAJOR;
	end.end_ns = CHAIN_START + 10000000000ULL;
	end.nr = STACKID_STAT_NR;
	end.counters[STACKID_STAT_SAMPLES] = 100;
	end.counters[STACKID_STAT_DELIVERED] = 100;
	memcpy(cg_room(&g, sizeof(end)), &end, sizeof(end));
	ret = save(out, &g);
	cg_free(&g);
	return ret;
}

/*
 * The captures of the real-server tests (pyroscope-test.js), at wall
 * clock WALL seconds, samples spread evenly over 10 s:
 *  hostile: comms and kernel names that are not valid UTF-8, a control
 *    sequence, a ';', a file path that is not UTF-8 (frames named
 *    [basename]+0xOFF: the file is not there), a build-id without a
 *    path (BUILDID+0xOFF), a raw address, kernel frames of the kernel
 *    and of a module, a cgroup path that is not UTF-8; 1,000 samples;
 *  threads: 10,000 threads of one process, 2 samples each, 3 stacks.
 */
static int pushcap(const char *out, const char *kind, uint64_t wall_s)
{
	static const unsigned char lib[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const unsigned char bare[8] = { 0xbb, 9, 8, 7, 6, 5, 4, 3 };
	static const char *const comms[5] = {
		"\xff\xfe\x80" "bad", "semi;colon", "esc\x1b[31mred",
		"\xc2\x9b" "csi", "ok-app",
	};
	const uint64_t t0 = 1000000000000ULL, span = 10000000000ULL;
	struct capture_info in = { 0 };
	struct capture_end end = { 0 };
	struct capgen g = { 0 };
	struct cg_frame f[6];
	bool threads = !strcmp(kind, "threads");
	unsigned int n = threads ? 20000 : 1000, i, k;
	int ret;

	if (!threads && strcmp(kind, "hostile"))
		return 1;
	cg_header(&g, STACKID_ABI_VERSION, t0);
	in.hdr.size = sizeof(in);
	in.hdr.type = CAPTURE_REC_INFO;
	in.hdr.abi_major = STACKID_ABI_MAJOR;
	in.realtime_ns = wall_s * 1000000000ULL;
	in.freq_hz = 99;
	in.run_id = 0x5eed;
	memcpy(cg_room(&g, sizeof(in)), &in, sizeof(in));
	cg_path(&g, lib, sizeof(lib), threads ? "/nonexistent/libwork.so" :
		"/nonexistent/lib\xff" "odd.so");
	cg_cgroup(&g, 5, "/system.slice/bad\xfe" "unit.service");
	cg_cgroup(&g, 6, "/user.slice");
	for (i = 0; i < n; i++) {
		uint64_t t = t0 + span * i / n;
		unsigned int cpu = i % 4, nk = 0, nr;

		k = threads ? i % 3 : i % 7;
		f[0] = cg_valid(lib, sizeof(lib), 0x1000 + 0x10 * k);
		f[1] = cg_valid(bare, sizeof(bare), 0x2000 + 0x10 * (k % 2));
		f[2] = cg_valid(lib, sizeof(lib), 0x3000);
		nr = 3;
		if (!threads && k == 3) {
			f[0] = cg_ip(0x7ffd0000 + 0x100 * (i % 2),
				     STACKID_IP_NO_VMA);
		} else if (!threads && k >= 4) {
			memmove(f + 3, f, 3 * sizeof(f[0]));
			f[0] = k == 4 ? cg_kernel("ext4_file_read_iter",
						  "ext4", 0x40) :
			       k == 5 ? cg_kernel("bad\xff" "sym", "m\xfe" "d",
						  0x8) :
			       cg_kernel(NULL, NULL, 0);
			f[1] = cg_kernel("vfs_read", NULL, 0x1a + (i % 2));
			f[2] = cg_kernel("ksys_read", NULL, 0x9);
			nk = 3;
			nr = 6;
		}
		if (threads)
			cg_sample_k(&g, t, cpu, 5000, 5000 + i / 2, "worker",
				    STACKID_SF_USER, nr, f, 0, 6);
		else
			cg_sample_k(&g, t, cpu, 100 + i % 5, 100 + i % 5,
				    comms[i % 5],
				    nk ? STACKID_SF_KERNEL : STACKID_SF_USER,
				    nr, f, nk, i % 3 ? 5 : 6);
	}
	end.hdr.size = sizeof(end);
	end.hdr.type = CAPTURE_REC_END;
	end.hdr.abi_major = STACKID_ABI_MAJOR;
	end.end_ns = t0 + span;
	end.nr = STACKID_STAT_NR;
	end.counters[STACKID_STAT_SAMPLES] = n;
	end.counters[STACKID_STAT_DELIVERED] = n;
	memcpy(cg_room(&g, sizeof(end)), &end, sizeof(end));
	ret = save(out, &g);
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
	if (argc == 3 && !strcmp(argv[1], "kernel")) {
		cg_kdemo(&g);
		ret = save(argv[2], &g);
		cg_free(&g);
		return ret;
	}
	if (argc == 3 && !strcmp(argv[1], "seeds"))
		return seeds(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "push"))
		return pushcap(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if (argc == 6 && !strcmp(argv[1], "chain"))
		return chain(argv[2], argv[3], argv[4], argv[5]);
	if (argc >= 3 && argc <= 6 && !strcmp(argv[1], "bench")) {
		if (argc > 3)
			cfg.samples = strtoull(argv[3], NULL, 0);
		if (argc > 4)
			cfg.depth = strtoul(argv[4], NULL, 0);
		if (argc > 5)
			cfg.stacks = strtoul(argv[5], NULL, 0);
		return bench_write(argv[2], &cfg) ? 1 : 0;
	}
	fprintf(stderr, "usage: mkcapture demo FILE | kernel FILE | bench "
		"FILE [SAMPLES [DEPTH [STACKS]]] | seeds DIR | chain FILE "
		"EXPECT EXE LIB | push FILE hostile|threads WALL\n");
	return 1;
}
