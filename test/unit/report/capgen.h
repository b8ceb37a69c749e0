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

#include <stdbool.h>

#include <stackid.h>
#include "abi1.h"
#include "packed.h"
#include "delta.h"
#include "tool/capture.h"

/* A frame as a test describes it; cg_sample() encodes it for the ABI. */
struct cg_frame {
	uint8_t status;		/* enum stackid_frame_status */
	uint8_t reason;		/* of the capture's ABI */
	uint8_t len;
	unsigned char id[STACKID_BUILD_ID_SIZE];
	uint64_t addr;		/* kernel: the offset into kname */
	const char *kname;	/* kernel: NULL, not named (addr 0) */
	const char *kmod;	/* kernel: the module, NULL or "": vmlinux */
};

#define CG_MAX_IDS	512
#define CG_MAX_KSYMS	64

/*
 * A capture being built: records of ABI 2, or of ABI 1 when the header
 * says so (cg_header() with an ABI 1 version). For ABI 2, cg_sample()
 * writes a STACKID_REC_BUILD_ID record the first time a ring (the
 * sample's cpu) uses a build-id, as the module does.
 */
struct capgen {
	unsigned char *buf;
	size_t len, cap;
	unsigned int abi;	/* 1 or 2 */
	struct cg_def {
		uint16_t ring, index;
		uint8_t len;
		unsigned char id[STACKID_BUILD_ID_SIZE];
	} defs[CG_MAX_IDS];
	unsigned int ndefs;
	uint16_t next[256];	/* per ring: the last index given */
	/* kernel symbols, by (ring, address) as the module keys them */
	struct cg_kdef {
		uint16_t ring, index;
		uint64_t off;
		char name[STACKID_KSYM_NAME_MAX + 1];
		char mod[STACKID_KSYM_MODULE_MAX + 1];
	} kdefs[CG_MAX_KSYMS];
	unsigned int nkdefs;
	uint16_t knext[256];	/* per ring: the last kernel index given */
	bool packed;		/* ABI 2.4's packed samples where they fit */
	bool delta;		/* ... and ABI 2.6's delta samples */
	struct stackid_delta_base *dbase;	/* per ring (delta.h) */
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

	g->abi = abi >> 16 == STACKID1_ABI_MAJOR ? 1 : 2;
	capture_hdr_init(&h, abi, start);
	memcpy(cg_room(g, sizeof(h)), &h, sizeof(h));
}

static inline uint16_t cg_major(const struct capgen *g)
{
	return g->abi == 1 ? STACKID1_ABI_MAJOR : STACKID_ABI_MAJOR;
}

static inline struct cg_frame cg_valid(const unsigned char *id,
				       unsigned int len, uint64_t off)
{
	struct cg_frame f = {
		.status = STACKID_FRAME_VALID,
		.len = len,
		.addr = off,
	};

	memcpy(f.id, id, len);
	return f;
}

static inline struct cg_frame cg_ip(uint64_t addr, unsigned int reason)
{
	struct cg_frame f = {
		.status = STACKID_FRAME_IP,
		.reason = reason,
		.addr = addr,
	};

	return f;
}

/*
 * A kernel frame: function @name (NULL: an address in no symbol, then
 * @off must be 0) in module @mod (NULL or "": the kernel), @off into it.
 */
static inline struct cg_frame cg_kernel(const char *name, const char *mod,
					uint64_t off)
{
	struct cg_frame f = {
		.status = STACKID_FRAME_KERNEL,
		.addr = off,
		.kname = name,
		.kmod = mod ? mod : "",
	};

	return f;
}

/*
 * ABI 2: a STACKID_REC_KSYM record as the module writes it (name, module,
 * NUL, zero padding), defining @index of @ring; returns its offset.
 */
static inline size_t cg_ksym(struct capgen *g, unsigned int ring,
			     unsigned int index, const char *name,
			     const char *mod)
{
	size_t nlen = strlen(name), mlen = mod ? strlen(mod) : 0;
	size_t size = (sizeof(struct stackid_ksym) + nlen + mlen + 1 + 7) &
		      ~(size_t)7;
	struct stackid_ksym k = {
		.hdr = {
			.size = size,
			.type = STACKID_REC_KSYM,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.ring = ring,
		.index = index,
		.name_len = nlen,
		.module_len = mlen,
	};
	size_t off = g->len;
	unsigned char *p = cg_room(g, size);

	memcpy(p, &k, sizeof(k));
	memcpy(p + sizeof(k), name, nlen);
	if (mlen)
		memcpy(p + sizeof(k) + nlen, mod, mlen);
	return off;
}

/*
 * ABI 2: @ring's index for kernel frame @f, defined by a STACKID_REC_KSYM
 * record if new. The module keys its symbols by address, so one function
 * at two offsets has two indexes (two records of the same name).
 */
static inline uint16_t cg_kindex(struct capgen *g, unsigned int ring,
				 const struct cg_frame *f)
{
	const char *mod = f->kmod ? f->kmod : "";
	struct cg_kdef *d;
	unsigned int i;

	for (i = 0; i < g->nkdefs; i++) {
		d = &g->kdefs[i];
		if (d->ring == ring && d->off == f->addr &&
		    !strcmp(d->name, f->kname) && !strcmp(d->mod, mod))
			return d->index;
	}
	if (g->nkdefs == CG_MAX_KSYMS || ring >= 256 ||
	    strlen(f->kname) > STACKID_KSYM_NAME_MAX ||
	    strlen(mod) > STACKID_KSYM_MODULE_MAX)
		abort();
	d = &g->kdefs[g->nkdefs++];
	d->ring = ring;
	d->off = f->addr;
	strcpy(d->name, f->kname);
	strcpy(d->mod, mod);
	d->index = ++g->knext[ring];
	cg_ksym(g, ring, d->index, f->kname, mod);
	return d->index;
}

/*
 * ABI 2: a STACKID_REC_CGROUP record naming cgroup @id @path (NUL,
 * zero padding); returns its offset.
 */
static inline size_t cg_cgroup(struct capgen *g, uint64_t id,
			       const char *path)
{
	size_t plen = strlen(path);
	size_t size = (sizeof(struct stackid_cgroup) + plen + 1 + 7) &
		      ~(size_t)7;
	struct stackid_cgroup cg = {
		.hdr = {
			.size = size,
			.type = STACKID_REC_CGROUP,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.id = id,
		.path_len = plen,
	};
	size_t off = g->len;
	unsigned char *p = cg_room(g, size);

	memcpy(p, &cg, sizeof(cg));
	memcpy(p + sizeof(cg), path, plen);
	return off;
}

/* ABI 2: @ring's index for build-id @f, defined by a record if new. */
static inline uint16_t cg_index(struct capgen *g, unsigned int ring,
				const struct cg_frame *f)
{
	struct stackid_build_id b = {
		.hdr = {
			.size = sizeof(b),
			.type = STACKID_REC_BUILD_ID,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.ring = ring,
		.build_id_len = f->len,
	};
	struct cg_def *d;
	unsigned int i;

	for (i = 0; i < g->ndefs; i++) {
		d = &g->defs[i];
		if (d->ring == ring && d->len == f->len &&
		    !memcmp(d->id, f->id, f->len))
			return d->index;
	}
	if (g->ndefs == CG_MAX_IDS || ring >= 256)
		abort();
	d = &g->defs[g->ndefs++];
	d->ring = ring;
	d->len = f->len;
	memcpy(d->id, f->id, f->len);
	d->index = ++g->next[ring];
	b.index = d->index;
	memcpy(b.build_id, f->id, f->len);
	memcpy(cg_room(g, sizeof(b)), &b, sizeof(b));
	return d->index;
}

static inline size_t cg_sample1(struct capgen *g, uint64_t time_ns,
				uint32_t cpu, uint32_t tgid, uint32_t tid,
				const char *comm, uint32_t flags,
				unsigned int nr, const struct cg_frame *fr)
{
	size_t size = sizeof(struct stackid1_sample) +
		      nr * sizeof(struct stackid1_frame);
	size_t off = g->len;
	struct stackid1_sample s = {
		.hdr = {
			.size = size,
			.type = STACKID_REC_SAMPLE,
			.abi_major = STACKID1_ABI_MAJOR,
		},
		.flags = flags,
		.cpu = cpu,
		.tgid = tgid,
		.tid = tid,
		.time_ns = time_ns,
		.nr_frames = nr,
	};
	unsigned char *p;
	unsigned int i;

	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	p = cg_room(g, size);
	memcpy(p, &s, sizeof(s));
	for (i = 0; i < nr; i++) {
		struct stackid1_frame f = {
			.status = fr[i].status,
			.reason = fr[i].reason,
			.build_id_len = fr[i].len,
			.addr = fr[i].addr,
		};

		memcpy(f.build_id, fr[i].id, fr[i].len);
		memcpy(p + sizeof(s) + i * sizeof(f), &f, sizeof(f));
	}
	return off;
}

/*
 * Write the ABI 2 sample @s with its @nr frames @f, packed
 * (STACKID_REC_SAMPLE_PACKED) if @pack and every frame packs, as the
 * module does for a reader that asked; sets its type and size. Returns
 * the record's offset in the capture.
 */
static inline size_t cg_put_sample(struct capgen *g, struct stackid_sample *s,
				   const struct stackid_frame *f,
				   unsigned int nr, bool pack)
{
	size_t off = g->len;
	unsigned char *p;
	unsigned int i;

	for (i = 0; pack && i < nr; i++)
		if (!stackid_frame_packs(&f[i]))
			break;
	pack = pack && i == nr;
	s->hdr.type = pack ? STACKID_REC_SAMPLE_PACKED : STACKID_REC_SAMPLE;
	s->hdr.size = sizeof(*s) + nr * (pack ? sizeof(uint64_t) :
						sizeof(f[0]));
	if (g->delta && s->ring < 256) {
		struct stackid_delta_base *b;
		uint64_t v[STACKID_MAX_DEPTH];
		struct stackid_sample_delta d;
		int same = -1;

		if (!g->dbase)
			g->dbase = calloc(256, sizeof(*g->dbase));
		b = &g->dbase[s->ring];
		if (!pack) {
			stackid_delta_forget(b);
		} else {
			for (i = 0; i < nr; i++)
				v[i] = stackid_frame_pack(&f[i]);
			same = stackid_delta_same(b, s, v);
			stackid_delta_take(b, s, v, same >= 0);
		}
		if (same >= 0) {
			stackid_delta_hdr(&d, s, same);
			p = cg_room(g, d.hdr.size);
			memcpy(p, &d, sizeof(d));
			memcpy(p + sizeof(d), v, d.hdr.size - sizeof(d));
			return off;
		}
	}
	p = cg_room(g, s->hdr.size);
	memcpy(p, s, sizeof(*s));
	for (i = 0; i < nr; i++) {
		uint64_t v;

		if (!pack) {
			memcpy(p + sizeof(*s) + i * sizeof(f[0]), &f[i],
			       sizeof(f[0]));
			continue;
		}
		v = stackid_frame_pack(&f[i]);
		memcpy(p + sizeof(*s) + i * sizeof(v), &v, sizeof(v));
	}
	return off;
}

/*
 * ABI 2: a sample whose first @nk of @nr frames are kernel frames
 * (cg_kernel()), in cgroup @cgroup_id (0: none), ring = cpu; returns the
 * sample record's offset in the capture. The records it needs come just
 * before it as the module writes them: build-ids first, then kernel
 * symbols, each the first time its ring uses it. @flags as given (the
 * module sets STACKID_SF_KERNEL with kernel frames).
 */
static inline size_t cg_sample_k(struct capgen *g, uint64_t time_ns,
				 uint32_t cpu, uint32_t tgid, uint32_t tid,
				 const char *comm, uint32_t flags,
				 unsigned int nr, const struct cg_frame *fr,
				 unsigned int nk, uint64_t cgroup_id)
{
	struct stackid_sample s = {
		/* type and size: cg_put_sample() */
		.hdr = { .abi_major = STACKID_ABI_MAJOR },
		.flags = flags,
		.cpu = cpu,
		.tgid = tgid,
		.tid = tid,
		.time_ns = time_ns,
		.nr_frames = nr,
		.nr_kernel = nk,
		.ring = cpu,
		.cgroup_id = cgroup_id,
	};
	struct stackid_frame f[STACKID_MAX_DEPTH];
	unsigned int i;

	for (i = 0; i < nr; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].status = fr[i].status;
		f[i].reason = fr[i].reason;
		f[i].addr = fr[i].addr;
		if (fr[i].status == STACKID_FRAME_VALID)
			f[i].bid = cg_index(g, cpu, &fr[i]);
	}
	for (i = 0; i < nr; i++)
		if (fr[i].status == STACKID_FRAME_KERNEL && fr[i].kname)
			f[i].bid = cg_kindex(g, cpu, &fr[i]);
	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	return cg_put_sample(g, &s, f, nr, g->packed);
}

/*
 * A sample, ring = cpu; returns the sample record's offset in the
 * capture (any build-id records it needs come just before it).
 */
static inline size_t cg_sample(struct capgen *g, uint64_t time_ns,
			       uint32_t cpu, uint32_t tgid, uint32_t tid,
			       const char *comm, uint32_t flags,
			       unsigned int nr, const struct cg_frame *fr)
{
	if (g->abi == 1)
		return cg_sample1(g, time_ns, cpu, tgid, tid, comm, flags,
				  nr, fr);
	return cg_sample_k(g, time_ns, cpu, tgid, tid, comm, flags, nr, fr,
			   0, 0);
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
			.abi_major = cg_major(g),
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
		.abi_major = cg_major(g),
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
 * the start, a record of an unknown type. @abi1: the same in ABI 1's
 * records (an old capture), which must report the same.
 */
static inline void cg_demo_abi(struct capgen *g, bool abi1)
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
	struct cg_frame f[4];

	cg_header(g, abi1 ? STACKID1_ABI_MAJOR << 16 : STACKID_ABI_VERSION, t0);
	cg_path(g, a, sizeof(a), "/usr/lib/libA.so.1");
	f[0] = cg_valid(a, sizeof(a), 0x1234);
	f[1] = cg_valid(b, sizeof(b), 0x5678);
	f[2] = cg_valid(b, sizeof(b), 0x1000);
	cg_sample(g, t0 + 1500, 0, 100, 100, "app", STACKID_SF_USER, 3, f);
	cg_path(g, b, sizeof(b), "/opt/app/bin/app");
	cg_sample(g, t0 + 2000000, 1, 100, 101, "app", STACKID_SF_USER, 3, f);
	f[0] = cg_ip(0x7ffd0000, abi1 ? STACKID1_IP_NO_VMA : STACKID_IP_NO_VMA);
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
	f[0] = cg_ip(0x401000, abi1 ? STACKID1_IP_RESOLVE_OFF :
				      STACKID_IP_RESOLVE_OFF);
	cg_sample(g, t0 + 3000000001ULL, 0, 9, 10, "abcdefghijklmnopq",
		  STACKID_SF_USER, 1, f);
	f[0] = cg_valid(a, sizeof(a), 0x1234);
	f[1] = cg_valid(b, sizeof(b), 0x5678);
	f[2] = cg_valid(b, sizeof(b), 0x1000);
	cg_sample(g, t0 - 5000, 0, 200, 200, "app2", STACKID_SF_USER, 3, f);
	cg_sample(g, t0 + 4000000000ULL, 1, 100, 102, "app", STACKID_SF_USER,
		  3, f);
}

static inline void cg_demo(struct capgen *g)
{
	cg_demo_abi(g, false);
}

/*
 * The kernel-frame and cgroup capture (ABI 2), as the module writes it:
 * kernel frames of the kernel and of a module (ext4), one function at two
 * offsets in two rings, a kernel frame in no symbol; cgroups /a, /a/b
 * (named only after its first sample, from another ring), /ab, one id
 * never named (99) and a sample without a cgroup.
 */
static inline void cg_kdemo(struct capgen *g)
{
	static const unsigned char u[4] = { 0x11, 0x22, 0x33, 0x44 };
	const uint64_t t0 = CG_DEMO_START;
	struct cg_frame f[5];

	cg_header(g, STACKID_ABI_VERSION, t0);
	cg_cgroup(g, 11, "/a");
	cg_cgroup(g, 13, "/ab");
	f[0] = cg_kernel("ext4_file_read_iter", "ext4", 0x40);
	f[1] = cg_kernel("vfs_read", NULL, 0x1a);
	f[2] = cg_kernel("ksys_read", NULL, 0x9);
	f[3] = cg_valid(u, sizeof(u), 0x100);
	f[4] = cg_valid(u, sizeof(u), 0x200);
	cg_sample_k(g, t0 + 1000, 0, 10, 10, "kapp", STACKID_SF_KERNEL, 5, f,
		    3, 11);
	f[1] = cg_kernel("vfs_read", NULL, 0x2b);
	cg_sample_k(g, t0 + 2000, 1, 10, 11, "kapp", STACKID_SF_KERNEL, 5, f,
		    3, 12);
	cg_cgroup(g, 12, "/a/b");
	f[1] = cg_kernel(NULL, NULL, 0);
	f[2] = cg_kernel("vfs_read", NULL, 0x1a);
	cg_sample_k(g, t0 + 3000, 0, 10, 10, "kapp", STACKID_SF_KERNEL, 4,
		    f + 1, 2, 13);
	f[0] = cg_valid(u, sizeof(u), 0x300);
	cg_sample_k(g, t0 + 4000, 0, 20, 20, "uapp", STACKID_SF_USER, 1, f,
		    0, 99);
	cg_sample_k(g, t0 + 5000, 1, 20, 20, "uapp", STACKID_SF_USER, 1, f,
		    0, 0);
}

static inline void cg_free(struct capgen *g)
{
	free(g->buf);
	free(g->dbase);
	memset(g, 0, sizeof(*g));
}

#endif /* STACKID_CAPGEN_H */
