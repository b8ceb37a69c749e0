// SPDX-License-Identifier: GPL-2.0
/*
 * Continuous mode: what each file of a recording must hold so that it
 * reads alone, and no more.
 *
 * The module names a build-id's file (a path record) and a cgroup (a
 * cgroup record) once per enable, and defines a ring's build-id and
 * kernel symbol indexes (STACKID_REC_BUILD_ID, STACKID_REC_KSYM) once per
 * epoch, so a file that starts in the middle of a recording would have
 * samples whose indexes nothing defines and whose files and cgroups
 * nothing names. Before each sample, the recorder writes what that
 * sample needs and the file does not hold yet: the build-id and kernel
 * symbol records of its frames' indexes, as the stream defines them at
 * that point, the path records of those build-ids and the cgroup record
 * of its cgroup. A file thus holds what its own samples need: its size
 * grows with its samples, not with everything the run has seen, and all
 * of it counts against --max-size like any record.
 *
 * Path and cgroup records are kept (whole, without duplicates) up to
 * REPLAY_KEEP_MAX bytes; records beyond that are not kept, which the
 * statistics say (later files cannot name those files and cgroups).
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "rec.h"

#define KIND_BUILD_ID	1
#define KIND_KSYM	2

static void mark_def(struct replay *rp, unsigned int kind, unsigned int ring,
		     unsigned int index)
{
	unsigned char k[12] = { kind };

	memcpy(k + 2, &(uint16_t){ ring }, 2);
	memcpy(k + 4, &(uint16_t){ index }, 2);
	memcpy(k + 8, &rp->gen[ring], 4);
	intern_bytes(&rp->fdef, k, sizeof(k));
}

static bool file_has_def(const struct replay *rp, unsigned int kind,
			 unsigned int ring, unsigned int index)
{
	unsigned char k[12] = { kind };

	memcpy(k + 2, &(uint16_t){ ring }, 2);
	memcpy(k + 4, &(uint16_t){ index }, 2);
	memcpy(k + 8, &rp->gen[ring], 4);
	return intern_find(&rp->fdef, k, sizeof(k)) >= 0;
}

/* The key of a build-id's path records ('b') or a cgroup's ('c'). */
static size_t bid_key(unsigned char *k, const uint8_t *id, unsigned int len)
{
	k[0] = 'b';
	k[1] = len;
	memcpy(k + 2, id, len);
	return 2 + len;
}

static size_t cg_key(unsigned char *k, uint64_t id)
{
	k[0] = 'c';
	memcpy(k + 1, &id, 8);
	return 9;
}

void replay_file_start(struct replay *rp)
{
	intern_free(&rp->fdef);
	intern_free(&rp->fkeys);
	if (!rp->gen)
		rp->gen = xcalloc(1 << 16, sizeof(*rp->gen));
}

/* The kept records of key @k, if the file does not hold them yet. */
static void need_key(struct replay *rp, const unsigned char *k, size_t kl,
		     struct strbuf *pre, bool mark)
{
	long i;

	if (intern_find(&rp->fkeys, k, kl) >= 0)
		return;
	i = intern_find(&rp->keys, k, kl);
	if (i < 0)
		return;
	sb_add(pre, rp->recs[i].buf, rp->recs[i].len);
	if (mark)
		intern_bytes(&rp->fkeys, k, kl);
}

static void need_build_id(struct replay *rp, unsigned int ring,
			  unsigned int index, struct strbuf *pre, bool mark,
			  uint16_t major)
{
	const struct bidtab_entry *e = bidtab_get(&rp->bids, ring, index);
	struct stackid_build_id b;
	unsigned char k[2 + STACKID_BUILD_ID_SIZE];

	if (!e)
		return;		/* never defined: nothing can help */
	if (!file_has_def(rp, KIND_BUILD_ID, ring, index)) {
		memset(&b, 0, sizeof(b));
		b.hdr.size = sizeof(b);
		b.hdr.type = STACKID_REC_BUILD_ID;
		b.hdr.abi_major = major;
		b.ring = ring;
		b.index = index;
		b.build_id_len = e->len;
		memcpy(b.build_id, e->id, e->len);
		sb_add(pre, &b, sizeof(b));
		if (mark)
			mark_def(rp, KIND_BUILD_ID, ring, index);
	}
	need_key(rp, k, bid_key(k, e->id, e->len), pre, mark);
}

static void need_ksym(struct replay *rp, unsigned int ring,
		      unsigned int index, struct strbuf *pre, bool mark,
		      uint16_t major)
{
	const struct bidtab_ksym *s = bidtab_get_ksym(&rp->bids, ring, index);
	unsigned char buf[STACKID_RECORD_MAX];
	struct stackid_ksym k;
	size_t size;

	if (!s || file_has_def(rp, KIND_KSYM, ring, index))
		return;
	size = stackid_ksym_record_size(s->name_len, s->module_len);
	if (size > sizeof(buf))
		return;
	memset(buf, 0, size);
	memset(&k, 0, sizeof(k));
	k.hdr.size = size;
	k.hdr.type = STACKID_REC_KSYM;
	k.hdr.abi_major = major;
	k.ring = ring;
	k.index = index;
	k.name_len = s->name_len;
	k.module_len = s->module_len;
	memcpy(buf, &k, sizeof(k));
	memcpy(buf + sizeof(k), s->name, s->name_len);
	memcpy(buf + sizeof(k) + s->name_len, s->module, s->module_len);
	sb_add(pre, buf, size);
	if (mark)
		mark_def(rp, KIND_KSYM, ring, index);
}

void replay_need(struct replay *rp, const void *rec, struct strbuf *pre,
		 bool mark, uint16_t major)
{
	const struct stackid_sample *s = rec;
	struct stackid_frame fb;
	unsigned char k[9];
	unsigned int i;

	if (!stackid_is_sample(s->hdr.type))
		return;
	for (i = 0; i < s->nr_frames; i++) {
		const struct stackid_frame *f = &fb;

		stackid_sample_frame(s, i, &fb);

		if (!f->bid)
			continue;
		if (f->status == STACKID_FRAME_VALID)
			need_build_id(rp, s->ring, f->bid, pre, mark, major);
		else if (f->status == STACKID_FRAME_KERNEL)
			need_ksym(rp, s->ring, f->bid, pre, mark, major);
	}
	if (s->cgroup_id)
		need_key(rp, k, cg_key(k, s->cgroup_id), pre, mark);
}

/* Keep a path or cgroup record under key @k, once. */
static void keep(struct replay *rp, const unsigned char *k, size_t kl,
		 const struct stackid_record_hdr *h)
{
	unsigned int i;

	if (intern_find(&rp->seen, h, h->size) >= 0)
		return;
	if (rp->kept + h->size > REPLAY_KEEP_MAX) {
		rp->not_kept++;
		return;
	}
	intern_bytes(&rp->seen, h, h->size);
	i = intern_bytes(&rp->keys, k, kl);
	if (i >= rp->nrecs) {
		rp->recs = xreallocarray(rp->recs, i + 1, sizeof(*rp->recs));
		memset(rp->recs + rp->nrecs, 0,
		       (i + 1 - rp->nrecs) * sizeof(*rp->recs));
		rp->nrecs = i + 1;
	}
	sb_add(&rp->recs[i], h, h->size);
	rp->kept += h->size;
}

void replay_take(struct replay *rp, const void *rec, bool written)
{
	const struct stackid_record_hdr *h = rec;
	unsigned char k[2 + STACKID_BUILD_ID_SIZE];
	size_t kl;

	switch (h->type) {
	case STACKID_REC_EPOCH:
		rp->gen[((const struct stackid_epoch *)rec)->ring]++;
		bidtab_take(&rp->bids, h);
		return;
	case STACKID_REC_BUILD_ID: {
		const struct stackid_build_id *b = rec;

		bidtab_take(&rp->bids, h);
		if (written)
			mark_def(rp, KIND_BUILD_ID, b->ring, b->index);
		return;
	}
	case STACKID_REC_KSYM: {
		const struct stackid_ksym *s = rec;

		bidtab_take(&rp->bids, h);
		if (written)
			mark_def(rp, KIND_KSYM, s->ring, s->index);
		return;
	}
	case STACKID_REC_BUILD_ID_PATH: {
		const struct stackid_build_id_path *p = rec;

		kl = bid_key(k, p->build_id, p->build_id_len);
		break;
	}
	case STACKID_REC_CGROUP:
		kl = cg_key(k, ((const struct stackid_cgroup *)rec)->id);
		break;
	default:
		return;
	}
	keep(rp, k, kl, h);
	if (written)
		intern_bytes(&rp->fkeys, k, kl);
}

void replay_free(struct replay *rp)
{
	unsigned int i;

	bidtab_free(&rp->bids);
	intern_free(&rp->seen);
	intern_free(&rp->keys);
	for (i = 0; i < rp->nrecs; i++)
		sb_free(&rp->recs[i]);
	free(rp->recs);
	free(rp->gen);
	intern_free(&rp->fdef);
	intern_free(&rp->fkeys);
	memset(rp, 0, sizeof(*rp));
}
