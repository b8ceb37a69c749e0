// SPDX-License-Identifier: GPL-2.0
/*
 * The rings' build-id tables (see bidtab.h): hash tables with linear
 * probing, at most half full, keyed by a random odd multiplier drawn
 * (through hash_bytes()'s random key) once per process, so that a
 * capture cannot choose indexes that pile up in one run of slots.
 */
#include <stdlib.h>
#include <string.h>

#include "bidtab.h"
#include "util.h"

static uint64_t mult[2];

/* Slot of 16-bit key @key in a table of @cap (2^n) slots. */
static unsigned int slot_of(unsigned int key, unsigned int cap)
{
	uint64_t x;

	if (!mult[0]) {
		mult[0] = hash_bytes("bidtab0", 7, 0) | 1;
		mult[1] = hash_bytes("bidtab1", 7, 0) | 1;
	}
	x = (key + 1) * mult[0];
	x ^= x >> 29;
	x *= mult[1];
	return (unsigned int)(x >> 32) & (cap - 1);
}

static struct bidtab_ring *ring_find(const struct bidtab *t, unsigned int ring)
{
	unsigned int i;

	if (!t->rcap)
		return NULL;
	for (i = slot_of(ring, t->rcap);; i = (i + 1) & (t->rcap - 1)) {
		if (!t->rings[i].used)
			return NULL;
		if (t->rings[i].ring == ring)
			return &t->rings[i];
	}
}

static struct bidtab_ring *ring_of(struct bidtab *t, unsigned int ring)
{
	struct bidtab_ring *r = ring_find(t, ring), *old = t->rings;
	unsigned int i, j, n = t->rcap;

	if (r)
		return r;
	if ((t->nrings + 1) * 2 > t->rcap) {
		t->rcap = n ? n * 2 : 8;
		t->rings = xcalloc(t->rcap, sizeof(*t->rings));
		for (i = 0; i < n; i++) {
			if (!old[i].used)
				continue;
			for (j = slot_of(old[i].ring, t->rcap);
			     t->rings[j].used; j = (j + 1) & (t->rcap - 1))
				;
			t->rings[j] = old[i];
		}
		free(old);
	}
	for (i = slot_of(ring, t->rcap); t->rings[i].used;
	     i = (i + 1) & (t->rcap - 1))
		;
	r = &t->rings[i];
	memset(r, 0, sizeof(*r));
	r->used = true;
	r->ring = ring;
	t->nrings++;
	return r;
}

/* The slot of @index in @r's build-ids: its entry, or an empty one. */
static struct bidtab_entry *entry_slot(const struct bidtab_ring *r,
				       unsigned int index)
{
	unsigned int i;

	for (i = slot_of(index, r->ecap);; i = (i + 1) & (r->ecap - 1))
		if (!r->e[i].index || r->e[i].index == index)
			return &r->e[i];
}

static struct bidtab_ksym *ksym_slot(const struct bidtab_ring *r,
				     unsigned int index)
{
	unsigned int i;

	for (i = slot_of(index, r->kcap);; i = (i + 1) & (r->kcap - 1))
		if (!r->k[i].name || r->k[i].index == index)
			return &r->k[i];
}

/* Room for one more entry in @r's build-ids. */
static void entries_grow(struct bidtab_ring *r)
{
	struct bidtab_entry *old = r->e;
	unsigned int n = r->ecap, i;

	if ((r->ne + 1) * 2 <= r->ecap)
		return;
	r->ecap = n ? n * 2 : 8;
	r->e = xcalloc(r->ecap, sizeof(*r->e));
	for (i = 0; i < n; i++)
		if (old[i].index)
			*entry_slot(r, old[i].index) = old[i];
	free(old);
}

static void ksyms_grow(struct bidtab_ring *r)
{
	struct bidtab_ksym *old = r->k;
	unsigned int n = r->kcap, i;

	if ((r->nk + 1) * 2 <= r->kcap)
		return;
	r->kcap = n ? n * 2 : 8;
	r->k = xcalloc(r->kcap, sizeof(*r->k));
	for (i = 0; i < n; i++)
		if (old[i].name)
			*ksym_slot(r, old[i].index) = old[i];
	free(old);
}

/* An epoch: @r's tables emptied, in time linear in what they hold. */
static void ring_clear(struct bidtab_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->kcap; i++)
		free(r->k[i].name);
	free(r->k);
	free(r->e);
	r->k = NULL;
	r->e = NULL;
	r->nk = r->kcap = r->ne = r->ecap = 0;
}

bool bidtab_take_entry(struct bidtab *t, const struct stackid_record_hdr *h,
		       struct bidtab_entry **defined)
{
	const struct stackid_build_id *b = (const void *)h;
	const struct stackid_epoch *ep = (const void *)h;
	struct bidtab_entry *e;
	struct bidtab_ring *r;

	if (defined)
		*defined = NULL;
	if (h->type == STACKID_REC_EPOCH) {
		r = ring_find(t, ep->ring);
		if (r)
			ring_clear(r);
		return true;
	}
	if (h->type != STACKID_REC_BUILD_ID)
		return false;
	if (!b->index)		/* never from a checked record */
		return true;
	r = ring_of(t, b->ring);
	entries_grow(r);
	e = entry_slot(r, b->index);
	if (!e->index)
		r->ne++;
	e->index = b->index;
	e->len = b->build_id_len;
	memcpy(e->id, b->build_id, b->build_id_len);
	e->user = 0;
	if (defined)
		*defined = e;
	return true;
}

bool bidtab_take_ksym(struct bidtab *t, const struct stackid_record_hdr *h,
		      struct bidtab_ksym **defined)
{
	const struct stackid_ksym *k = (const void *)h;
	struct bidtab_ksym *d;
	struct bidtab_ring *r;

	if (defined)
		*defined = NULL;
	if (h->type != STACKID_REC_KSYM)
		return false;
	if (!k->index)		/* never from a checked record */
		return true;
	r = ring_of(t, k->ring);
	ksyms_grow(r);
	d = ksym_slot(r, k->index);
	if (!d->name)
		r->nk++;
	free(d->name);
	/* name, NUL, module, NUL */
	d->name = xmalloc(k->name_len + k->module_len + 2);
	memcpy(d->name, k->name, k->name_len);
	d->name[k->name_len] = 0;
	memcpy(d->name + k->name_len + 1, k->name + k->name_len,
	       k->module_len);
	d->name[k->name_len + 1 + k->module_len] = 0;
	d->module = d->name + k->name_len + 1;
	d->index = k->index;
	d->name_len = k->name_len;
	d->module_len = k->module_len;
	d->user = 0;
	if (defined)
		*defined = d;
	return true;
}

const struct bidtab_ring *bidtab_ring(const struct bidtab *t,
				      unsigned int ring)
{
	return ring_find(t, ring);
}

const struct bidtab_ksym *bidtab_ring_get_ksym(const struct bidtab_ring *r,
					       unsigned int index)
{
	const struct bidtab_ksym *k;

	if (!r || !index || !r->nk)
		return NULL;
	k = ksym_slot(r, index);
	return k->name ? k : NULL;
}

const struct bidtab_entry *bidtab_ring_get(const struct bidtab_ring *r,
					   unsigned int index)
{
	const struct bidtab_entry *e;

	if (!r || !index || !r->ne)
		return NULL;
	e = entry_slot(r, index);
	return e->index ? e : NULL;
}

const struct bidtab_ksym *bidtab_get_ksym(const struct bidtab *t,
					  unsigned int ring,
					  unsigned int index)
{
	return bidtab_ring_get_ksym(ring_find(t, ring), index);
}

const struct bidtab_entry *bidtab_get(const struct bidtab *t,
				      unsigned int ring, unsigned int index)
{
	return bidtab_ring_get(ring_find(t, ring), index);
}

/* A STACKID_REC_KSYM record defining @k as its index of @ring. */
static void replay_ksym(struct strbuf *out, unsigned int ring,
			const struct bidtab_ksym *k, uint16_t major)
{
	size_t n = k->name_len + k->module_len,
	       size = (sizeof(struct stackid_ksym) + n + 1 + 7) & ~(size_t)7;
	struct stackid_ksym h = {
		.hdr = { size, STACKID_REC_KSYM, major },
		.ring = ring,
		.index = k->index,
		.name_len = k->name_len,
		.module_len = k->module_len,
	};
	static const char zero[8];

	sb_add(out, &h, sizeof(h));
	sb_add(out, k->name, k->name_len);
	sb_add(out, k->module, k->module_len);
	sb_add(out, zero, size - sizeof(h) - n);
}

static int by_ring(const void *a, const void *b)
{
	const struct bidtab_ring *x = *(const struct bidtab_ring *const *)a;
	const struct bidtab_ring *y = *(const struct bidtab_ring *const *)b;

	return (int)x->ring - (int)y->ring;
}

static int by_entry_index(const void *a, const void *b)
{
	const struct bidtab_entry *x = a, *y = b;

	return (int)x->index - (int)y->index;
}

static int by_ksym_index(const void *a, const void *b)
{
	const struct bidtab_ksym *x = a, *y = b;

	return (int)x->index - (int)y->index;
}

/* In ring order, then index order: the same bytes for the same tables. */
void bidtab_replay(const struct bidtab *t, struct strbuf *out,
		   uint16_t major)
{
	struct bidtab_ring **rings = xcalloc(t->nrings, sizeof(*rings));
	unsigned int nr = 0, i, j, n;

	for (i = 0; i < t->rcap; i++)
		if (t->rings[i].used && (t->rings[i].ne || t->rings[i].nk))
			rings[nr++] = &t->rings[i];
	qsort(rings, nr, sizeof(*rings), by_ring);
	for (i = 0; i < nr; i++) {
		const struct bidtab_ring *r = rings[i];
		struct stackid_epoch ep = {
			.hdr = { sizeof(ep), STACKID_REC_EPOCH, major },
			.ring = r->ring,
		};
		struct bidtab_entry *e = xcalloc(r->ne, sizeof(*e));
		struct bidtab_ksym *k = xcalloc(r->nk, sizeof(*k));

		sb_add(out, &ep, sizeof(ep));
		for (j = n = 0; j < r->ecap; j++)
			if (r->e[j].index)
				e[n++] = r->e[j];
		qsort(e, n, sizeof(*e), by_entry_index);
		for (j = 0; j < n; j++) {
			struct stackid_build_id b = {
				.hdr = { sizeof(b), STACKID_REC_BUILD_ID,
					 major },
				.ring = r->ring,
				.index = e[j].index,
				.build_id_len = e[j].len,
			};

			memcpy(b.build_id, e[j].id, e[j].len);
			sb_add(out, &b, sizeof(b));
		}
		for (j = n = 0; j < r->kcap; j++)
			if (r->k[j].name)
				k[n++] = r->k[j];
		qsort(k, n, sizeof(*k), by_ksym_index);
		for (j = 0; j < n; j++)
			replay_ksym(out, r->ring, &k[j], major);
		free(e);
		free(k);
	}
	free(rings);
}

void bidtab_free(struct bidtab *t)
{
	unsigned int i;

	for (i = 0; i < t->rcap; i++)
		if (t->rings[i].used)
			ring_clear(&t->rings[i]);
	free(t->rings);
	memset(t, 0, sizeof(*t));
}
