// SPDX-License-Identifier: GPL-2.0
/*
 * --format pprof: a gzip-compressed profile.proto, as `go tool pprof`,
 * Grafana Pyroscope, Parca and OpenTelemetry's converters read it.
 *
 * Written from the field numbers documented in pprof's profile.proto
 * (github.com/google/pprof, proto/profile.proto) with our own encoder
 * (pb.c); no code of pprof's is used.
 *
 * What goes in:
 *  - sample types samples/count and cpu/nanoseconds, the period
 *    1e9 / frequency ns (the frequency from the capture's INFO record;
 *    DEFAULT_HZ, the module's default, for captures without one);
 *  - one Sample per distinct (stack, pid, tid, cpu, comm, cgroup), with
 *    those as string labels (pprof drops a numeric label of value 0,
 *    which CPU 0 is, and Pyroscope reads string labels); cgroup only for
 *    a sample that has one: its path, or "[cgroup ID]" if the capture
 *    never named it;
 *  - one Mapping per build-id: build_id as lower-case hex, filename the
 *    first path the capture gave for it, memory_start 0 and file_offset
 *    0, so that a Location's address IS the file offset: a backend that
 *    symbolizes by build-id maps it with the file's program headers as we
 *    do. Raw-address frames get Locations without a Mapping;
 *  - Lines and Functions where stackid found a symbol (a Location without
 *    Lines is left for the backend to symbolize). Addresses are as
 *    recorded: every frame but the innermost is a return address.
 *  - kernel frames: one Mapping for the kernel, filename
 *    "[kernel.kallsyms]", and one per module, "[MODULE]" (no build-id:
 *    the capture names the functions); a Location per function and
 *    offset, whose address is the offset into the function, with the
 *    function's Line ("[unknown]" where the module could not name it);
 *  - time_nanos: the capture's wall-clock start (from INFO; left out
 *    without it); duration_nanos: from start to the END record, or to
 *    the last sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pb.h"
#include "pprof.h"
#include "report.h"
#include "symbolize.h"
#include "tool.h"

#define DEFAULT_HZ	99

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
};
enum { VALUETYPE_TYPE = 1, VALUETYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT,
	MAPPING_FILE_OFFSET, MAPPING_FILENAME, MAPPING_BUILD_ID,
	MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS,
	MAPPING_HAS_INLINE_FRAMES,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum {
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME,
	FUNCTION_FILENAME,
};

/* A sample's key: these, then one location index per frame. */
struct skey {
	uint32_t tgid, tid, cpu, comm;	/* comm: string index */
	uint64_t cgroup;		/* id, 0: none */
};

/* A location's key. */
struct lkey {
	uint32_t bid;		/* mapping index + 1; 0: raw address */
	uint32_t ret;		/* a return address */
	uint64_t addr;		/* kernel: offset into kfunc */
	uint32_t kmod;		/* kernel: module index + 1 ("": vmlinux) */
	uint32_t kfunc;		/* kernel: rframe.bid + 1; 0: not named */
};

/* A function's key: string indices. */
struct fkey {
	uint32_t name, system_name, file;
};

struct pp {
	struct report *rp;
	struct intern strs, samples, bids, locs, funcs;
	struct intern kmods;	/* kernel modules ("" the kernel) */
	uint64_t *klimit;	/* by kernel module: highest offset + 1 */
	unsigned int kcap;
	uint64_t *counts;
	unsigned int ccap;
	uint64_t *limit;	/* by mapping: highest offset + 1 */
	bool *has_funcs;	/* by mapping */
	unsigned int mcap;
	struct strbuf tmp;
};

static uint32_t str(struct pp *p, const char *s)
{
	return intern_bytes(&p->strs, s, strlen(s));
}

static uint32_t mapping(struct pp *p, const struct rframe *f)
{
	unsigned int n = p->bids.n,
		     i = intern_bytes(&p->bids, f->build_id, f->build_id_len);

	if (p->bids.n != n && i >= p->mcap) {
		p->mcap = p->mcap ? p->mcap * 2 : 16;
		p->limit = xreallocarray(p->limit, p->mcap, sizeof(*p->limit));
		p->has_funcs = xreallocarray(p->has_funcs, p->mcap,
					     sizeof(*p->has_funcs));
	}
	if (p->bids.n != n) {
		p->limit[i] = 0;
		p->has_funcs[i] = false;
	}
	if (f->addr >= p->limit[i])
		p->limit[i] = f->addr + 1;
	return i + 1;
}

/* A kernel frame's mapping: its module's index + 1. */
static uint32_t kmapping(struct pp *p, const struct rframe *f)
{
	const char *mod = f->kname ? f->kmodule : "";
	unsigned int n = p->kmods.n,
		     i = intern_bytes(&p->kmods, mod, strlen(mod));

	if (p->kmods.n != n && i >= p->kcap) {
		p->kcap = p->kcap ? p->kcap * 2 : 8;
		p->klimit = xreallocarray(p->klimit, p->kcap,
					  sizeof(*p->klimit));
	}
	if (p->kmods.n != n)
		p->klimit[i] = 0;
	if (f->addr >= p->klimit[i])
		p->klimit[i] = f->addr + 1;
	return i + 1;
}

static void add(struct pp *p, const struct rsample *s)
{
	struct skey k = {
		.tgid = s->tgid, .tid = s->tid, .cpu = s->cpu,
		.cgroup = s->cgroup_id,
	};
	uint32_t key[sizeof(k) / 4 + STACKID_MAX_DEPTH];
	unsigned int i, n = p->samples.n, idx;

	sb_reset(&p->tmp);
	render_comm(&p->rp->r, &p->tmp, s->comm);
	k.comm = str(p, p->tmp.buf);
	memcpy(key, &k, sizeof(k));
	for (i = 0; i < s->nr_frames; i++) {
		const struct rframe *f = &s->frames[i];
		struct lkey l = { .addr = f->addr, .ret = i > 0 };

		if (f->status == STACKID_FRAME_VALID) {
			l.bid = mapping(p, f);
		} else if (f->status == STACKID_FRAME_KERNEL) {
			l.ret = 0;
			l.kmod = kmapping(p, f);
			l.kfunc = f->kname ? f->bid + 1 : 0;
		} else {
			l.ret = 0;
		}
		key[sizeof(k) / 4 + i] = intern_bytes(&p->locs, &l, sizeof(l));
	}
	idx = intern_bytes(&p->samples, key, sizeof(k) + 4 * i);
	if (p->samples.n != n && idx >= p->ccap) {
		p->ccap = p->ccap ? p->ccap * 2 : 1024;
		p->counts = xreallocarray(p->counts, p->ccap,
					  sizeof(*p->counts));
	}
	if (p->samples.n != n)
		p->counts[idx] = 0;
	p->counts[idx]++;
}

static void value_type(struct pp *p, struct strbuf *out, unsigned int field,
		       const char *type, const char *unit)
{
	struct strbuf m = { 0 };

	pb_uint(&m, VALUETYPE_TYPE, str(p, type));
	pb_uint(&m, VALUETYPE_UNIT, str(p, unit));
	pb_bytes(out, field, m.buf, m.len);
	sb_free(&m);
}

static void label(struct pp *p, struct strbuf *out, const char *key,
		  const char *s, uint64_t num)
{
	struct strbuf m = { 0 };
	char n[24];

	if (!s) {
		snprintf(n, sizeof(n), "%llu", (unsigned long long)num);
		s = n;
	}
	pb_uint(&m, LABEL_KEY, str(p, key));
	pb_uint(&m, LABEL_STR, str(p, s));
	pb_bytes(out, SAMPLE_LABEL, m.buf, m.len);
	sb_free(&m);
}

static void samples(struct pp *p, struct strbuf *out, uint64_t period)
{
	struct strbuf m = { 0 };
	uint64_t ids[STACKID_MAX_DEPTH], v[2];
	unsigned int i, j, nf;
	struct skey k;

	for (i = 0; i < p->samples.n; i++) {
		const uint32_t *key = (const void *)intern_str(&p->samples, i);

		memcpy(&k, key, sizeof(k));
		nf = (intern_len(&p->samples, i) - sizeof(k)) / 4;
		for (j = 0; j < nf; j++)
			ids[j] = key[sizeof(k) / 4 + j] + 1;
		sb_reset(&m);
		pb_packed(&m, SAMPLE_LOCATION_ID, ids, nf);
		v[0] = p->counts[i];
		v[1] = p->counts[i] * period;
		pb_packed(&m, SAMPLE_VALUE, v, 2);
		label(p, &m, "pid", NULL, k.tgid);
		label(p, &m, "tid", NULL, k.tid);
		label(p, &m, "cpu", NULL, k.cpu);
		label(p, &m, "comm", intern_str(&p->strs, k.comm), 0);
		if (k.cgroup) {
			sb_reset(&p->tmp);
			report_cgroup_name(p->rp, k.cgroup, &p->tmp);
			label(p, &m, "cgroup", p->tmp.buf, 0);
		}
		pb_bytes(out, PROFILE_SAMPLE, m.buf, m.len);
	}
	sb_free(&m);
}

static uint32_t function(struct pp *p, const char *name, const char *sysname,
			 const char *file)
{
	struct fkey k = {
		.name = str(p, name),
		.system_name = str(p, sysname ? sysname : name),
		.file = str(p, file ? file : ""),
	};

	return intern_bytes(&p->funcs, &k, sizeof(k)) + 1;
}

static void line(struct strbuf *loc, uint32_t func, uint64_t lineno)
{
	struct strbuf m = { 0 };

	pb_uint(&m, LINE_FUNCTION_ID, func);
	if (lineno)
		pb_uint(&m, LINE_LINE, lineno);
	pb_bytes(loc, LOCATION_LINE, m.buf, m.len);
	sb_free(&m);
}

static void locations(struct pp *p, struct strbuf *out)
{
	struct strbuf m = { 0 };
	struct sym sym;
	struct lkey k;
	unsigned int i, j;

	for (i = 0; i < p->locs.n; i++) {
		memcpy(&k, intern_str(&p->locs, i), sizeof(k));
		sb_reset(&m);
		pb_uint(&m, LOCATION_ID, i + 1);
		if (k.bid)
			pb_uint(&m, LOCATION_MAPPING_ID, k.bid);
		if (k.kmod)
			pb_uint(&m, LOCATION_MAPPING_ID, p->bids.n + k.kmod);
		pb_uint(&m, LOCATION_ADDRESS, k.addr);
		if (k.kmod) {
			const char *name = k.kfunc ?
				intern_str(&p->rp->ksym_nums, k.kfunc - 1) :
				"[unknown]";

			line(&m, function(p, name, NULL, NULL), 0);
		}
		if (k.bid && p->rp->sym) {
			const char *id = intern_str(&p->bids, k.bid - 1);

			symbolize(p->rp->sym, (const unsigned char *)id,
				  intern_len(&p->bids, k.bid - 1), k.addr,
				  k.ret, &sym);
			/* inlined callees first, the real function last */
			for (j = 0; j < sym.ninline; j++)
				line(&m, function(p, sym.inl[j].func,
						  sym.inl[j].sysname,
						  sym.inl[j].src),
				     sym.inl[j].line);
			if (sym.func) {
				line(&m, function(p, sym.func, sym.sysname,
						  sym.src), sym.line);
				p->has_funcs[k.bid - 1] = true;
			}
		}
		pb_bytes(out, PROFILE_LOCATION, m.buf, m.len);
	}
	sb_free(&m);
}

static void mappings(struct pp *p, struct strbuf *out)
{
	struct strbuf m = { 0 }, hex = { 0 };
	unsigned int i;

	for (i = 0; i < p->bids.n; i++) {
		const unsigned char *id = (const void *)intern_str(&p->bids, i);
		unsigned int len = intern_len(&p->bids, i);
		const char *path = report_path_of(p->rp, id, len);

		sb_reset(&m);
		sb_reset(&hex);
		sb_addhex(&hex, id, len);
		pb_uint(&m, MAPPING_ID, i + 1);
		pb_uint(&m, MAPPING_MEMORY_LIMIT, p->limit[i]);
		if (path)
			pb_uint(&m, MAPPING_FILENAME, str(p, path));
		pb_uint(&m, MAPPING_BUILD_ID, str(p, hex.buf));
		if (p->has_funcs[i])
			pb_uint(&m, MAPPING_HAS_FUNCTIONS, 1);
		if (p->has_funcs[i] && p->rp->o->lines) {
			pb_uint(&m, MAPPING_HAS_FILENAMES, 1);
			pb_uint(&m, MAPPING_HAS_LINE_NUMBERS, 1);
			pb_uint(&m, MAPPING_HAS_INLINE_FRAMES, 1);
		}
		pb_bytes(out, PROFILE_MAPPING, m.buf, m.len);
	}
	for (i = 0; i < p->kmods.n; i++) {
		const char *mod = intern_str(&p->kmods, i);

		sb_reset(&m);
		sb_reset(&hex);
		if (*mod)
			sb_addf(&hex, "[%s]", mod);
		else
			sb_adds(&hex, "[kernel.kallsyms]");
		pb_uint(&m, MAPPING_ID, p->bids.n + i + 1);
		pb_uint(&m, MAPPING_MEMORY_LIMIT, p->klimit[i]);
		pb_uint(&m, MAPPING_FILENAME, str(p, hex.buf));
		pb_uint(&m, MAPPING_HAS_FUNCTIONS, 1);
		pb_bytes(out, PROFILE_MAPPING, m.buf, m.len);
	}
	sb_free(&m);
	sb_free(&hex);
}

static void functions(struct pp *p, struct strbuf *out)
{
	struct strbuf m = { 0 };
	struct fkey k;
	unsigned int i;

	for (i = 0; i < p->funcs.n; i++) {
		memcpy(&k, intern_str(&p->funcs, i), sizeof(k));
		sb_reset(&m);
		pb_uint(&m, FUNCTION_ID, i + 1);
		pb_uint(&m, FUNCTION_NAME, k.name);
		pb_uint(&m, FUNCTION_SYSTEM_NAME, k.system_name);
		if (k.file)
			pb_uint(&m, FUNCTION_FILENAME, k.file);
		pb_bytes(out, PROFILE_FUNCTION, m.buf, m.len);
	}
	sb_free(&m);
}

static void encode(struct pp *p, struct strbuf *out)
{
	const struct capture_meta *meta = &p->rp->meta;
	uint64_t start = p->rp->c->hdr.start_ns;
	uint64_t hz = meta->freq_hz ? meta->freq_hz : DEFAULT_HZ;
	uint64_t period = 1000000000 / hz, cpu, wall;
	unsigned int i;

	value_type(p, out, PROFILE_SAMPLE_TYPE, "samples", "count");
	value_type(p, out, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	samples(p, out, period);
	/* locations first: they find which mappings have functions */
	{
		struct strbuf locs = { 0 };

		locations(p, &locs);
		mappings(p, out);
		sb_add(out, locs.buf, locs.len);
		sb_free(&locs);
	}
	functions(p, out);
	wall = report_wall_ns(p->rp, start);
	if (wall)
		pb_uint(out, PROFILE_TIME_NANOS, wall);
	pb_uint(out, PROFILE_DURATION_NANOS, report_end_ns(p->rp) - start);
	value_type(p, out, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	pb_uint(out, PROFILE_PERIOD, period);
	pb_uint(out, PROFILE_COMMENT, str(p, "stackid " STACKID_VERSION));
	cpu = str(p, "cpu");
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, cpu);
	/* the string table last: every string is known by now */
	for (i = 0; i < p->strs.n; i++)
		pb_bytes(out, PROFILE_STRING_TABLE, intern_str(&p->strs, i),
			 intern_len(&p->strs, i));
}

int pprof_gzip(const void *in, size_t n, struct strbuf *out)
{
	z_stream z = { 0 };
	int ret;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -1;
	sb_grow(out, deflateBound(&z, n));
	z.next_in = (unsigned char *)in;
	z.avail_in = n;
	z.next_out = (unsigned char *)out->buf + out->len;
	z.avail_out = out->cap - out->len - 1;
	ret = deflate(&z, Z_FINISH);
	out->len += z.total_out;
	out->buf[out->len] = 0;
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

int pprof_report(struct report *rp)
{
	struct rsample *s = xmalloc(sizeof(*s));
	struct strbuf body = { 0 }, gz = { 0 };
	struct pp p = { .rp = rp };
	int ret;

	str(&p, "");		/* string 0 is always the empty string */
	while ((ret = report_next_sample(rp, s)) > 0)
		add(&p, s);
	encode(&p, &body);
	if (pprof_gzip(body.buf, body.len, &gz)) {
		snprintf(rp->c->err, sizeof(rp->c->err), "pprof: zlib failed");
		ret = ret ? ret : -EXIT_SYSTEM;
	} else {
		fwrite(gz.buf, 1, gz.len, rp->out);
	}
	sb_free(&body);
	sb_free(&gz);
	sb_free(&p.tmp);
	intern_free(&p.strs);
	intern_free(&p.samples);
	intern_free(&p.bids);
	intern_free(&p.locs);
	intern_free(&p.funcs);
	intern_free(&p.kmods);
	free(p.klimit);
	free(p.counts);
	free(p.limit);
	free(p.has_funcs);
	free(s);
	return ret;
}
