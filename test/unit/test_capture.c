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

static void test_cuts(void)
{
	struct capgen g = { 0 };
	size_t offs[64], n, len, bad = 0, rec;
	struct result whole, r, prefix;
	char want[128];

	cg_demo(&g);
	n = record_offsets(&g, offs, 63);
	run(g.buf, g.len, FORMAT_TEXT, &whole);
	tap_ok(whole.status == 0 && !*whole.err,
	       "the demo capture reads clean (%d: %s)", whole.status,
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
	tap_ok(!bad, "every cut of the %zu-byte demo capture: clean at record "
	       "boundaries, else exit 3 naming the cut record, good prefix "
	       "reported (%zu failures)", g.len, bad);
	cg_free(&g);
}

/*
 * Corrupt one field of a capture (2 samples, a path record, a third
 * sample) and check the status, the message and that the samples before
 * the bad record are in the folded output.
 */
struct corrupt {
	const char *what;
	int rec;		/* record index; -1: the capture header */
	size_t field;		/* byte offset in the record (or header) */
	unsigned int size;	/* 1, 2, 4 or 8 */
	uint64_t value;
	const char *msg;	/* expected after "at byte N: " (records) */
};

#define SAMPLE_F(f)	offsetof(struct stackid_sample, f)
#define FRAME_F(i, f)	(sizeof(struct stackid_sample) + \
			 (i) * sizeof(struct stackid_frame) + \
			 offsetof(struct stackid_frame, f))
#define PATH_F(f)	offsetof(struct stackid_build_id_path, f)
#define HDR_F(f)	offsetof(struct capture_hdr, f)

static const struct corrupt corrupts[] = {
	{ "bad magic", -1, 0, 1, 'X',
	  "not a stackid capture (bad magic at byte 0)" },
	{ "bad format version", -1, HDR_F(version), 4, 2,
	  "bad header at byte 8: format version 2" },
	{ "bad ABI major", -1, HDR_F(abi_version), 4, 2 << 16,
	  "bad header at byte 12: module ABI 2.0" },
	{ "bad header size", -1, HDR_F(hdr_size), 4, 40,
	  "bad header at byte 24: header size 40" },
	{ "nonzero reserved", -1, HDR_F(reserved), 4, 1,
	  "bad header at byte 28" },
	{ "record size not a multiple of 8", 2, 0, 4, 83,
	  "bad record size" },
	{ "record size 0", 2, 0, 4, 0, "bad record size" },
	{ "record size above STACKID_RECORD_MAX", 3, 0, 4,
	  STACKID_RECORD_MAX + 8, "bad record size" },
	{ "record ABI major", 3, offsetof(struct stackid_record_hdr,
					  abi_major), 2, 7,
	  "record ABI major 7, capture 1" },
	{ "frame count above the size", 2, SAMPLE_F(nr_frames), 2, 4,
	  "bad frame count" },
	{ "frame count too large", 2, SAMPLE_F(nr_frames), 2, 128,
	  "bad frame count" },
	{ "frame count 0xffff", 3, SAMPLE_F(nr_frames), 2, 0xffff,
	  "bad frame count" },
	{ "frame status 0 (empty)", 2, FRAME_F(1, status), 1, 0,
	  "bad frame status" },
	{ "frame status 3", 3, FRAME_F(0, status), 1, 3,
	  "bad frame status" },
	{ "valid frame build_id_len 0", 2, FRAME_F(0, build_id_len), 1, 0,
	  "bad build-id length" },
	{ "valid frame build_id_len 21", 2, FRAME_F(2, build_id_len), 1, 21,
	  "bad build-id length" },
	{ "ip frame with a build_id_len", 3, FRAME_F(1, build_id_len), 1, 4,
	  "bad build-id length" },
	{ "ip frame reason 0", 3, FRAME_F(1, reason), 1, 0,
	  "bad frame reason" },
	{ "ip frame reason out of range", 3, FRAME_F(1, reason), 1,
	  STACKID_IP_NR_REASONS, "bad frame reason" },
	{ "valid frame with a reason", 2, FRAME_F(0, reason), 1, 1,
	  "bad frame reason" },
	{ "path build_id_len 0", 1, PATH_F(build_id_len), 1, 0,
	  "bad build-id length" },
	{ "path build_id_len 21", 1, PATH_F(build_id_len), 1, 21,
	  "bad build-id length" },
	{ "path_len above STACKID_PATH_MAX", 1, PATH_F(path_len), 2,
	  STACKID_PATH_MAX + 1, "bad path length" },
	{ "path_len not matching the size", 1, PATH_F(path_len), 2, 3,
	  "path length does not match record size" },
	{ "path without its NUL", 1, sizeof(struct stackid_build_id_path) + 9,
	  1, 'x', "path not NUL-terminated" },
	{ "path with a NUL inside", 1, sizeof(struct stackid_build_id_path) + 2,
	  1, 0, "path not NUL-terminated" },
	{ "path record too short", 1, 0, 4, 32, "path record too short" },
};

static void build_small(struct capgen *g, size_t *offs)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct stackid_frame f[3];

	cg_header(g, STACKID_ABI_VERSION, 1000);
	f[0] = cg_valid(id, 20, 0x100);
	f[1] = cg_valid(id, 4, 0x200);
	f[2] = cg_valid(id, 20, 0x300);
	offs[0] = cg_sample(g, 2000, 0, 1, 1, "one", STACKID_SF_USER, 3, f);
	offs[1] = cg_path(g, id, 20, "/lib/x.so");	/* path_len 9 */
	offs[2] = cg_sample(g, 3000, 0, 2, 2, "two", STACKID_SF_USER, 3, f);
	f[1] = cg_ip(0x7000, STACKID_IP_NO_FILE);
	offs[3] = cg_sample(g, 4000, 0, 3, 3, "three", STACKID_SF_USER, 2, f);
}

static void test_corrupt(void)
{
	struct result r, fr;
	size_t offs[4], i;
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
			snprintf(want, sizeof(want), "stackid: t.cap: corrupt "
				 "record at byte %zu: %s", offs[c->rec],
				 c->msg);
		run(g.buf, g.len, FORMAT_TEXT, &r);
		run(g.buf, g.len, FORMAT_FOLDED, &fr);
		ok = r.status == EXIT_DATA && !strncmp(r.err, want,
						       strlen(want)) &&
		     fr.status == EXIT_DATA && !strcmp(fr.err, r.err);
		/* what came before the bad record is reported */
		if (c->rec >= 1)
			ok = ok && strstr(r.out, " one 1/1 ") &&
			     strstr(fr.out, "one;");
		if (c->rec >= 3)
			ok = ok && strstr(r.out, " two 2/2 ");
		if (c->rec < 0)
			ok = ok && !*r.out && !*fr.out;
		ok = ok && !strstr(fr.out, "three");
		tap_ok(ok, "corrupt %s: exit 3, '%s'%s", c->what, want,
		       ok ? "" : r.err);
		result_free(&r);
		result_free(&fr);
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
	tap_ok(stackid_path_record_size(STACKID_PATH_MAX) == STACKID_RECORD_MAX,
	       "the longest path record is STACKID_RECORD_MAX bytes");

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
	       !stackid_stat_name(STACKID_STAT_NR) &&
	       !stackid_ip_reason_name(STACKID_IP_NR_REASONS),
	       "stat and reason names");
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
	test_cuts();
	test_corrupt();
	test_misc();
	return tap_done();
}
