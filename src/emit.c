// SPDX-License-Identifier: GPL-2.0
/*
 * Writing records into a ring: samples, with the build-id table records
 * they need, and path records. Runs on the ring's own CPU, in its
 * handler or in process context holding stackid_cpu_get(): the ring's
 * only producer at that moment (ring.h).
 *
 * Build-id table: a valid frame names its build-id by a 16-bit index
 * into its ring's table. The first time in an epoch that a sample uses a
 * build-id, a STACKID_REC_BUILD_ID record giving it an index goes into
 * the ring just before the sample; the CPU's cache entry remembers the
 * index and epoch, so later samples just use it. When the indices run
 * out, and at each enable, the ring starts a new epoch with a
 * STACKID_REC_EPOCH record. A sample and the records it needs are
 * written together or not at all (ring full: dropped and counted), and
 * published with one head update.
 */
#include <linux/irq_work.h>
#include <linux/string.h>
#include <linux/kallsyms.h>

#include "internal.h"
#include "packed.h"

#define STACKID_INDEX_MAX	65535

static void stackid_put_epoch(struct stackid_cpu *c)
{
	struct stackid_epoch e = {
		.hdr = {
			.size = sizeof(e),
			.type = STACKID_REC_EPOCH,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.ring = c->cpu,
	};

	stackid_ring_put(&c->ring.r, &e, sizeof(e));
	stackid_stat_inc(c, STACKID_STAT_EPOCHS);
}

static void stackid_put_build_id(struct stackid_cpu *c, u16 index,
				 const struct stackid_kfile *kf)
{
	struct stackid_build_id b = {
		.hdr = {
			.size = sizeof(b),
			.type = STACKID_REC_BUILD_ID,
			.abi_major = STACKID_ABI_MAJOR,
		},
		.ring = c->cpu,
		.index = index,
		.build_id_len = kf->len,
	};

	memcpy(b.build_id, kf->id, kf->len);
	stackid_ring_put(&c->ring.r, &b, sizeof(b));
	stackid_stat_inc(c, STACKID_STAT_BUILD_IDS);
}

/* Wake readers (through irq_work: this may be NMI) at the watermark. */
void stackid_ring_wakeup_check(struct stackid_cpu *c)
{
	struct stackid_kring *kr = &c->ring;
	u32 mark = READ_ONCE(stackid_state.watermark);
	u64 used = kr->r.head - READ_ONCE(kr->r.ctl->tail);

	if (!mark)
		mark = kr->r.size / 4;
	if (used < mark) {
		/* drained below the mark (read() or mmap): wake again */
		if (READ_ONCE(kr->woken))
			WRITE_ONCE(kr->woken, false);
		return;
	}
	if (READ_ONCE(kr->woken))
		return;
	WRITE_ONCE(kr->woken, true);
	irq_work_queue(&c->wake_work);
}

/* The cache entry that holds @kf's index in this ring, or NULL. */
static struct stackid_bid_entry *stackid_index_entry(struct stackid_cpu *c,
						     struct stackid_kfile *kf,
						     u32 pin)
{
	struct stackid_bid_entry *e = kf->entry;

	if (e)
		return e;	/* the handler's own hit, still in place */
	e = stackid_bidcache_find(&c->cache, &kf->key);
	if (e)
		return e;
	e = stackid_bidcache_insert(&c->cache, &kf->key, pin);
	if (e) {
		e->len = kf->len;
		memcpy(e->id, kf->id, kf->len);
	}
	return e;
}

/* A kernel symbol record's size. */
static u32 stackid_ksym_size(const struct stackid_ksym_name *kn)
{
	return ALIGN(sizeof(struct stackid_ksym) + kn->name_len +
		     kn->module_len + 1, 8);
}

static void stackid_put_ksym(struct stackid_cpu *c, u16 index,
			     const struct stackid_ksym_name *kn)
{
	struct stackid_ksym *k = (struct stackid_ksym *)c->ksym_buf.rec;
	u32 size = stackid_ksym_size(kn);

	BUILD_BUG_ON(sizeof(c->ksym_buf) < STACKID_KSYM_REC_MAX);
	memset(k, 0, size);
	k->hdr.size = size;
	k->hdr.type = STACKID_REC_KSYM;
	k->hdr.abi_major = STACKID_ABI_MAJOR;
	k->ring = c->cpu;
	k->index = index;
	k->name_len = kn->name_len;
	k->module_len = kn->module_len;
	memcpy(k->name, kn->name, kn->name_len);
	memcpy(k->name + kn->name_len, kn->module, kn->module_len);
	stackid_ring_put(&c->ring.r, k, size);
	stackid_stat_inc(c, STACKID_STAT_KSYMS);
}

/*
 * Name the sample's kernel frames, for @epoch: fills the scratch; returns
 * the bytes of the symbol records they need.
 */
static u32 stackid_emit_kernel_names(struct stackid_cpu *c,
				     struct stackid_ksample *ks, u32 epoch,
				     unsigned int *nfresh)
{
	struct stackid_emit_scratch *x = &c->emit;
	unsigned int i, j, nk = ks->hdr.nr_kernel;
	u32 bytes = 0;

	*nfresh = 0;
	for (i = 0; i < nk; i++) {
		unsigned long a = ks->kips[i];
		struct stackid_ksym_entry *slot = stackid_ksym_slot(c, a);

		x->kent[i] = NULL;
		x->kfresh[i] = false;
		x->kdup[i] = -1;
		for (j = 0; j < i; j++) {
			if (ks->kips[j] == a) {
				x->kdup[i] = j;
				break;
			}
			if (x->kent[j] == slot)
				break;	/* taken by another address of ours */
		}
		if (x->kdup[i] >= 0)
			continue;
		if (j < i) {
			x->knamed[i] = stackid_ksym_name_of(c, a, &x->knames[i],
							    &x->koff[i]);
			x->kfresh[i] = x->knamed[i];
		} else {
			struct stackid_ksym_entry *e;

			e = stackid_ksym_lookup(c, a, epoch, &x->knames[i],
						&x->kfresh[i]);
			x->kent[i] = e;
			x->knamed[i] = e->named;
			x->koff[i] = e->off;
			x->kidx[i] = e->index;
		}
		if (x->kfresh[i]) {
			(*nfresh)++;
			bytes += stackid_ksym_size(&x->knames[i]);
		}
	}
	return bytes;
}

/*
 * Whether @ks's frames all pack (packed.h): kernel frames always do
 * (a 16-bit index, a 32-bit offset); user frames by how, offset, address
 * and reason.
 */
static bool stackid_sample_packs(const struct stackid_ksample *ks)
{
	unsigned int i;

	for (i = 0; i < stackid_nr_user(ks); i++) {
		const struct stackid_kframe *kf = &ks->frames[i];
		bool file = kf->status == KS_FILE;

		if (!stackid_pf_fits(!file, kf->how, file ? kf->off : kf->addr,
				     file ? 0 : kf->reason))
			return false;
	}
	return true;
}

/* Frame @i of the record being built, 16 bytes or packed into 8. */
static void stackid_put_frame(struct stackid_sample *s, unsigned int i,
			      const struct stackid_frame *f, bool packed)
{
	if (packed)
		((u64 *)s->frames)[i] = stackid_frame_pack(f);
	else
		s->frames[i] = *f;
}

/*
 * The sample @s (@size bytes) into the ring, whole or, for a packed one
 * when the reader asked for it (@delta), as the frames that differ from
 * the ring's previous sample. The ring's previous sample is kept here,
 * never read back from the ring, which its reader can write.
 */
static void stackid_put_sample(struct stackid_cpu *c,
			       const struct stackid_sample *s, u32 size,
			       bool packed, bool delta)
{
	struct stackid_kring *kr = &c->ring;
	const u64 *pf = (const u64 *)s->frames;
	struct stackid_sample_delta d;
	int same;

	if (!packed || !delta) {
		/* kept only for a reader of deltas: none follows this one */
		stackid_ring_put(&kr->r, s, size);
		stackid_delta_forget(&kr->prev);
		return;
	}
	same = stackid_delta_same(&kr->prev, s, pf);
	if (same < 0) {
		stackid_ring_put(&kr->r, s, size);
	} else {
		stackid_delta_hdr(&d, s, same);
		stackid_ring_put(&kr->r, &d, sizeof(d));
		stackid_ring_put(&kr->r, pf, d.hdr.size - sizeof(d));
		stackid_stat_inc(c, STACKID_STAT_DELTA);
	}
	stackid_delta_take(&kr->prev, s, pf, same >= 0);
}

/**
 * stackid_emit_sample - write a finished sample into this CPU's ring
 * @c: this CPU's sampler state, held
 * @ks: the sample: kernel frames in kips[], user frames KS_FILE (their
 *	file KF_KNOWN) or KS_IP
 *
 * Return: true if delivered; false if the ring had no room (counted).
 */
bool stackid_emit_sample(struct stackid_cpu *c, struct stackid_ksample *ks)
{
	struct stackid_emit_scratch *x = &c->emit;
	struct stackid_bid_entry **ent = x->ent;
	u16 *index = x->index;
	bool *used = x->used, *fresh = x->fresh;
	struct stackid_kring *kr = &c->ring;
	struct stackid_sample *s = (struct stackid_sample *)c->rec;
	unsigned int i, nk = ks->hdr.nr_kernel, nu = stackid_nr_user(ks);
	unsigned int nused = 0, nfresh = 0, nkfresh;
	u32 pin = stackid_bidcache_tick(&c->cache), size, need, kbytes;
	bool epoch = kr->epoch_due, packed;
	u32 fmt = READ_ONCE(stackid_state.format);
	struct stackid_frame f;

	memset(used, 0, ks->nr_files * sizeof(*used));
	memset(fresh, 0, ks->nr_files * sizeof(*fresh));
	for (i = 0; i < nu; i++)
		if (ks->frames[i].status == KS_FILE)
			used[ks->frames[i].file] = true;
	for (i = 0; i < ks->nr_files; i++) {
		if (!used[i])
			continue;
		nused++;
		ent[i] = stackid_index_entry(c, &ks->files[i], pin);
		if (ent[i] && ent[i]->epoch == kr->epoch && ent[i]->index) {
			index[i] = ent[i]->index;
		} else {
			fresh[i] = true;
			nfresh++;
		}
	}
	if (kr->next_index + nfresh > STACKID_INDEX_MAX + 1 ||
	    kr->next_kindex + nk > STACKID_INDEX_MAX + 1)
		epoch = true;
	if (epoch) {
		for (i = 0; i < ks->nr_files; i++)
			fresh[i] = used[i];
		nfresh = nused;
	}
	kbytes = stackid_emit_kernel_names(c, ks, epoch ? kr->epoch + 1 :
						      kr->epoch, &nkfresh);
	packed = (fmt & STACKID_FORMAT_PACKED) && stackid_sample_packs(ks);
	size = sizeof(*s) + (nk + nu) * (packed ? sizeof(u64) :
						 sizeof(s->frames[0]));
	need = size + nfresh * sizeof(struct stackid_build_id) + kbytes +
	       (epoch ? sizeof(struct stackid_epoch) : 0);
	if (stackid_ring_room(&kr->r) < need) {
		stackid_stat_inc(c, STACKID_STAT_DROP_RING_FULL);
		return false;
	}

	if (epoch) {
		kr->epoch++;
		kr->next_index = 1;
		kr->next_kindex = 1;
		kr->epoch_due = false;
		stackid_delta_forget(&kr->prev);
		stackid_put_epoch(c);
	}
	for (i = 0; i < ks->nr_files; i++) {
		if (!fresh[i])
			continue;
		index[i] = kr->next_index++;
		if (ent[i]) {
			ent[i]->epoch = kr->epoch;
			ent[i]->index = index[i];
		}
		stackid_put_build_id(c, index[i], &ks->files[i]);
	}
	for (i = 0; i < nk; i++) {
		if (x->kdup[i] >= 0) {
			x->kidx[i] = x->kidx[x->kdup[i]];
			x->koff[i] = x->koff[x->kdup[i]];
			x->knamed[i] = x->knamed[x->kdup[i]];
			continue;
		}
		if (!x->kfresh[i])
			continue;
		x->kidx[i] = kr->next_kindex++;
		if (x->kent[i]) {
			x->kent[i]->epoch = kr->epoch;
			x->kent[i]->index = x->kidx[i];
		}
		stackid_put_ksym(c, x->kidx[i], &x->knames[i]);
	}

	*s = ks->hdr;
	s->hdr.size = size;
	s->hdr.type = packed ? STACKID_REC_SAMPLE_PACKED : STACKID_REC_SAMPLE;
	s->hdr.abi_major = STACKID_ABI_MAJOR;
	s->ring = c->cpu;
	for (i = 0; i < nk; i++) {
		memset(&f, 0, sizeof(f));
		f.status = STACKID_FRAME_KERNEL;
		if (x->knamed[i]) {
			f.bid = x->kidx[i];
			f.addr = x->koff[i];
		}
		stackid_put_frame(s, i, &f, packed);
	}
	for (i = 0; i < nu; i++) {
		const struct stackid_kframe *kf = &ks->frames[i];

		memset(&f, 0, sizeof(f));
		f.how = kf->how;
		if (kf->status == KS_FILE) {
			f.status = STACKID_FRAME_VALID;
			f.addr = kf->off;
			f.bid = index[kf->file];
		} else {
			f.status = STACKID_FRAME_IP;
			f.addr = kf->addr;
			f.reason = kf->reason;
		}
		stackid_put_frame(s, nk + i, &f, packed);
	}
	stackid_put_sample(c, s, size, packed, fmt & STACKID_FORMAT_DELTA);
	stackid_ring_publish(&kr->r);
	stackid_stat_inc(c, STACKID_STAT_DELIVERED);
	stackid_ring_wakeup_check(c);
	return true;
}

/**
 * stackid_emit_raw - write one ready-made record into this CPU's ring
 * @c: this CPU's sampler state, held
 * @rec: the record, hdr.size bytes
 * @size: its size
 *
 * Return: false if the ring had no room (the caller counts it).
 */
bool stackid_emit_raw(struct stackid_cpu *c, const void *rec, u32 size)
{
	if (stackid_ring_room(&c->ring.r) < size)
		return false;
	stackid_ring_put(&c->ring.r, rec, size);
	stackid_ring_publish(&c->ring.r);
	stackid_ring_wakeup_check(c);
	return true;
}
