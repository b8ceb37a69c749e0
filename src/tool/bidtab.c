// SPDX-License-Identifier: GPL-2.0
/*
 * The rings' build-id tables (see bidtab.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bidtab.h"
#include "util.h"

static struct bidtab_ring *ring_of(struct bidtab *t, unsigned int ring)
{
	if (ring >= t->nrings) {
		unsigned int n = ring + 1;

		t->rings = xreallocarray(t->rings, n, sizeof(*t->rings));
		memset(t->rings + t->nrings, 0,
		       (n - t->nrings) * sizeof(*t->rings));
		t->nrings = n;
	}
	return &t->rings[ring];
}

static void ksyms_clear(struct bidtab_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->kcap; i++)
		free(r->k[i].name);
	if (r->k)
		memset(r->k, 0, r->kcap * sizeof(*r->k));
}

bool bidtab_take_entry(struct bidtab *t, const struct stackid_record_hdr *h,
		       struct bidtab_entry **defined)
{
	const struct stackid_build_id *b = (const void *)h;
	const struct stackid_epoch *e = (const void *)h;
	struct bidtab_ring *r;

	if (defined)
		*defined = NULL;
	if (h->type == STACKID_REC_EPOCH) {
		r = ring_of(t, e->ring);
		if (r->e)
			memset(r->e, 0, r->cap * sizeof(*r->e));
		ksyms_clear(r);
		return true;
	}
	if (h->type != STACKID_REC_BUILD_ID)
		return false;
	r = ring_of(t, b->ring);
	if (b->index >= r->cap) {
		unsigned int cap = r->cap ? r->cap : 64;

		while (cap <= b->index)
			cap *= 2;
		r->e = xreallocarray(r->e, cap, sizeof(*r->e));
		memset(r->e + r->cap, 0, (cap - r->cap) * sizeof(*r->e));
		r->cap = cap;
	}
	r->e[b->index].len = b->build_id_len;
	memcpy(r->e[b->index].id, b->build_id, b->build_id_len);
	r->e[b->index].user = 0;
	if (defined)
		*defined = &r->e[b->index];
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
	r = ring_of(t, k->ring);
	if (k->index >= r->kcap) {
		unsigned int cap = r->kcap ? r->kcap : 64;

		while (cap <= k->index)
			cap *= 2;
		r->k = xreallocarray(r->k, cap, sizeof(*r->k));
		memset(r->k + r->kcap, 0, (cap - r->kcap) * sizeof(*r->k));
		r->kcap = cap;
	}
	d = &r->k[k->index];
	free(d->name);
	/* name, NUL, module, NUL */
	d->name = xmalloc(k->name_len + k->module_len + 2);
	memcpy(d->name, k->name, k->name_len);
	d->name[k->name_len] = 0;
	memcpy(d->name + k->name_len + 1, k->name + k->name_len,
	       k->module_len);
	d->name[k->name_len + 1 + k->module_len] = 0;
	d->module = d->name + k->name_len + 1;
	d->name_len = k->name_len;
	d->module_len = k->module_len;
	d->user = 0;
	if (defined)
		*defined = d;
	return true;
}

const struct bidtab_ksym *bidtab_get_ksym(const struct bidtab *t,
					  unsigned int ring,
					  unsigned int index)
{
	const struct bidtab_ring *r;

	if (ring >= t->nrings)
		return NULL;
	r = &t->rings[ring];
	if (!index || index >= r->kcap || !r->k[index].name)
		return NULL;
	return &r->k[index];
}

const struct bidtab_entry *bidtab_get(const struct bidtab *t,
				      unsigned int ring, unsigned int index)
{
	const struct bidtab_ring *r;

	if (ring >= t->nrings)
		return NULL;
	r = &t->rings[ring];
	if (!index || index >= r->cap || !r->e[index].len)
		return NULL;
	return &r->e[index];
}

/* A STACKID_REC_KSYM record defining @k as @index of @ring. */
static void replay_ksym(struct strbuf *out, unsigned int ring,
			unsigned int index, const struct bidtab_ksym *k,
			uint16_t major)
{
	size_t n = k->name_len + k->module_len,
	       size = (sizeof(struct stackid_ksym) + n + 1 + 7) & ~(size_t)7;
	struct stackid_ksym h = {
		.hdr = { size, STACKID_REC_KSYM, major },
		.ring = ring,
		.index = index,
		.name_len = k->name_len,
		.module_len = k->module_len,
	};
	static const char zero[8];

	if (!k->name)
		return;
	sb_add(out, &h, sizeof(h));
	sb_add(out, k->name, k->name_len);
	sb_add(out, k->module, k->module_len);
	sb_add(out, zero, size - sizeof(h) - n);
}

void bidtab_replay(const struct bidtab *t, struct strbuf *out,
		   uint16_t major)
{
	unsigned int ring, i;

	for (ring = 0; ring < t->nrings; ring++) {
		const struct bidtab_ring *r = &t->rings[ring];
		struct stackid_epoch e = {
			.hdr = { sizeof(e), STACKID_REC_EPOCH, major },
			.ring = ring,
		};
		bool any = false;

		for (i = 1; i < r->kcap && !any; i++)
			any = r->k[i].name != NULL;
		for (i = 1; i < r->cap && !any; i++)
			any = r->e[i].len != 0;
		if (!any)
			continue;
		sb_add(out, &e, sizeof(e));
		for (i = 1; i < r->cap; i++) {
			struct stackid_build_id b = {
				.hdr = { sizeof(b), STACKID_REC_BUILD_ID,
					 major },
				.ring = ring,
				.index = i,
			};

			if (!r->e[i].len)
				continue;
			b.build_id_len = r->e[i].len;
			memcpy(b.build_id, r->e[i].id, r->e[i].len);
			sb_add(out, &b, sizeof(b));
		}
		for (i = 1; i < r->kcap; i++)
			replay_ksym(out, ring, i, &r->k[i], major);
	}
}

void bidtab_free(struct bidtab *t)
{
	unsigned int i;

	for (i = 0; i < t->nrings; i++) {
		free(t->rings[i].e);
		ksyms_clear(&t->rings[i]);
		free(t->rings[i].k);
	}
	free(t->rings);
	memset(t, 0, sizeof(*t));
}
