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
 *
 * For `stackid push` (report_opts.push, report.h), what a Pyroscope
 * server needs instead: it drops a Location without a function name (its
 * time would become its caller's self time) and makes a series of every
 * distinct label set. So every Location gets one Line whose function is
 * the frame's name as --format folded prints it (symbol, [file]+0xOFF,
 * BUILDID+0xOFF, 0xADDR, FUNC_[k], FUNC [MODULE]_[k]; mappings and
 * addresses stay as above), the comm is the outermost frame (as in
 * folded), only the labels asked for are sample labels, and the samples
 * go out as one profile per STEP seconds of wall-clock time (from the
 * capture's start, whole seconds; a sample's part from its time), so
 * that the server stores a point in each step that has samples.
 * Each profile has its own string table and only the locations and
 * functions its samples use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pb.h"
#include "render.h"
#include "pprof.h"
#include "report.h"
#include "symbolize.h"
#include "tool.h"

#define DEFAULT_HZ	99
#define MAX_PARTS	86400	/* push: later samples go in the last */
#define GZ_CHUNK	(1U << 30)	/* zlib counts in unsigned int */

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
	uint32_t tgid, tid, cpu, comm;	/* comm: key string index */
	uint64_t cgroup;		/* id, 0: none */
	uint32_t part, pad;		/* push: the step it is in */
};

/* A location's key. */
struct lkey {
	uint32_t bid;		/* mapping index + 1; 0: raw address */
	uint32_t ret;		/* a return address */
	uint64_t addr;		/* kernel: offset into kfunc */
	uint32_t kmod;		/* kernel: module index + 1 ("": vmlinux) */
	uint32_t kfunc;		/* kernel: rframe.bid + 1; 0: not named */
	uint32_t comm;		/* push: the comm frame (key index + 1) */
	uint32_t pad;
};

/* A function's key: string indices. */
struct fkey {
	uint32_t name, system_name, file;
};

struct pp {
	struct report *rp;
	const struct pprof_push *push;	/* NULL: --format pprof */
	struct render r;		/* push: as folded renders */
	struct intern keys;		/* strings the keys refer to */
	struct intern strs;		/* the string table being written */
	struct intern samples, bids, locs, funcs;
	uint32_t *loc_func;		/* push: by location, its function */
	bool *lused, *fused;		/* in the profile being written */
	unsigned int lcap, fcap;
	uint64_t rlimit;		/* push: highest raw address + 1 */
	uint64_t base_s;		/* push: wall-clock second of part 0 */
	uint64_t *part_n;		/* push: samples by part */
	unsigned int nparts;
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

static uint32_t key(struct pp *p, const char *s)
{
	return intern_bytes(&p->keys, s, strlen(s));
}

/* Location @i was just interned: make room for what is kept of it. */
static void new_loc(struct pp *p, unsigned int i)
{
	if (i < p->lcap)
		return;
	p->lcap = p->lcap ? p->lcap * 2 : 256;
	p->loc_func = xreallocarray(p->loc_func, p->lcap,
				    sizeof(*p->loc_func));
	p->lused = xreallocarray(p->lused, p->lcap, sizeof(*p->lused));
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

static uint32_t function(struct pp *p, const char *name, const char *sysname,
			 const char *file);

/* push: which step of wall-clock time sample @s is in. */
static uint32_t part_of(struct pp *p, const struct rsample *s)
{
	uint64_t wall = report_wall_ns(p->rp, s->time_ns), part;

	if (!wall || wall / 1000000000 < p->base_s)
		return 0;
	part = (wall / 1000000000 - p->base_s) / p->push->step_s;
	return part < MAX_PARTS ? part : MAX_PARTS - 1;
}

/* push: the location key @l of @f, interned; named if new. */
static uint32_t push_loc(struct pp *p, const struct lkey *l,
			 const struct rframe *f, bool ret, const char *comm)
{
	unsigned int n = p->locs.n, i = intern_bytes(&p->locs, l, sizeof(*l));
	const char *file = NULL;

	if (p->locs.n == n)
		return i;
	new_loc(p, i);
	sb_reset(&p->tmp);
	if (f) {
		render_frame(&p->r, &p->tmp, f, ret);
		if (f->status == STACKID_FRAME_VALID)
			file = report_path_of(p->rp, f->build_id,
					      f->build_id_len);
	} else {
		sb_adds(&p->tmp, comm);
	}
	p->loc_func[i] = function(p, p->tmp.buf, NULL, file);
	return i;
}

static void add(struct pp *p, const struct rsample *s)
{
	unsigned int want = p->push ? p->push->labels : ~0U;
	struct skey k = {
		.tgid = want & PPROF_L_PID ? s->tgid : 0,
		.tid = want & PPROF_L_TID ? s->tid : 0,
		.cpu = want & PPROF_L_CPU ? s->cpu : 0,
		.cgroup = want & PPROF_L_CGROUP ? s->cgroup_id : 0,
	};
	uint32_t key[sizeof(k) / 4 + STACKID_MAX_DEPTH + 1];
	unsigned int i, n = p->samples.n, idx;
	struct lkey l;

	sb_reset(&p->tmp);
	render_comm(p->push ? &p->r : &p->rp->r, &p->tmp, s->comm);
	k.comm = intern_bytes(&p->keys, p->tmp.buf, p->tmp.len);
	if (p->push) {
		k.part = part_of(p, s);
		if (k.part >= p->nparts) {
			unsigned int np = k.part + 1;

			p->part_n = xreallocarray(p->part_n, np,
						  sizeof(*p->part_n));
			memset(p->part_n + p->nparts, 0,
			       (np - p->nparts) * sizeof(*p->part_n));
			p->nparts = np;
		}
		p->part_n[k.part]++;
	}
	memcpy(key, &k, sizeof(k));
	for (i = 0; i < s->nr_frames; i++) {
		const struct rframe *f = &s->frames[i];

		memset(&l, 0, sizeof(l));
		l.addr = f->addr;
		l.ret = i > 0;
		if (f->status == STACKID_FRAME_VALID) {
			l.bid = mapping(p, f);
		} else if (f->status == STACKID_FRAME_KERNEL) {
			l.ret = 0;
			l.kmod = kmapping(p, f);
			l.kfunc = f->kname ? f->bid + 1 : 0;
		} else {
			l.ret = 0;
			if (f->addr >= p->rlimit)
				p->rlimit = f->addr + 1;
		}
		if (p->push) {
			/* named as folded names it: a return address too */
			l.ret = i > 0;
			key[sizeof(k) / 4 + i] = push_loc(p, &l, f, i > 0,
							  NULL);
		} else {
			unsigned int ln = p->locs.n;

			key[sizeof(k) / 4 + i] = intern_bytes(&p->locs, &l,
							      sizeof(l));
			if (p->locs.n != ln)
				new_loc(p, key[sizeof(k) / 4 + i]);
		}
	}
	if (p->push) {
		/* the comm, outermost, as folded starts its lines */
		memset(&l, 0, sizeof(l));
		l.comm = k.comm + 1;
		key[sizeof(k) / 4 + i++] = push_loc(p, &l, NULL, false,
						    intern_str(&p->keys,
							       k.comm));
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

static void samples(struct pp *p, struct strbuf *out, uint64_t period,
		    uint32_t part)
{
	unsigned int want = p->push ? p->push->labels : ~0U;
	struct strbuf m = { 0 };
	uint64_t ids[STACKID_MAX_DEPTH + 1], v[2];
	unsigned int i, j, nf;
	struct skey k;

	for (i = 0; i < p->samples.n; i++) {
		const uint32_t *key = (const void *)intern_str(&p->samples, i);

		memcpy(&k, key, sizeof(k));
		if (k.part != part)
			continue;
		nf = (intern_len(&p->samples, i) - sizeof(k)) / 4;
		for (j = 0; j < nf; j++) {
			ids[j] = key[sizeof(k) / 4 + j] + 1;
			p->lused[ids[j] - 1] = true;
		}
		sb_reset(&m);
		pb_packed(&m, SAMPLE_LOCATION_ID, ids, nf);
		v[0] = p->counts[i];
		v[1] = p->counts[i] * period;
		pb_packed(&m, SAMPLE_VALUE, v, 2);
		if (want & PPROF_L_PID)
			label(p, &m, "pid", NULL, k.tgid);
		if (want & PPROF_L_TID)
			label(p, &m, "tid", NULL, k.tid);
		if (want & PPROF_L_CPU)
			label(p, &m, "cpu", NULL, k.cpu);
		if (want & PPROF_L_COMM)
			label(p, &m, "comm", intern_str(&p->keys, k.comm), 0);
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
		.name = key(p, name),
		.system_name = key(p, sysname ? sysname : name),
		.file = key(p, file ? file : ""),
	};
	unsigned int i = intern_bytes(&p->funcs, &k, sizeof(k));

	if (i >= p->fcap) {
		unsigned int old = p->fcap;

		p->fcap = p->fcap ? p->fcap * 2 : 256;
		p->fused = xreallocarray(p->fused, p->fcap, sizeof(*p->fused));
		memset(p->fused + old, 0, (p->fcap - old) * sizeof(*p->fused));
	}
	return i + 1;
}

static void line(struct pp *p, struct strbuf *loc, uint32_t func,
		 uint64_t lineno)
{
	struct strbuf m = { 0 };

	p->fused[func - 1] = true;
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
		if (!p->lused[i])
			continue;
		memcpy(&k, intern_str(&p->locs, i), sizeof(k));
		sb_reset(&m);
		pb_uint(&m, LOCATION_ID, i + 1);
		if (k.bid)
			pb_uint(&m, LOCATION_MAPPING_ID, k.bid);
		if (k.kmod)
			pb_uint(&m, LOCATION_MAPPING_ID, p->bids.n + k.kmod);
		/* push: the server loses a stack with a location of none */
		if (p->push && !k.bid && !k.kmod)
			pb_uint(&m, LOCATION_MAPPING_ID,
				p->bids.n + p->kmods.n + 1);
		pb_uint(&m, LOCATION_ADDRESS, k.addr);
		if (p->push) {
			line(p, &m, p->loc_func[i], 0);
			/* which mappings have functions: all of them */
			if (k.bid)
				p->has_funcs[k.bid - 1] = true;
		} else if (k.kmod) {
			const char *name = k.kfunc ?
				intern_str(&p->rp->ksym_nums, k.kfunc - 1) :
				"[unknown]";

			line(p, &m, function(p, name, NULL, NULL), 0);
		}
		if (k.bid && p->rp->sym && !p->push) {
			const char *id = intern_str(&p->bids, k.bid - 1);

			symbolize(p->rp->sym, (const unsigned char *)id,
				  intern_len(&p->bids, k.bid - 1), k.addr,
				  k.ret, &sym);
			/* inlined callees first, the real function last */
			for (j = 0; j < sym.ninline; j++)
				line(p, &m, function(p, sym.inl[j].func,
						  sym.inl[j].sysname,
						  sym.inl[j].src),
				     sym.inl[j].line);
			if (sym.func) {
				line(p, &m, function(p, sym.func, sym.sysname,
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
	if (p->push) {
		/* raw addresses and comms: named, in no file */
		sb_reset(&m);
		pb_uint(&m, MAPPING_ID, p->bids.n + p->kmods.n + 1);
		pb_uint(&m, MAPPING_MEMORY_LIMIT, p->rlimit);
		pb_uint(&m, MAPPING_FILENAME, str(p, "[unknown]"));
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
		uint32_t file;

		if (!p->fused[i])
			continue;
		memcpy(&k, intern_str(&p->funcs, i), sizeof(k));
		file = str(p, intern_str(&p->keys, k.file));
		sb_reset(&m);
		pb_uint(&m, FUNCTION_ID, i + 1);
		pb_uint(&m, FUNCTION_NAME, str(p, intern_str(&p->keys, k.name)));
		pb_uint(&m, FUNCTION_SYSTEM_NAME,
			str(p, intern_str(&p->keys, k.system_name)));
		if (file)
			pb_uint(&m, FUNCTION_FILENAME, file);
		pb_bytes(out, PROFILE_FUNCTION, m.buf, m.len);
	}
	sb_free(&m);
}

/*
 * One profile: the samples of @part (0 but for push), and what they use.
 * Its wall-clock start @wall_ns (0: unknown) and length @dur_ns.
 */
static void encode(struct pp *p, struct strbuf *out, uint32_t part,
		   uint64_t wall_ns, uint64_t dur_ns)
{
	const struct capture_meta *meta = &p->rp->meta;
	uint64_t hz = meta->freq_hz ? meta->freq_hz : DEFAULT_HZ;
	uint64_t period = 1000000000 / hz, cpu;
	unsigned int i;

	intern_free(&p->strs);
	memset(&p->strs, 0, sizeof(p->strs));
	str(p, "");		/* string 0 is always the empty string */
	if (p->locs.n)
		memset(p->lused, 0, p->locs.n * sizeof(*p->lused));
	if (p->funcs.n)
		memset(p->fused, 0, p->funcs.n * sizeof(*p->fused));
	value_type(p, out, PROFILE_SAMPLE_TYPE, "samples", "count");
	value_type(p, out, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	samples(p, out, period, part);
	/* locations first: they find which mappings have functions */
	{
		struct strbuf locs = { 0 };

		locations(p, &locs);
		mappings(p, out);
		sb_add(out, locs.buf, locs.len);
		sb_free(&locs);
	}
	functions(p, out);
	if (wall_ns)
		pb_uint(out, PROFILE_TIME_NANOS, wall_ns);
	pb_uint(out, PROFILE_DURATION_NANOS, dur_ns);
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

int pprof_gzip_chunked(const void *in, size_t n, struct strbuf *out,
		       size_t chunk)
{
	const unsigned char *next = in;
	z_stream z = { 0 };
	int ret = Z_OK, flush;

	if (!chunk || chunk > GZ_CHUNK)
		chunk = GZ_CHUNK;
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -1;
	do {
		size_t take = n < chunk ? n : chunk;

		z.next_in = (unsigned char *)next;
		z.avail_in = take;
		next += take;
		n -= take;
		flush = n ? Z_NO_FLUSH : Z_FINISH;
		do {
			/* room for what this input can become, not a chunk */
			size_t want = deflateBound(&z, z.avail_in) + 64;
			size_t room;

			if (want > chunk)
				want = chunk;
			sb_grow(out, want < 65536 ? 65536 : want);
			room = out->cap - out->len - 1;
			if (room > chunk)
				room = chunk;
			z.next_out = (unsigned char *)out->buf + out->len;
			z.avail_out = room;
			ret = deflate(&z, flush);
			out->len += room - z.avail_out;
		} while (ret != Z_STREAM_ERROR &&
			 (z.avail_out == 0 || z.avail_in ||
			  (flush == Z_FINISH && ret != Z_STREAM_END)));
	} while (n && ret != Z_STREAM_ERROR);
	out->buf[out->len] = 0;
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

int pprof_gzip(const void *in, size_t n, struct strbuf *out)
{
	return pprof_gzip_chunked(in, n, out, GZ_CHUNK);
}

/* push: each part that has samples, to the caller. */
static int push_parts(struct pp *p, uint64_t start)
{
	const struct pprof_push *push = p->push;
	uint64_t wall = report_wall_ns(p->rp, start), from, until, end_s;
	struct strbuf body = { 0 }, gz = { 0 };
	unsigned int i, last = 0;
	int ret = 0;

	end_s = wall ? (report_wall_ns(p->rp, report_end_ns(p->rp)) +
			999999999) / 1000000000 : 0;
	for (i = 0; i < p->nparts; i++)
		if (p->part_n[i])
			last = i;
	for (i = 0; i < p->nparts && !ret; i++) {
		if (!p->part_n[i])
			continue;
		from = wall ? p->base_s + (uint64_t)i * push->step_s : 0;
		until = wall ? from + push->step_s : 0;
		/* the last part: to the capture's end */
		if (wall && i == last && end_s > until)
			until = end_s;
		sb_reset(&body);
		sb_reset(&gz);
		encode(p, &body, i, from * 1000000000,
		       wall ? (until - from) * 1000000000 :
		       report_end_ns(p->rp) - start);
		if (pprof_gzip(body.buf, body.len, &gz)) {
			snprintf(p->rp->c->err, sizeof(p->rp->c->err),
				 "pprof: zlib failed");
			ret = EXIT_SYSTEM;
			break;
		}
		ret = push->part(push->arg, from, until, p->rp->meta.freq_hz,
				 gz.buf, gz.len);
	}
	sb_free(&body);
	sb_free(&gz);
	return ret ? -ret : 0;
}

int pprof_report(struct report *rp)
{
	struct rsample *s = xmalloc(sizeof(*s));
	struct strbuf body = { 0 }, gz = { 0 };
	struct pp p = { .rp = rp, .push = rp->o->push, .r = rp->r };
	uint64_t start = rp->c->hdr.start_ns;
	int ret;

	p.r.folded = true;
	p.r.lines = false;
	key(&p, "");
	while ((ret = report_next_sample(rp, s)) > 0) {
		if (p.push && !p.nparts)
			p.base_s = report_wall_ns(rp, start) / 1000000000;
		add(&p, s);
	}
	if (p.push) {
		/* a bad capture is not sent, not even in part */
		if (!ret)
			ret = push_parts(&p, start);
	} else {
		encode(&p, &body, 0, report_wall_ns(rp, start),
		       report_end_ns(rp) - start);
		if (pprof_gzip(body.buf, body.len, &gz)) {
			snprintf(rp->c->err, sizeof(rp->c->err),
				 "pprof: zlib failed");
			ret = ret ? ret : -EXIT_SYSTEM;
		} else {
			fwrite(gz.buf, 1, gz.len, rp->out);
		}
	}
	sb_free(&body);
	sb_free(&gz);
	sb_free(&p.tmp);
	intern_free(&p.keys);
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
	free(p.loc_func);
	free(p.lused);
	free(p.fused);
	free(p.part_n);
	free(s);
	return ret;
}
