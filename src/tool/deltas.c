// SPDX-License-Identifier: GPL-2.0
/* Delta samples, rebuilt: see deltas.h. */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "delta.h"
#include "deltas.h"
#include "util.h"

struct deltas_ring {
	struct stackid_delta_base b;
	bool in_file;
};

static struct deltas_ring *ring_get(const struct deltas *d, unsigned int ring)
{
	return ring < d->n ? d->ring[ring] : NULL;
}

static struct deltas_ring *ring_make(struct deltas *d, unsigned int ring)
{
	if (ring >= d->n) {
		unsigned int n = d->n ? d->n : 8;

		while (n <= ring)
			n *= 2;
		d->ring = xreallocarray(d->ring, n, sizeof(*d->ring));
		memset(d->ring + d->n, 0, (n - d->n) * sizeof(*d->ring));
		d->n = n;
	}
	if (!d->ring[ring])
		d->ring[ring] = xcalloc(1, sizeof(*d->ring[ring]));
	return d->ring[ring];
}

void deltas_forget(struct deltas *d, unsigned int ring)
{
	struct deltas_ring *r = ring_get(d, ring);

	if (r)
		stackid_delta_forget(&r->b);
}

void deltas_forget_all(struct deltas *d)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		deltas_forget(d, i);
}

const void *deltas_take(struct deltas *d, const void *rec, const char **why)
{
	const struct stackid_record_hdr *h = rec;
	const struct stackid_sample *s = rec, *p;
	struct stackid_sample_delta dh;
	unsigned int skip, tail_kernel;
	struct deltas_ring *r;

	switch (h->type) {
	case STACKID_REC_SAMPLE_PACKED:
		r = ring_make(d, s->ring);
		stackid_delta_take(&r->b, s, (const uint64_t *)(s + 1), false);
		return rec;
	case STACKID_REC_SAMPLE:
		deltas_forget(d, s->ring);
		return rec;
	case STACKID_REC_EPOCH:
		deltas_forget(d, ((const struct stackid_epoch *)rec)->ring);
		return rec;
	case STACKID_REC_SAMPLE_DELTA:
		break;
	default:
		return rec;
	}
	memcpy(&dh, rec, sizeof(dh));
	r = ring_make(d, dh.ring);
	if (stackid_delta_expand(&r->b, rec, d->out, why)) {
		stackid_delta_forget(&r->b);
		return NULL;
	}
	/* the previous sample's frames that it keeps: kernel ones first */
	p = stackid_delta_prev(&r->b);
	skip = p->nr_frames - dh.nr_same;
	tail_kernel = p->nr_kernel > skip ? p->nr_kernel - skip : 0;
	if (stackid_record_check_rebuilt(d->out, sizeof(d->out),
					 dh.nr_frames - dh.nr_same,
					 tail_kernel, why) <= 0) {
		stackid_delta_forget(&r->b);
		return NULL;
	}
	s = (const void *)d->out;
	stackid_delta_take(&r->b, s, (const uint64_t *)(s + 1), true);
	return d->out;
}

bool deltas_in_file(const struct deltas *d, unsigned int ring)
{
	const struct deltas_ring *r = ring_get(d, ring);

	return r && r->in_file;
}

void deltas_set_in_file(struct deltas *d, unsigned int ring, bool in)
{
	struct deltas_ring *r = in ? ring_make(d, ring) : ring_get(d, ring);

	if (r)
		r->in_file = in;
}

void deltas_new_file(struct deltas *d)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (d->ring[i])
			d->ring[i]->in_file = false;
}

void deltas_free(struct deltas *d)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		free(d->ring[i]);
	free(d->ring);
	memset(d, 0, sizeof(*d));
}
