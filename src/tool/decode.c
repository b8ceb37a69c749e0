// SPDX-License-Identifier: GPL-2.0
/*
 * Record decoding for the report formats (see decode.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "capture.h"
#include "decode.h"
#include "record.h"
#include "report.h"
#include "symbolize.h"

/* @n bytes of @s, clean (name_sanitize()), in a new allocation. */
static char *clean_dup(const char *s, size_t n)
{
	struct strbuf sb = { 0 };

	name_sanitize(&sb, s, n);
	return sb_detach(&sb);
}

/* A comm of STACKID_COMM_LEN bytes, NUL-padded or not, clean. */
static void take_comm(char *out, const char *comm)
{
	size_t n = strnlen(comm, STACKID_COMM_LEN), i;
	struct strbuf sb = { 0 };

	for (i = 0; i < n; i++)
		if ((unsigned char)comm[i] < 0x20 ||
		    (unsigned char)comm[i] >= 0x7f)
			break;
	if (i == n) {		/* printable ASCII, the common case */
		memcpy(out, comm, n);
		out[n] = 0;
		return;
	}
	name_sanitize(&sb, comm, n);
	memcpy(out, sb.buf, sb.len + 1);	/* sb.len <= 4 * n */
	sb_free(&sb);
}

/*
 * A path record: the symbolizer opens the path as the capture gives it
 * (a file's name need not be UTF-8); the table keeps it clean.
 */
static void take_path(struct report *rp, const struct stackid_build_id_path *p)
{
	struct path_table *t = &rp->paths;
	unsigned int n = t->ids.n, i;

	if (rp->sym)
		symbolizer_add_path(rp->sym, p->build_id, p->build_id_len,
				    p->path);
	i = intern_bytes(&t->ids, p->build_id, p->build_id_len);
	if (t->ids.n == n)
		return;		/* the first path names the file */
	if (i >= t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->path = xreallocarray(t->path, t->cap, sizeof(*t->path));
	}
	t->path[i] = clean_dup(p->path, p->path_len);
}

/* A cgroup's path: the first record for an id names it. */
static void take_cgroup(struct report *rp, const struct stackid_cgroup *cg)
{
	struct path_table *t = &rp->cgroups;
	unsigned int n = t->ids.n, i;

	i = intern_bytes(&t->ids, &cg->id, sizeof(cg->id));
	if (t->ids.n == n)
		return;
	if (i >= t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->path = xreallocarray(t->path, t->cap, sizeof(*t->path));
	}
	/* an empty path: the module could not name it (too long) */
	t->path[i] = cg->path_len ? clean_dup(cg->path, cg->path_len) : NULL;
}

static void take_info(struct report *rp, const struct stackid_record_hdr *h)
{
	const struct capture_info *in = (const void *)h;
	struct capture_meta *m = &rp->meta;

	if (h->size < sizeof(*in))
		return;
	m->has_info = true;
	m->realtime_ns = in->realtime_ns;
	m->freq_hz = in->freq_hz;
	m->seq = in->seq;
	m->run_id = in->run_id;
}

static void take_end(struct report *rp, const struct stackid_record_hdr *h)
{
	const struct capture_end *e = (const void *)h;
	struct capture_meta *m = &rp->meta;
	unsigned int i, nr;

	if (h->size < sizeof(*e))
		return;
	m->has_end = true;
	m->end_ns = e->end_ns;
	nr = e->nr < STACKID_STATS_MAX ? e->nr : STACKID_STATS_MAX;
	if (nr > m->nr)
		m->nr = nr;
	for (i = 0; i < nr; i++)
		m->counters[i] += e->counters[i];
}

/*
 * A kernel function's number: "name\0module", both clean, interned (the
 * frames name it from there).
 */
static unsigned int take_ksym(struct report *rp, const struct bidtab_ksym *k)
{
	struct strbuf sb = { 0 };
	unsigned int i;

	name_sanitize(&sb, k->name, k->name_len);
	sb_addc(&sb, 0);
	name_sanitize(&sb, k->module, k->module_len);
	i = intern_bytes(&rp->ksym_nums, sb.buf, sb.len);
	sb_free(&sb);
	return i;
}

/* Sample times: the capture's first and last. */
static void take_time(struct capture_meta *m, uint64_t t)
{
	if (!m->samples++ || t < m->first_ns)
		m->first_ns = t;
	if (m->samples == 1 || t > m->last_ns)
		m->last_ns = t;
}

/* An ABI 1 sample: the build-id is in every frame. */
static void take_sample1(struct report *rp, const struct stackid1_sample *s,
			 struct rsample *out)
{
	unsigned int i;

	out->flags = s->flags;
	out->cpu = s->cpu;
	out->tgid = s->tgid;
	out->tid = s->tid;
	out->time_ns = s->time_ns;
	take_comm(out->comm, s->comm);
	out->nr_frames = s->nr_frames;
	out->nr_kernel = 0;
	out->stop = STACKID_STOP_NONE;
	out->cgroup_id = 0;
	out->cgroup_path = NULL;
	for (i = 0; i < s->nr_frames; i++) {
		const struct stackid1_frame *f = &s->frames[i];
		struct rframe *o = &out->frames[i];

		o->status = f->status;
		o->reason = f->reason;
		o->addr = f->addr;
		o->build_id = f->build_id;
		o->how = STACKID_HOW_FP;
		o->build_id_len = f->status == STACKID_FRAME_VALID ?
				  f->build_id_len : 0;
		o->bid = o->build_id_len ?
			 intern_bytes(&rp->bid_nums, f->build_id,
				      f->build_id_len) : 0;
		o->kname = o->kmodule = NULL;
	}
}

/*
 * An ABI 2 sample: valid frames name their build-id, named kernel frames
 * their function, by index into the tables of the ring the sample came
 * from. An index no record defined is corrupt data.
 */
static int take_sample(struct report *rp, const struct stackid_sample *s,
		       uint64_t off, struct rsample *out)
{
	const struct bidtab_ring *r = s->nr_frames ?
				      bidtab_ring(&rp->bids, s->ring) : NULL;
	struct stackid_frame fb;
	unsigned int i;

	out->flags = s->flags;
	out->cpu = s->cpu;
	out->tgid = s->tgid;
	out->tid = s->tid;
	out->time_ns = s->time_ns;
	take_comm(out->comm, s->comm);
	if (s->flags & STACKID_SF_KTHREAD) {
		/* [kworker/0:1], as ps shows kernel threads: in every format */
		size_t n = strlen(out->comm);

		memmove(out->comm + 1, out->comm, n);
		out->comm[0] = '[';
		out->comm[n + 1] = ']';
		out->comm[n + 2] = 0;
	}
	out->nr_frames = s->nr_frames;
	out->nr_kernel = s->nr_kernel;
	/* ABI 2.2's; 0 before it (the bytes were padding, always 0) */
	out->stop = s->stop;
	out->cgroup_id = s->cgroup_id;
	/* a cgroup's first record names it for good: cache that */
	if (!s->cgroup_id || s->cgroup_id != rp->cg_id) {
		out->cgroup_path = report_cgroup_path(rp, s->cgroup_id);
		if (out->cgroup_path) {
			rp->cg_id = s->cgroup_id;
			rp->cg_path = out->cgroup_path;
		}
	} else {
		out->cgroup_path = rp->cg_path;
	}
	for (i = 0; i < s->nr_frames; i++) {
		const struct stackid_frame *f = &fb;
		struct rframe *o = &out->frames[i];
		const struct bidtab_entry *e = NULL;
		const struct bidtab_ksym *k;

		stackid_sample_frame(s, i, &fb);

		o->status = f->status;
		o->reason = f->reason;
		o->how = i < s->nr_kernel ? STACKID_HOW_FP : f->how;
		o->addr = f->addr;
		o->build_id = NULL;
		o->build_id_len = 0;
		o->bid = 0;
		o->kname = o->kmodule = NULL;
		if (f->status == STACKID_FRAME_KERNEL && f->bid) {
			k = bidtab_ring_get_ksym(r, f->bid);
			if (!k)
				return capture_fail(rp->c, EXIT_DATA,
						    "record at byte %" PRIu64
						    ": kernel symbol index %u "
						    "of ring %u is defined by "
						    "no record before it", off,
						    f->bid, s->ring);
			o->kname = intern_str(&rp->ksym_nums, k->user);
			o->kmodule = o->kname + strlen(o->kname) + 1;
			o->bid = k->user;
		}
		if (f->status != STACKID_FRAME_VALID)
			continue;
		e = bidtab_ring_get(r, f->bid);
		if (!e)
			return capture_fail(rp->c, EXIT_DATA,
					    "record at byte %" PRIu64 ": build-id "
					    "index %u of ring %u is defined by no "
					    "record before it", off, f->bid,
					    s->ring);
		o->build_id = e->id;
		o->build_id_len = e->len;
		o->bid = e->user;
	}
	return 0;
}

/* Is @s in the cgroup filter? Counted in meta if so. */
static bool keep(struct report *rp, const struct rsample *s)
{
	if (rp->o->cgroup && (!s->cgroup_path ||
			      !cgroup_path_under(s->cgroup_path,
						 rp->o->cgroup)))
		return false;
	if (rp->o->no_kthreads && (s->flags & STACKID_SF_KTHREAD))
		return false;
	take_time(&rp->meta, s->time_ns);
	return true;
}

int report_next_sample(struct report *rp, struct rsample *out)
{
	const struct stackid_record_hdr *h;
	const void *rec;
	uint64_t off;
	int ret;

	while ((ret = capture_next(rp->c, &rec, &off)) > 0) {
		if (rp->o->stop && *rp->o->stop) {
			snprintf(rp->c->err, sizeof(rp->c->err),
				 "stopped by a signal");
			return -EXIT_SYSTEM;
		}
		h = rec;
		if (h->abi_major != STACKID1_ABI_MAJOR &&
		    h->type < CAPTURE_REC_FIRST) {
			const char *why = NULL;

			/* a delta sample: the whole sample it stands for */
			rec = deltas_take(&rp->deltas, rec, &why);
			if (!rec)
				return -capture_fail(rp->c, EXIT_DATA,
						     "record at byte %" PRIu64
						     ": %s", off, why);
			h = rec;
		}
		switch (h->type) {
		case STACKID_REC_SAMPLE:
		case STACKID_REC_SAMPLE_PACKED:
			if (h->abi_major == STACKID1_ABI_MAJOR) {
				/* ABI 1 had no packed samples: skipped */
				if (h->type != STACKID_REC_SAMPLE)
					break;
				take_sample1(rp, rec, out);
			} else {
				ret = take_sample(rp, rec, off, out);
				if (ret)
					return -ret;
			}
			if (keep(rp, out))
				return 1;
			break;
		case STACKID_REC_BUILD_ID:
		case STACKID_REC_EPOCH:
			if (h->abi_major != STACKID1_ABI_MAJOR) {
				struct bidtab_entry *e;

				/* numbered once here, not at every frame */
				bidtab_take_entry(&rp->bids, h, &e);
				if (e)
					e->user = intern_bytes(&rp->bid_nums,
							       e->id, e->len);
			}
			break;
		case STACKID_REC_KSYM:
			if (h->abi_major != STACKID1_ABI_MAJOR) {
				struct bidtab_ksym *k;

				bidtab_take_ksym(&rp->bids, h, &k);
				if (k)
					k->user = take_ksym(rp, k);
			}
			break;
		case STACKID_REC_CGROUP:
			if (h->abi_major != STACKID1_ABI_MAJOR)
				take_cgroup(rp, rec);
			break;
		case STACKID_REC_BUILD_ID_PATH:
			take_path(rp, rec);
			break;
		case CAPTURE_REC_INFO:
			take_info(rp, h);
			break;
		case CAPTURE_REC_END:
			take_end(rp, h);
			break;
		}
	}
	return ret;
}

const char *report_reason_name(const struct report *rp, unsigned int r)
{
	const char *n = stackid_ip_reason_name_abi(rp->c->hdr.abi_version >> 16,
						   r);

	return n ? n : "?";
}

const char *report_path_of(const struct report *rp, const unsigned char *id,
			   unsigned int len)
{
	long i = intern_find(&rp->paths.ids, id, len);

	return i < 0 ? NULL : rp->paths.path[i];
}

const char *report_cgroup_path(const struct report *rp, uint64_t id)
{
	long i;

	if (!id)
		return NULL;
	i = intern_find(&rp->cgroups.ids, &id, sizeof(id));
	return i < 0 ? NULL : rp->cgroups.path[i];
}

void report_cgroup_name(const struct report *rp, uint64_t id,
			struct strbuf *sb)
{
	const char *p = report_cgroup_path(rp, id);

	if (p)
		sb_adds(sb, p);
	else if (id)
		sb_addf(sb, "[cgroup %" PRIu64 "]", id);
	else
		sb_adds(sb, "[no cgroup]");
}

bool cgroup_path_under(const char *path, const char *filter)
{
	size_t n = strlen(filter);

	if (!strcmp(filter, "/"))
		return true;
	return !strncmp(path, filter, n) && (!path[n] || path[n] == '/');
}

uint64_t report_wall_ns(const struct report *rp, uint64_t mono_ns)
{
	const struct capture_meta *m = &rp->meta;
	uint64_t start = rp->c->hdr.start_ns;

	if (!m->has_info)
		return 0;
	if (mono_ns >= start)
		return m->realtime_ns + (mono_ns - start);
	return m->realtime_ns - (start - mono_ns);
}

uint64_t report_end_ns(const struct report *rp)
{
	const struct capture_meta *m = &rp->meta;

	if (m->has_end)
		return m->end_ns;
	if (m->samples && m->last_ns > rp->c->hdr.start_ns)
		return m->last_ns;
	return rp->c->hdr.start_ns;
}

void path_table_free(struct path_table *t)
{
	unsigned int i;

	for (i = 0; i < t->ids.n; i++)
		free(t->path[i]);
	free(t->path);
	intern_free(&t->ids);
	memset(t, 0, sizeof(*t));
}
