// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the capture reader and of the record checks
 * (src/tool/capture.c, src/record.c): truncated and corrupt captures
 * give exit status 3 and a message naming the right byte offset, never
 * a crash, and the report still holds what came before the bad record.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tool/tool.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "tap.h"

struct result {
	int status;
	char *out, *err;
};

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* Report @len bytes at @p in-process, without symbols. */
static void run(const void *p, size_t len, enum report_format fmt,
		struct result *r)
{
	struct report_opts o = { .format = fmt };
	struct capture *c = malloc(sizeof(*c));
	size_t olen, elen;
	FILE *out = open_memstream(&r->out, &olen);
	FILE *err = open_memstream(&r->err, &elen);

	r->status = capture_open_mem(c, p, len, "t.cap");
	if (r->status)
		fprintf(err, "stackid: t.cap: %s\n", c->err);
	else
		r->status = report_run(c, &o, out, err);
	capture_close(c);
	free(c);
	fclose(out);
	fclose(err);
}

/* Offsets of the records of @g, and the end, in @offs; returns count. */
static size_t record_offsets(const struct capgen *g, size_t *offs, size_t max)
{
	size_t off = sizeof(struct capture_hdr), n = 0;
	struct stackid_record_hdr h;

	while (off < g->len && n < max) {
		offs[n++] = off;
		memcpy(&h, g->buf + off, sizeof(h));
		off += h.size;
	}
	offs[n] = off;
	return n;
}

static void test_cuts(void (*build)(struct capgen *), const char *name)
{
	struct capgen g = { 0 };
	size_t offs[64], n, len, bad = 0, rec;
	struct result whole, r, prefix;
	char want[128];

	build(&g);
	n = record_offsets(&g, offs, 63);
	run(g.buf, g.len, FORMAT_TEXT, &whole);
	tap_ok(whole.status == 0 && !*whole.err,
	       "the %s capture reads clean (%d: %s)", name, whole.status,
	       whole.err);
	result_free(&whole);

	for (len = 0; len < g.len; len++) {
		unsigned char *cut = malloc(len ? len : 1);

		memcpy(cut, g.buf, len);
		run(cut, len, FORMAT_FOLDED, &r);
		for (rec = 0; rec <= n && offs[rec] < len; rec++)
			;
		/* rec: the first record boundary at or after len */
		if (len == 0) {
			snprintf(want, sizeof(want), "empty file");
		} else if (len < sizeof(struct capture_hdr)) {
			snprintf(want, sizeof(want), "truncated header at "
				 "byte %zu", len);
		} else if (offs[rec] == len || len == sizeof(struct capture_hdr)) {
			want[0] = 0;
		} else {
			snprintf(want, sizeof(want), "truncated record at "
				 "byte %zu:", offs[rec - 1]);
		}
		if (!want[0] ? r.status != 0 || *r.err :
		    r.status != EXIT_DATA || !strstr(r.err, want)) {
			if (!bad++)
				tap_ok(0, "cut at %zu: status %d, '%s', want "
				       "'%s'", len, r.status, r.err, want);
		}
		/* what came before the cut is still reported */
		if (len > sizeof(struct capture_hdr) && want[0] &&
		    strstr(want, "record")) {
			run(cut, offs[rec - 1], FORMAT_FOLDED, &prefix);
			if (strcmp(prefix.out, r.out) && !bad++)
				tap_ok(0, "cut at %zu: report differs from "
				       "the good prefix's", len);
			result_free(&prefix);
		}
		result_free(&r);
		free(cut);
	}
	tap_ok(!bad, "every cut of the %zu-byte %s capture: clean at record "
	       "boundaries, else exit 3 naming the cut record, good prefix "
	       "reported (%zu failures)", g.len, name, bad);
	cg_free(&g);
}

/*
 * Corrupt one field of a capture (two build-id records, a sample, a path
 * record, two more samples) and check the status, the message and that
 * the samples before the bad record are in the folded output.
 */
enum { BID1, BID2, S1, PATH, S2, S3, NRECS };

struct corrupt {
	const char *what;
	int rec;		/* record index; -1: the capture header */
	size_t field;		/* byte offset in the record (or header) */
	unsigned int size;	/* 1, 2, 4 or 8 */
	uint64_t value;
	const char *msg;	/* expected after "at byte N: " (records) */
	bool decode;		/* sane record, inconsistent with the rest */
};

#define SAMPLE_F(f)	offsetof(struct stackid_sample, f)
#define FRAME_F(i, f)	(sizeof(struct stackid_sample) + \
			 (i) * sizeof(struct stackid_frame) + \
			 offsetof(struct stackid_frame, f))
#define PATH_F(f)	offsetof(struct stackid_build_id_path, f)
#define BID_F(f)	offsetof(struct stackid_build_id, f)
#define HDR_F(f)	offsetof(struct capture_hdr, f)

static const struct corrupt corrupts[] = {
	{ "bad magic", -1, 0, 1, 'X',
	  "not a stackid capture (bad magic at byte 0)", false },
	{ "bad format version", -1, HDR_F(version), 4, 2,
	  "bad header at byte 8: format version 2", false },
	{ "bad ABI major", -1, HDR_F(abi_version), 4, 3 << 16,
	  "bad header at byte 12: module ABI 3.0", false },
	{ "bad header size", -1, HDR_F(hdr_size), 4, 40,
	  "bad header at byte 24: header size 40", false },
	{ "nonzero reserved", -1, HDR_F(reserved), 4, 1,
	  "bad header at byte 28", false },
	{ "record size not a multiple of 8", S1, 0, 4, 83,
	  "bad record size", false },
	{ "record size 0", S1, 0, 4, 0, "bad record size", false },
	{ "record size above STACKID_RECORD_MAX", S2, 0, 4,
	  STACKID_RECORD_MAX + 8, "bad record size", false },
	{ "record ABI major", S2, offsetof(struct stackid_record_hdr,
					   abi_major), 2, 7,
	  "record ABI major 7, capture 2", false },
	{ "frame count above the size", S1, SAMPLE_F(nr_frames), 2, 4,
	  "bad frame count", false },
	{ "frame count too large", S1, SAMPLE_F(nr_frames), 2, 128,
	  "bad frame count", false },
	{ "frame count 0xffff", S2, SAMPLE_F(nr_frames), 2, 0xffff,
	  "bad frame count", false },
	{ "more kernel frames than frames", S1, SAMPLE_F(nr_kernel), 2, 4,
	  "more kernel frames than frames", false },
	{ "frame status 0 (empty)", S1, FRAME_F(1, status), 1, 0,
	  "bad frame status", false },
	{ "frame status 4", S2, FRAME_F(0, status), 1, 4,
	  "bad frame status", false },
	{ "kernel frame among the user frames", S2, FRAME_F(0, status), 1,
	  STACKID_FRAME_KERNEL, "kernel frame after the user frames", false },
	{ "valid frame build-id index 0", S1, FRAME_F(0, bid), 2, 0,
	  "bad build-id index", false },
	{ "ip frame with a build-id index", S3, FRAME_F(1, bid), 2, 4,
	  "bad build-id index", false },
	{ "valid frame with an index no record defined", S1, FRAME_F(2, bid),
	  2, 9, "build-id index 9 of ring 0 is defined by no record before "
	  "it", true },
	{ "ip frame reason 0", S3, FRAME_F(1, reason), 1, 0,
	  "bad frame reason", false },
	{ "ip frame reason out of range", S3, FRAME_F(1, reason), 1,
	  STACKID_IP_NR_REASONS, "bad frame reason", false },
	{ "valid frame with a reason", S1, FRAME_F(0, reason), 1, 1,
	  "bad frame reason", false },
	{ "build-id record length 0", BID1, BID_F(build_id_len), 1, 0,
	  "bad build-id length", false },
	{ "build-id record length 21", BID2, BID_F(build_id_len), 1, 21,
	  "bad build-id length", false },
	{ "build-id record index 0", BID1, BID_F(index), 2, 0,
	  "bad build-id index", false },
	{ "build-id record of another size", BID1, 0, 4, 48,
	  "bad build-id record size", false },
	{ "path build_id_len 0", PATH, PATH_F(build_id_len), 1, 0,
	  "bad build-id length", false },
	{ "path build_id_len 21", PATH, PATH_F(build_id_len), 1, 21,
	  "bad build-id length", false },
	{ "path_len above STACKID_PATH_MAX", PATH, PATH_F(path_len), 2,
	  STACKID_PATH_MAX + 1, "bad path length", false },
	{ "path_len not matching the size", PATH, PATH_F(path_len), 2, 3,
	  "path length does not match record size", false },
	{ "path without its NUL", PATH,
	  sizeof(struct stackid_build_id_path) + 9, 1, 'x',
	  "path not NUL-terminated", false },
	{ "path with a NUL inside", PATH,
	  sizeof(struct stackid_build_id_path) + 2, 1, 0,
	  "path not NUL-terminated", false },
	{ "path record too short", PATH, 0, 4, 32, "path record too short", false },
};

static void build_small(struct capgen *g, size_t *offs)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct cg_frame f[3];

	cg_header(g, STACKID_ABI_VERSION, 1000);
	f[0] = cg_valid(id, 20, 0x100);
	f[1] = cg_valid(id, 4, 0x200);
	f[2] = cg_valid(id, 20, 0x300);
	cg_sample(g, 2000, 0, 1, 1, "one", STACKID_SF_USER, 3, f);
	cg_path(g, id, 20, "/lib/x.so");	/* path_len 9 */
	cg_sample(g, 3000, 0, 2, 2, "two", STACKID_SF_USER, 3, f);
	f[1] = cg_ip(0x7000, STACKID_IP_NO_FILE);
	cg_sample(g, 4000, 0, 3, 3, "three", STACKID_SF_USER, 2, f);
	if (record_offsets(g, offs, NRECS) != NRECS)
		abort();
}

static void test_corrupt(void)
{
	struct result r, fr;
	size_t offs[NRECS + 1], i;
	char want[256];

	for (i = 0; i < ARRAY_SIZE(corrupts); i++) {
		const struct corrupt *c = &corrupts[i];
		struct capgen g = { 0 };
		size_t at;
		bool ok;

		build_small(&g, offs);
		at = (c->rec < 0 ? 0 : offs[c->rec]) + c->field;
		memcpy(g.buf + at, &c->value, c->size);	/* little-endian */
		if (c->rec < 0)
			snprintf(want, sizeof(want), "stackid: t.cap: %s",
				 c->msg);
		else
			snprintf(want, sizeof(want), "stackid: t.cap: %s"
				 "record at byte %zu: %s",
				 c->decode ? "" : "corrupt ", offs[c->rec],
				 c->msg);
		run(g.buf, g.len, FORMAT_TEXT, &r);
		run(g.buf, g.len, FORMAT_FOLDED, &fr);
		ok = r.status == EXIT_DATA && !strncmp(r.err, want,
						       strlen(want)) &&
		     fr.status == EXIT_DATA && !strcmp(fr.err, r.err);
		/* what came before the bad record is reported */
		if (c->rec > S1)
			ok = ok && strstr(r.out, " one 1/1 ") &&
			     strstr(fr.out, "one;");
		if (c->rec > S2)
			ok = ok && strstr(r.out, " two 2/2 ");
		if (c->rec < S1)
			ok = ok && !*r.out && !*fr.out;
		ok = ok && !strstr(fr.out, "three");
		tap_ok(ok, "corrupt %s: exit 3, '%s'%s", c->what, want,
		       ok ? "" : r.err);
		result_free(&r);
		result_free(&fr);
		cg_free(&g);
	}
}

/*
 * The same for the kernel symbol and cgroup records and kernel frames: a
 * cgroup record, a user sample, two symbol records (the kernel's
 * vfs_read, ext4's ext4_file_read_iter), a sample with both as kernel
 * frames, another cgroup record, a user sample.
 */
enum { KCG1, KBID, KS1, KSYM1, KSYM2, KS2, KCG2, KS3, KNRECS };

#define KSYM_F(f)	offsetof(struct stackid_ksym, f)
#define KSYM_NAME	sizeof(struct stackid_ksym)
#define CGRP_F(f)	offsetof(struct stackid_cgroup, f)
#define CGRP_PATH	sizeof(struct stackid_cgroup)

static const struct corrupt kcorrupts[] = {
	{ "ksym index 0", KSYM1, KSYM_F(index), 2, 0,
	  "bad kernel symbol index", false },
	{ "ksym name_len 0", KSYM1, KSYM_F(name_len), 2, 0,
	  "bad kernel symbol name length", false },
	{ "ksym name_len 512", KSYM1, KSYM_F(name_len), 2, 512,
	  "bad kernel symbol name length", false },
	{ "ksym module_len 64", KSYM2, KSYM_F(module_len), 2, 64,
	  "bad kernel module name length", false },
	{ "ksym name_len not matching the size", KSYM1, KSYM_F(name_len), 2,
	  20, "ksym lengths do not match record size", false },
	{ "ksym module_len 5, one byte more than the size", KSYM2,
	  KSYM_F(module_len), 2, 5,
	  "ksym lengths do not match record size", false },
	{ "ksym module_len one short (same size)", KSYM2, KSYM_F(module_len),
	  2, 3, "ksym not NUL-terminated and zero-padded", false },
	{ "ksym record too short", KSYM1, 0, 4, 16,
	  "kernel symbol record too short", false },
	{ "ksym NUL inside the name", KSYM1, KSYM_NAME + 2, 1, 0,
	  "NUL inside a ksym or module name", false },
	{ "ksym NUL inside the module", KSYM2, KSYM_NAME + 19 + 1, 1, 0,
	  "NUL inside a ksym or module name", false },
	{ "ksym without its NUL", KSYM1, KSYM_NAME + 8, 1, 'x',
	  "ksym not NUL-terminated and zero-padded", false },
	{ "ksym padding not zero", KSYM1, 31, 1, 1,
	  "ksym not NUL-terminated and zero-padded", false },
	{ "cgroup id 0", KCG2, CGRP_F(id), 8, 0, "bad cgroup id", false },
	{ "cgroup __pad not zero", KCG1, CGRP_F(__pad) + 2, 2, 1,
	  "cgroup record padding not zero", false },
	{ "cgroup path_len above STACKID_CGROUP_PATH_MAX", KCG2,
	  CGRP_F(path_len), 2, STACKID_CGROUP_PATH_MAX + 1,
	  "bad cgroup path length", false },
	{ "cgroup path_len not matching the size", KCG1, CGRP_F(path_len), 2,
	  9, "cgroup path length does not match size", false },
	{ "cgroup path without its NUL", KCG1, CGRP_PATH + 2, 1, 'x',
	  "cgroup path not NUL-terminated and padded", false },
	{ "cgroup path with a NUL inside", KCG2, CGRP_PATH + 1, 1, 0,
	  "cgroup path not NUL-terminated and padded", false },
	{ "cgroup padding not zero", KCG2, 31, 1, 1,
	  "cgroup path not NUL-terminated and padded", false },
	{ "cgroup record too short", KCG2, 0, 4, 24,
	  "cgroup record too short", false },
	{ "kernel frame with an index no record defined", KS2, FRAME_F(1, bid),
	  2, 9, "kernel symbol index 9 of ring 0 is defined by no record "
	  "before it", true },
	{ "kernel frames, flags user", KS2, SAMPLE_F(flags), 4,
	  STACKID_SF_USER | STACKID_SF_KERNEL,
	  "kernel frames without the kernel flag", false },
	{ "kernel frames, flags 0", KS2, SAMPLE_F(flags), 4, 0,
	  "kernel frames without the kernel flag", false },
	{ "nr_kernel over a user frame", KS2, SAMPLE_F(nr_kernel), 2, 3,
	  "not a kernel frame in the first nr_kernel", false },
	{ "nr_kernel above nr_frames", KS2, SAMPLE_F(nr_kernel), 2, 4,
	  "more kernel frames than frames", false },
	{ "unnamed kernel frame with an offset", KS2, FRAME_F(0, bid), 2, 0,
	  "unnamed kernel frame with offset", false },
	{ "kernel frame with a reason", KS2, FRAME_F(0, reason), 1, 1,
	  "bad frame reason", false },
};

static void build_kernel(struct capgen *g, size_t *offs)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct cg_frame f[3];

	cg_header(g, STACKID_ABI_VERSION, 1000);
	cg_cgroup(g, 7, "/a");		/* path_len 2, 32 bytes */
	f[0] = cg_valid(id, 20, 0x100);
	cg_sample_k(g, 2000, 0, 1, 1, "one", STACKID_SF_USER, 1, f, 0, 7);
	f[0] = cg_kernel("vfs_read", NULL, 0x1a);	/* 32 bytes */
	cg_kindex(g, 0, &f[0]);
	f[0] = cg_kernel("ext4_file_read_iter", "ext4", 0x40);	/* 40 */
	f[1] = cg_kernel("vfs_read", NULL, 0x1a);
	f[2] = cg_valid(id, 20, 0x100);
	cg_sample_k(g, 3000, 0, 2, 2, "two", STACKID_SF_KERNEL, 3, f, 2, 7);
	cg_cgroup(g, 8, "/bb");		/* path_len 3, 32 bytes */
	f[0] = cg_valid(id, 20, 0x200);
	cg_sample_k(g, 4000, 0, 3, 3, "three", STACKID_SF_USER, 1, f, 0, 8);
	if (record_offsets(g, offs, KNRECS) != KNRECS)
		abort();
}

static void test_corrupt_kernel(void)
{
	struct result r, fr;
	size_t offs[KNRECS + 1], i;
	char want[256];

	for (i = 0; i < ARRAY_SIZE(kcorrupts); i++) {
		const struct corrupt *c = &kcorrupts[i];
		struct capgen g = { 0 };
		bool ok;

		build_kernel(&g, offs);
		if (i == 0) {
			run(g.buf, g.len, FORMAT_TEXT, &r);
			tap_ok(r.status == 0 && !*r.err &&
			       strstr(r.out, " two 2/2 kernel /a\n"
				      "\text4_file_read_iter+0x1a [ext4]\n"
				      "\tvfs_read+0x1a [kernel]\n") == NULL &&
			       strstr(r.out, " two 2/2 kernel /a\n"
				      "\text4_file_read_iter+0x40 [ext4]\n"
				      "\tvfs_read+0x1a [kernel]\n"
				      "\tdeadbeef00000000000000000000000000000000"
				      "+0x100\n") &&
			       strstr(r.out, " three 3/3 user /bb\n"),
			       "the kernel capture reads clean (%d: %s)",
			       r.status, r.err);
			result_free(&r);
		}
		memcpy(g.buf + offs[c->rec] + c->field, &c->value, c->size);
		snprintf(want, sizeof(want), "stackid: t.cap: %srecord at "
			 "byte %zu: %s", c->decode ? "" : "corrupt ",
			 offs[c->rec], c->msg);
		run(g.buf, g.len, FORMAT_TEXT, &r);
		run(g.buf, g.len, FORMAT_FOLDED, &fr);
		ok = r.status == EXIT_DATA && !strncmp(r.err, want,
						       strlen(want)) &&
		     r.err[strlen(want)] == '\n' &&
		     fr.status == EXIT_DATA && !strcmp(fr.err, r.err);
		if (c->rec > KS1)
			ok = ok && strstr(r.out, " one 1/1 user /a\n") &&
			     strstr(fr.out, "one;");
		else
			ok = ok && !*r.out && !*fr.out;
		ok = ok && !strstr(fr.out, "three") && !strstr(r.out, "three");
		if (c->rec > KS2)
			ok = ok && strstr(r.out, " two 2/2 kernel");
		tap_ok(ok, "corrupt %s: exit 3, '%s'%s", c->what, want,
		       ok ? "" : r.err);
		result_free(&r);
		result_free(&fr);
		cg_free(&g);
	}
}

/* STACKID_MAX_KDEPTH kernel frames pass, one more does not. */
static void test_kdepth(void)
{
	struct cg_frame f[STACKID_MAX_KDEPTH + 2];
	const char *why = NULL;
	unsigned int i;
	size_t off;
	long r;

	for (i = 0; i <= STACKID_MAX_KDEPTH; i++)
		f[i] = cg_kernel("deep", NULL, i);
	f[i] = cg_ip(0x1000, STACKID_IP_NO_VMA);
	for (i = STACKID_MAX_KDEPTH; i <= STACKID_MAX_KDEPTH + 1; i++) {
		struct capgen g = { 0 };

		cg_header(&g, STACKID_ABI_VERSION, 0);
		off = cg_sample_k(&g, 1, 0, 1, 1, "d", STACKID_SF_KERNEL,
				  i + 1, f + STACKID_MAX_KDEPTH + 1 - i, i, 0);
		why = NULL;
		r = stackid_record_check_why(g.buf + off, g.len - off, &why);
		if (i == STACKID_MAX_KDEPTH)
			tap_ok(r == (long)(g.len - off),
			       "%u kernel frames (STACKID_MAX_KDEPTH) and a "
			       "user frame pass", i);
		else
			tap_ok(r == -EINVAL && why && !strcmp(why, "more "
			       "kernel frames than STACKID_MAX_KDEPTH"),
			       "%u kernel frames: 'more kernel frames than "
			       "STACKID_MAX_KDEPTH'", i);
		cg_free(&g);
	}
}

static void test_record_check(void)
{
	unsigned char buf[STACKID_RECORD_MAX + 64];
	struct stackid_build_id_path bp = {
		.hdr = {
			.type = STACKID_REC_BUILD_ID_PATH,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.build_id_len = 20,
	};
	static const size_t lens[] = { 0, 1, 6, 7, 8, 100, STACKID_PATH_MAX };
	const char *why = NULL;
	size_t i, size;
	bool ok = true;
	long r;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		size = stackid_path_record_size(lens[i]);
		memset(buf, 0, sizeof(buf));
		bp.path_len = lens[i];
		bp.hdr.size = size;
		memcpy(buf, &bp, sizeof(bp));
		memset(buf + sizeof(bp), 'p', lens[i]);
		r = stackid_record_check(buf, size);
		ok = ok && r == (long)size && size % 8 == 0 &&
		     size <= STACKID_RECORD_MAX &&
		     stackid_record_check(buf, size - 1) == 0;
	}
	tap_ok(ok, "path records of length 0, 1, 6, 7, 8, 100, "
	       "STACKID_PATH_MAX (%zu) pass, at %zu bytes at most",
	       (size_t)STACKID_PATH_MAX,
	       stackid_path_record_size(STACKID_PATH_MAX));
	tap_ok(stackid_path_record_size(STACKID_PATH_MAX) == STACKID_RECORD_MAX &&
	       STACKID_PATH_MAX == 4095,
	       "the longest path record (4095 bytes of path) is "
	       "STACKID_RECORD_MAX bytes");
	tap_ok(STACKID_SAMPLE_MAX <= STACKID_RECORD_MAX &&
	       STACKID1_RECORD_MAX <= STACKID_RECORD_MAX &&
	       sizeof(struct stackid_frame) == 16 &&
	       sizeof(struct stackid_sample) == 64 &&
	       sizeof(struct stackid_build_id) == 40 &&
	       sizeof(struct stackid_epoch) == 16,
	       "ABI 2 layout: 16-byte frames, 64-byte sample header, records "
	       "fit STACKID_RECORD_MAX");

	/* a bad size is reported even before the record is all there */
	bp.hdr.size = 12;
	memcpy(buf, &bp, sizeof(bp));
	r = stackid_record_check_why(buf, 8, &why);
	tap_ok(r == -EINVAL && why && !strcmp(why, "bad record size"),
	       "bad size seen from the 8-byte header alone");
	tap_ok(stackid_record_check(buf, 4) == 0,
	       "less than a header: 0 (need more)");
	tap_ok(stackid_record_check_why(buf, 8, NULL) == -EINVAL,
	       "why may be NULL");

	/* unknown types: skipped by size */
	memset(buf, 0, 64);
	bp.hdr.size = 64;
	bp.hdr.type = 77;
	memcpy(buf, &bp.hdr, sizeof(bp.hdr));
	tap_ok(stackid_record_check(buf, 64) == 64,
	       "unknown record type: its size");
	for (i = 0; i < STACKID_STAT_NR; i++)
		if (!stackid_stat_name(i))
			break;
	tap_ok(i == STACKID_STAT_NR, "every counter below STACKID_STAT_NR "
	       "has a name (%zu has none)", i);
	tap_ok(!strcmp(stackid_stat_name(STACKID_STAT_DROP_RING_FULL),
		       "dropped_ring_full") &&
	       !strcmp(stackid_ip_reason_name(STACKID_IP_NO_VMA), "no_vma") &&
	       !strcmp(stackid_ip_reason_name_abi(1, STACKID1_IP_NOTE_FAR),
		       "note_far") &&
	       !stackid_stat_name(STACKID_STAT_NR) &&
	       !stackid_ip_reason_name(STACKID_IP_NR_REASONS) &&
	       !stackid_ip_reason_name_abi(1, STACKID1_IP_NR_REASONS),
	       "stat and reason names, of ABI 2 and of ABI 1");
}

/* A packed sample of @nr frames (@v) with @nk kernel frames, in @buf. */
static size_t packed_sample(unsigned char *buf, const uint64_t *v,
			    unsigned int nr, unsigned int nk)
{
	struct stackid_sample s = {
		.hdr = {
			.size = sizeof(s) + nr * 8,
			.type = STACKID_REC_SAMPLE_PACKED,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.flags = nk ? STACKID_SF_KERNEL : STACKID_SF_USER,
		.nr_frames = nr,
		.nr_kernel = nk,
	};

	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s), v, nr * 8);
	return s.hdr.size;
}

/* The record checks of ABI 2.4's packed samples. */
static void test_packed_check(void)
{
	unsigned char buf[1024];
	struct stackid_frame f = { 0 }, g;
	const char *why = NULL;
	uint64_t v[3];
	size_t size;
	long r;
	bool ok = true;
	unsigned int i;

	/* every status, how, reason and the extreme values round-trip */
	for (i = 0; i < 64; i++) {
		memset(&f, 0, sizeof(f));
		f.status = STACKID_FRAME_VALID + i % 3;
		f.how = i / 3 % 4;
		if (f.status == STACKID_FRAME_IP) {
			f.reason = 1 + i % (STACKID_IP_NR_REASONS - 1);
			f.addr = i & 1 ? (1ULL << 56) - 1 : 0x7ffd1234;
		} else {
			f.bid = i & 1 ? 65535 : 1 + i;
			f.addr = i & 1 ? (1ULL << 44) - 1 : i;
		}
		ok = ok && stackid_frame_packs(&f);
		stackid_frame_unpack(stackid_frame_pack(&f), &g);
		ok = ok && !memcmp(&f, &g, sizeof(f));
	}
	tap_ok(ok, "packed frames: status, how, bid, reason and addr "
	       "round-trip, up to 2^44 - 1 and 2^56 - 1");
	f.status = STACKID_FRAME_VALID;
	f.reason = 0;
	f.how = 0;
	f.addr = 1ULL << 44;
	ok = !stackid_frame_packs(&f);
	f.addr = 0;
	f.how = STACKID_PF_HOW_MAX + 1;
	ok = ok && !stackid_frame_packs(&f);
	f.how = 0;
	f.status = STACKID_FRAME_IP;
	f.bid = 0;
	f.reason = STACKID_IP_NO_VMA;
	f.addr = 1ULL << 56;
	ok = ok && !stackid_frame_packs(&f);
	f.status = STACKID_FRAME_EMPTY;
	f.addr = 0;
	ok = ok && !stackid_frame_packs(&f);
	tap_ok(ok, "an offset of 2^44, an address of 2^56, an unknown how or "
	       "an empty frame does not pack");

	/* a kernel frame, then a valid and an ip user frame */
	memset(&f, 0, sizeof(f));
	f.status = STACKID_FRAME_KERNEL;
	f.bid = 3;
	f.addr = 0x40;
	v[0] = stackid_frame_pack(&f);
	f.status = STACKID_FRAME_VALID;
	f.bid = 7;
	f.addr = 0x1234;
	f.how = STACKID_HOW_TABLE;
	v[1] = stackid_frame_pack(&f);
	f.status = STACKID_FRAME_IP;
	f.bid = 0;
	f.reason = STACKID_IP_NO_FILE;
	f.addr = 0x7f0000001000;
	v[2] = stackid_frame_pack(&f);
	size = packed_sample(buf, v, 3, 1);
	r = stackid_record_check(buf, size);
	stackid_sample_frame(buf, 1, &g);
	tap_ok(size == 64 + 24 && r == (long)size &&
	       stackid_record_check(buf, size - 1) == 0 &&
	       g.status == STACKID_FRAME_VALID && g.bid == 7 &&
	       g.addr == 0x1234 && g.how == STACKID_HOW_TABLE,
	       "a packed sample of 3 frames: 88 bytes, checked, frames read "
	       "back");

	{
		static const struct {
			const char *name;
			uint64_t v0, v1;	/* frames 1 and 2 */
			unsigned int nr;
			int size_delta;
			const char *why;
		} bad[] = {
			{ "status 0", 0, 0, 3, 0, "bad frame status" },
			{ "valid frame with bid 0", 1ULL << 62 | 0x10, 0, 3, 0,
			  "bad build-id index" },
			{ "ip frame with reason 0", 2ULL << 62 | 0x10, 0, 3, 0,
			  "bad frame reason" },
			{ "ip frame with reason 15", 2ULL << 62 | 15ULL << 56,
			  0, 3, 0, "bad frame reason" },
			{ "kernel frame after the user frames", 0,
			  3ULL << 62, 3, 0,
			  "kernel frame after the user frames" },
			{ "size of 16-byte frames", 0, 0, 3, 24,
			  "bad frame count" },
			{ "size one frame short", 0, 0, 3, -8,
			  "bad frame count" },
		};

		ok = true;
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			uint64_t w[3] = { v[0], v[1], v[2] };
			struct stackid_record_hdr h;

			if (bad[i].v0 || !bad[i].v1)
				w[1] = bad[i].v0;
			if (bad[i].v1)
				w[2] = bad[i].v1;
			if (bad[i].size_delta)
				w[1] = v[1];
			size = packed_sample(buf, w, bad[i].nr, 1);
			memcpy(&h, buf, sizeof(h));
			h.size += bad[i].size_delta;
			memcpy(buf, &h, sizeof(h));
			why = NULL;
			r = stackid_record_check_why(buf, sizeof(buf), &why);
			if (r != -EINVAL || !why || strcmp(why, bad[i].why)) {
				printf("# %s: %ld %s\n", bad[i].name, r,
				       why ? why : "(none)");
				ok = false;
			}
		}
		tap_ok(ok, "packed samples: status 0, a valid frame without "
		       "a bid, an ip frame's reason 0 or 15, a kernel frame "
		       "after user frames, a size that is not 64 + 8 per "
		       "frame: each refused, with its reason");
	}
}

static void test_misc(void)
{
	struct capgen g = { 0 };
	struct result r;
	unsigned char *odd;

	/* a header and nothing else: a capture with no samples */
	cg_header(&g, STACKID_ABI_VERSION | 5, 0);
	run(g.buf, g.len, FORMAT_FOLDED, &r);
	tap_ok(r.status == 0 && !*r.out && !*r.err,
	       "header only, newer minor ABI: empty report, exit 0");
	result_free(&r);
	cg_free(&g);

	/* records at an odd address are read through an aligned copy */
	cg_demo(&g);
	odd = malloc(g.len + 1);
	memcpy(odd + 1, g.buf, g.len);
	run(odd + 1, g.len, FORMAT_FOLDED, &r);
	tap_ok(r.status == 0 && strstr(r.out, "app;") != NULL,
	       "a capture at an unaligned address reads the same");
	result_free(&r);
	free(odd);
	cg_free(&g);

	/* an old capture (ABI 1 records) reports as its ABI 2 twin */
	{
		struct capgen g1 = { 0 };
		struct result r1;

		cg_demo_abi(&g1, true);
		cg_demo(&g);
		run(g1.buf, g1.len, FORMAT_TEXT, &r1);
		run(g.buf, g.len, FORMAT_TEXT, &r);
		tap_ok(r1.status == 0 && r.status == 0 && !*r1.err &&
		       !strcmp(r1.out, r.out),
		       "an ABI 1 capture reports exactly like the same samples "
		       "in ABI 2 (%d: %s)", r1.status, r1.err);
		result_free(&r1);
		result_free(&r);
		cg_free(&g1);
		cg_free(&g);
	}

	/* an epoch forgets the ring's kernel symbols, not another ring's */
	{
		struct stackid_epoch e = {
			.hdr = { sizeof(e), STACKID_REC_EPOCH,
				 STACKID_ABI_MAJOR },
			.ring = 0,
		};
		struct cg_frame k = cg_kernel("vfs_read", NULL, 0x1a);
		size_t off;
		char want[160];

		cg_header(&g, STACKID_ABI_VERSION, 0);
		cg_sample_k(&g, 1, 0, 1, 1, "a", STACKID_SF_KERNEL, 1, &k, 1,
			    0);
		cg_sample_k(&g, 2, 1, 1, 1, "b", STACKID_SF_KERNEL, 1, &k, 1,
			    0);
		memcpy(cg_room(&g, sizeof(e)), &e, sizeof(e));
		off = cg_sample_k(&g, 3, 1, 1, 1, "c", STACKID_SF_KERNEL, 1,
				  &k, 1, 0);
		off = cg_sample_k(&g, 4, 0, 1, 1, "d", STACKID_SF_KERNEL, 1,
				  &k, 1, 0);
		run(g.buf, g.len, FORMAT_FOLDED, &r);
		snprintf(want, sizeof(want), "stackid: t.cap: record at byte "
			 "%zu: kernel symbol index 1 of ring 0 is defined by "
			 "no record before it\n", off);
		tap_ok(r.status == EXIT_DATA && !strcmp(r.err, want) &&
		       !strcmp(r.out, "a;vfs_read_[k] 1\nb;vfs_read_[k] 1\n"
			       "c;vfs_read_[k] 1\n"),
		       "an epoch record empties its ring's kernel symbol "
		       "table only: '%.*s'", (int)strcspn(r.err, "\n"),
		       r.err);
		result_free(&r);
		cg_free(&g);
	}

	/* a file shorter than a record header after the capture header */
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_room(&g, 4);
	run(g.buf, g.len, FORMAT_TEXT, &r);
	tap_ok(r.status == EXIT_DATA && strstr(r.err, "truncated record at "
					       "byte 32: 4 bytes"),
	       "4 stray bytes: truncated record at byte 32");
	result_free(&r);
	cg_free(&g);
}

int main(void)
{
	test_record_check();
	test_packed_check();
	test_cuts(cg_demo, "demo");
	test_cuts(cg_kdemo, "kernel and cgroup");
	test_corrupt();
	test_corrupt_kernel();
	test_kdepth();
	test_misc();
	return tap_done();
}
