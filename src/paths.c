// SPDX-License-Identifier: GPL-2.0
/*
 * Build-id -> path records, so that a capture names the file behind each
 * build-id and can be symbolized after the process is gone.
 *
 * The sampling path only hands over a reference: when it parses a
 * build-id that is not cached yet, it takes a reference on the mapped
 * file (get_file() is one atomic increment) and parks it with the
 * build-id in a free per-CPU slot, then raises an irq_work that schedules
 * a work item. The work item, in process context, turns each parked file
 * into a path with file_path(), skips build-ids already reported since the
 * last enable, writes a STACKID_REC_BUILD_ID_PATH record into the ring of
 * the CPU it runs on, and drops the reference. When every slot is taken,
 * the build-id is not cached, so a later sample parks it again: nothing
 * is forgotten, only delayed. A record that finds its ring full is
 * counted in STACKID_STAT_PATHS_DROPPED.
 *
 * A slot belongs to the sampling CPU while its file pointer is NULL and
 * to the work item while it is not; the release/acquire pair on the
 * pointer orders the build-id bytes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>

#include "internal.h"

/* Build-ids reported since the last enable; process context only. */
#define STACKID_REPORTED_MAX	8192
struct stackid_reported {
	struct hlist_node node;
	u8 len;
	u8 id[STACKID_BUILD_ID_SIZE];
};

static DEFINE_HASHTABLE(stackid_reported, 10);
static unsigned int stackid_nreported;
static DEFINE_MUTEX(stackid_paths_lock);

static void stackid_paths_fn(struct work_struct *work);
static DECLARE_WORK(stackid_paths_work, stackid_paths_fn);

/* Sampling path: park @file for a path record. False if no slot is free. */
bool stackid_paths_park(struct stackid_cpu *c, struct file *file,
			const u8 *id, u8 len)
{
	unsigned int i;

	for (i = 0; i < STACKID_PATH_SLOTS; i++) {
		struct stackid_path_slot *s = &c->path_slots[i];

		if (READ_ONCE(s->file))
			continue;
		memcpy(s->id, id, len);
		s->len = len;
		get_file(file);
		/* hand the slot over: build-id bytes before the pointer */
		smp_store_release(&s->file, file);
		irq_work_queue(&c->path_irq_work);
		return true;
	}
	return false;
}

void stackid_paths_irq_fn(struct irq_work *work)
{
	schedule_work(&stackid_paths_work);
}

/* True if @id was reported already; else remember it. */
static bool stackid_seen(const u8 *id, u8 len)
{
	u32 key = jhash(id, len, 0);
	struct stackid_reported *r;

	hash_for_each_possible(stackid_reported, r, node, key)
		if (r->len == len && !memcmp(r->id, id, len))
			return true;
	if (stackid_nreported >= STACKID_REPORTED_MAX)
		return false;	/* report again rather than forget */
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return false;
	r->len = len;
	memcpy(r->id, id, len);
	hash_add(stackid_reported, &r->node, key);
	stackid_nreported++;
	return false;
}

/**
 * stackid_write_here - write a record from process context
 * @rec: the record
 * @size: its size
 * @ok_stat: counter for a written record
 * @fail_stat: counter for a full ring
 *
 * Writes into the ring of the CPU it runs on, with interrupts off and the
 * CPU's busy flag set, so that CPU's sampler, the ring's only other
 * producer, cannot interleave: an NMI sample arriving meanwhile sees busy
 * and counts itself nested.
 */
bool stackid_write_here(const void *rec, u32 size, int ok_stat,
			int fail_stat)
{
	struct stackid_cpu *c;
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	c = sid.cpus[smp_processor_id()];
	WRITE_ONCE(c->busy, 1);
	barrier();
	ok = stackid_ring_write(&c->ring, rec, size);
	stackid_stat_inc(c, ok ? ok_stat : fail_stat);
	barrier();
	WRITE_ONCE(c->busy, 0);
	local_irq_restore(flags);
	return ok;
}

static void stackid_report_file(struct stackid_build_id_path *rec,
				char *buf, struct file *file,
				const u8 *id, u8 len)
{
	char *path;
	size_t plen;

	if (stackid_seen(id, len))
		return;
	path = file_path(file, buf, PATH_MAX);
	if (IS_ERR(path))
		path = "";
	plen = strlen(path);
	if (plen > STACKID_PATH_MAX)
		plen = 0;	/* too long to carry: report the build-id */
	memset(rec, 0, sizeof(*rec) + plen + 8);
	rec->hdr.type = STACKID_REC_BUILD_ID_PATH;
	rec->hdr.abi_major = STACKID_ABI_MAJOR;
	rec->hdr.size = ALIGN(sizeof(*rec) + plen + 1, 8);
	memcpy(rec->build_id, id, len);
	rec->build_id_len = len;
	rec->path_len = plen;
	memcpy(rec->path, path, plen);
	stackid_write_here(rec, rec->hdr.size, STACKID_STAT_PATHS,
			   STACKID_STAT_PATHS_DROPPED);
}

/*
 * Process context: a path record for @file unless @id was reported since
 * the last enable.
 */
void stackid_paths_report(struct file *file, const u8 *id, u8 len)
{
	struct stackid_build_id_path *rec;
	char *buf;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	rec = kmalloc(STACKID_RECORD_MAX + 8, GFP_KERNEL);
	mutex_lock(&stackid_paths_lock);
	if (buf && rec)
		stackid_report_file(rec, buf, file, id, len);
	else if (!stackid_seen(id, len))
		stackid_stat_inc_here(STACKID_STAT_PATHS_DROPPED);
	mutex_unlock(&stackid_paths_lock);
	kfree(rec);
	kfree(buf);
}

static void stackid_paths_fn(struct work_struct *work)
{
	u8 id[STACKID_BUILD_ID_SIZE];
	struct file *file;
	int cpu, i;
	u8 len;

	for_each_possible_cpu(cpu) {
		struct stackid_cpu *c = sid.cpus[cpu];

		for (i = 0; i < STACKID_PATH_SLOTS; i++) {
			struct stackid_path_slot *s = &c->path_slots[i];

			/* pairs with the release in stackid_paths_park() */
			file = smp_load_acquire(&s->file);
			if (!file)
				continue;
			len = s->len;
			memcpy(id, s->id, len);
			/* give the slot back once its bytes are copied */
			smp_store_release(&s->file, NULL);
			stackid_paths_report(file, id, len);
			fput(file);
		}
	}
	wake_up_interruptible(&sid.wq);
}

/* A new session: every build-id gets its path record again. */
void stackid_paths_reset(void)
{
	struct stackid_reported *r;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&stackid_paths_lock);
	hash_for_each_safe(stackid_reported, bkt, tmp, r, node) {
		hash_del(&r->node);
		kfree(r);
	}
	stackid_nreported = 0;
	mutex_unlock(&stackid_paths_lock);
}

/* After the samplers stopped: run what is parked, then wait for it. */
void stackid_paths_flush(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&sid.cpus[cpu]->path_irq_work);
	schedule_work(&stackid_paths_work);
	flush_work(&stackid_paths_work);
}
