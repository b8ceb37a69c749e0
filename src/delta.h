/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Delta samples (STACKID_REC_SAMPLE_DELTA, ABI 2.6): the module writes a
 * packed sample as the frames that differ from its ring's previous
 * sample, and every reader rebuilds the whole packed sample, with these
 * (pure code: see pure.h). Writer and reader each keep the ring's
 * previous sample in a struct stackid_delta_base, the writer in kernel
 * memory (never in the ring a reader can write). They agree as long as
 * the reader sees every record of the ring in order; a reader that lost
 * its place forgets the base and waits for the next whole sample, which
 * comes within STACKID_DELTA_RUN_MAX + 1 samples of the ring.
 */
#ifndef STACKID_DELTA_H
#define STACKID_DELTA_H

#include "pure.h"
#include <stackid.h>

#define STACKID_DELTA_HDR_U64	(sizeof(struct stackid_sample) / sizeof(u64))

/**
 * struct stackid_delta_base - a ring's previous sample
 * @rec: its record, as STACKID_REC_SAMPLE_PACKED: stackid_delta_prev()
 *	(hdr.size 0: none), then its nr_frames packed frames
 * @run: delta samples written since the last whole one
 */
struct stackid_delta_base {
	u64 rec[STACKID_DELTA_HDR_U64 + STACKID_MAX_DEPTH];
	u32 run;
};

static inline struct stackid_sample *
stackid_delta_prev(const struct stackid_delta_base *b)
{
	return (struct stackid_sample *)b->rec;
}

static inline const u64 *
stackid_delta_prev_frames(const struct stackid_delta_base *b)
{
	return b->rec + STACKID_DELTA_HDR_U64;
}

/* No previous sample: after an epoch, a 16-byte-frame sample, a lost place. */
static inline void stackid_delta_forget(struct stackid_delta_base *b)
{
	stackid_delta_prev(b)->hdr.size = 0;
	b->run = 0;
}

/*
 * The writer: how many outermost frames the packed sample @s (its
 * frames at @frames) shares with @b's previous sample, or -1 if it is to
 * be written whole (no previous sample, another process, CPU, cgroup or
 * comm, a run long enough, flags that do not fit).
 */
static inline int stackid_delta_same(const struct stackid_delta_base *b,
				     const struct stackid_sample *s,
				     const u64 *frames)
{
	const struct stackid_sample *p = stackid_delta_prev(b);
	const u64 *pf = stackid_delta_prev_frames(b);
	unsigned int n = s->nr_frames, pn = p->nr_frames, k = 0;

	if (!p->hdr.size || b->run >= STACKID_DELTA_RUN_MAX ||
	    s->flags > 0xffff || s->tgid != p->tgid || s->cpu != p->cpu ||
	    s->ring != p->ring || s->cgroup_id != p->cgroup_id ||
	    memcmp(s->comm, p->comm, sizeof(s->comm)))
		return -1;
	while (k < n && k < pn && frames[n - 1 - k] == pf[pn - 1 - k])
		k++;
	return k;
}

/* The writer: the header of @s written as a delta sharing @same frames. */
static inline void stackid_delta_hdr(struct stackid_sample_delta *d,
				     const struct stackid_sample *s,
				     unsigned int same)
{
	memset(d, 0, sizeof(*d));
	d->hdr.size = sizeof(*d) + (s->nr_frames - same) * sizeof(u64);
	d->hdr.type = STACKID_REC_SAMPLE_DELTA;
	d->hdr.abi_major = s->hdr.abi_major;
	d->tid = s->tid;
	d->flags = s->flags;
	d->ring = s->ring;
	d->time_ns = s->time_ns;
	d->nr_frames = s->nr_frames;
	d->nr_kernel = s->nr_kernel;
	d->nr_same = same;
	d->stop = s->stop;
}

/*
 * Writer and reader: the packed sample @s (its frames at @frames) is now
 * the ring's previous sample; @delta: it was written as a delta.
 */
static inline void stackid_delta_take(struct stackid_delta_base *b,
				      const struct stackid_sample *s,
				      const u64 *frames, bool delta)
{
	struct stackid_sample *p = stackid_delta_prev(b);
	unsigned int n = s->nr_frames;

	if (n > STACKID_MAX_DEPTH)
		n = STACKID_MAX_DEPTH;
	memcpy(p, s, sizeof(*s));
	p->nr_frames = n;
	memcpy(b->rec + STACKID_DELTA_HDR_U64, frames, n * sizeof(u64));
	b->run = delta ? b->run + 1 : 0;
}

/*
 * A reader: into @out (room for a sample of STACKID_MAX_DEPTH packed
 * frames), the STACKID_REC_SAMPLE_PACKED that the delta sample @rec
 * (passed by stackid_record_check()) stands for, given its ring's @b.
 * Returns 0, or -EINVAL with *@why set when @b has no previous sample,
 * is another ring's, or has fewer than nr_same frames. Check the result
 * as a sample before trusting it.
 */
static inline int stackid_delta_expand(const struct stackid_delta_base *b,
				       const void *rec, void *out,
				       const char **why)
{
	const struct stackid_sample *p = stackid_delta_prev(b);
	const u64 *pf = stackid_delta_prev_frames(b);
	struct stackid_sample_delta d;
	struct stackid_sample *s = out;
	unsigned char *f = (unsigned char *)out + sizeof(*s);
	unsigned int nnew;

	memcpy(&d, rec, sizeof(d));
	if (!p->hdr.size) {
		*why = "a delta sample with no sample before it in its ring";
		return -EINVAL;
	}
	if (p->ring != d.ring || d.nr_same > p->nr_frames ||
	    d.nr_same > d.nr_frames) {
		*why = "a delta sample that does not fit the sample before it";
		return -EINVAL;
	}
	nnew = d.nr_frames - d.nr_same;
	memcpy(s, p, sizeof(*s));
	s->hdr.size = sizeof(*s) + d.nr_frames * sizeof(u64);
	s->hdr.type = STACKID_REC_SAMPLE_PACKED;
	s->hdr.abi_major = d.hdr.abi_major;
	s->flags = d.flags;
	s->tid = d.tid;
	s->time_ns = d.time_ns;
	s->nr_frames = d.nr_frames;
	s->nr_kernel = d.nr_kernel;
	s->stop = d.stop;
	s->__pad = 0;
	memcpy(f, (const unsigned char *)rec + sizeof(d), nnew * sizeof(u64));
	memcpy(f + nnew * sizeof(u64), pf + p->nr_frames - d.nr_same,
	       d.nr_same * sizeof(u64));
	return 0;
}

#endif /* STACKID_DELTA_H */
