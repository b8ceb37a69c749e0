/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic captures for the tests, the benchmark and the fuzzer seeds:
 * a capture header and records laid out as the module writes them.
 */
#ifndef STACKID_CAPGEN_H
#define STACKID_CAPGEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stackid.h>
#include "tool/capture.h"

struct capgen {
	unsigned char *buf;
	size_t len, cap;
};

static inline void *cg_room(struct capgen *g, size_t n)
{
	void *p;

	if (g->len + n > g->cap) {
		g->cap = (g->len + n) * 2;
		g->buf = realloc(g->buf, g->cap);
		if (!g->buf)
			abort();
	}
	p = g->buf + g->len;
	memset(p, 0, n);
	g->len += n;
	return p;
}

static inline void cg_header(struct capgen *g, uint32_t abi, uint64_t start)
{
	struct capture_hdr h;

	capture_hdr_init(&h, abi, start);
	memcpy(cg_room(g, sizeof(h)), &h, sizeof(h));
}

static inline struct stackid_frame cg_valid(const unsigned char *id,
					    unsigned int len, uint64_t off)
{
	struct stackid_frame f = {
		.status = STACKID_FRAME_VALID,
		.build_id_len = len,
		.addr = off,
	};

	memcpy(f.build_id, id, len);
	return f;
}

static inline struct stackid_frame cg_ip(uint64_t addr, unsigned int reason)
{
	struct stackid_frame f = {
		.status = STACKID_FRAME_IP,
		.reason = reason,
		.addr = addr,
	};

	return f;
}

/* Returns the record's offset in the capture. */
static inline size_t cg_sample(struct capgen *g, uint64_t time_ns,
			       uint32_t cpu, uint32_t tgid, uint32_t tid,
			       const char *comm, uint32_t flags,
			       unsigned int nr, const struct stackid_frame *fr)
{
	size_t size = sizeof(struct stackid_sample) +
		      nr * sizeof(struct stackid_frame);
	size_t off = g->len;
	struct stackid_sample s = {
		.hdr = {
			.size = size,
			.type = STACKID_REC_SAMPLE,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.flags = flags,
		.cpu = cpu,
		.tgid = tgid,
		.tid = tid,
		.time_ns = time_ns,
		.nr_frames = nr,
	};
	unsigned char *p;

	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	p = cg_room(g, size);
	memcpy(p, &s, sizeof(s));
	if (nr)
		memcpy(p + sizeof(s), fr, nr * sizeof(*fr));
	return off;
}

static inline size_t cg_path(struct capgen *g, const unsigned char *id,
			     unsigned int len, const char *path)
{
	size_t plen = strlen(path), off = g->len;
	size_t size = (sizeof(struct stackid_build_id_path) + plen + 1 + 7) &
		      ~(size_t)7;
	struct stackid_build_id_path bp = {
		.hdr = {
			.size = size,
			.type = STACKID_REC_BUILD_ID_PATH,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.build_id_len = len,
		.path_len = plen,
	};
	unsigned char *p;

	memcpy(bp.build_id, id, len);
	p = cg_room(g, size);
	memcpy(p, &bp, sizeof(bp));
	memcpy(p + sizeof(bp), path, plen);
	return off;
}

/* A record of a type no reader knows: skipped by its size. */
static inline size_t cg_unknown(struct capgen *g, uint16_t type, size_t size)
{
	struct stackid_record_hdr h = {
		.size = size,
		.type = type,
		.abi_major = STACKID_ABI_MAJOR,
	};
	size_t off = g->len;

	memcpy(cg_room(g, size), &h, sizeof(h));
	return off;
}

#define CG_DEMO_START	1000000000000ULL

/*
 * The demo capture: what test/unit/report/demo.text and demo.folded
 * expect (reported with --no-symbols). Build-ids of 20, 16, 8 and 1
 * bytes, path records, ip frames, odd comms and flags, a sample before
 * the start, a record of an unknown type.
 */
static inline void cg_demo(struct capgen *g)
{
	static const unsigned char a[20] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
		0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13,
	};
	static const unsigned char b[16] = {
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
		0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
	};
	static const unsigned char c[8] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	static const unsigned char d[1] = { 0x5a };
	const uint64_t t0 = CG_DEMO_START;
	struct stackid_frame f[4];

	cg_header(g, STACKID_ABI_VERSION, t0);
	cg_path(g, a, sizeof(a), "/usr/lib/libA.so.1");
	f[0] = cg_valid(a, sizeof(a), 0x1234);
	f[1] = cg_valid(b, sizeof(b), 0x5678);
	f[2] = cg_valid(b, sizeof(b), 0x1000);
	cg_sample(g, t0 + 1500, 0, 100, 100, "app", STACKID_SF_USER, 3, f);
	cg_path(g, b, sizeof(b), "/opt/app/bin/app");
	cg_sample(g, t0 + 2000000, 1, 100, 101, "app", STACKID_SF_USER, 3, f);
	f[0] = cg_ip(0x7ffd0000, STACKID_IP_NO_VMA);
	f[1] = cg_valid(a, sizeof(a), 0x10);
	f[2] = cg_valid(c, sizeof(c), 0x20);
	cg_sample(g, t0 + 1000000000, 3, 100, 100, "app",
		  STACKID_SF_USER | STACKID_SF_TRUNCATED, 3, f);
	cg_path(g, d, sizeof(d), "/tmp/we;rd\tname.so");
	f[0] = cg_valid(d, sizeof(d), 0x1);
	cg_sample(g, t0 + 1234567890, 2, 7, 7, "semi;colon", 0, 1, f);
	cg_unknown(g, 99, 24);
	cg_sample(g, t0 + 3000000000ULL, 1, 8, 8, "", STACKID_SF_COMPAT | 0x100,
		  0, f);
	f[0] = cg_ip(0x401000, STACKID_IP_RESOLVE_OFF);
	cg_sample(g, t0 + 3000000001ULL, 0, 9, 10, "abcdefghijklmnopq",
		  STACKID_SF_USER, 1, f);
	f[0] = cg_valid(a, sizeof(a), 0x1234);
	f[1] = cg_valid(b, sizeof(b), 0x5678);
	f[2] = cg_valid(b, sizeof(b), 0x1000);
	cg_sample(g, t0 - 5000, 0, 200, 200, "app2", STACKID_SF_USER, 3, f);
	cg_sample(g, t0 + 4000000000ULL, 1, 100, 102, "app", STACKID_SF_USER,
		  3, f);
}

static inline void cg_free(struct capgen *g)
{
	free(g->buf);
	memset(g, 0, sizeof(*g));
}

#endif /* STACKID_CAPGEN_H */
