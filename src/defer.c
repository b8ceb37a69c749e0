// SPDX-License-Identifier: GPL-2.0
/*
 * Finishing samples in the sampled task's own context.
 *
 * Some frames cannot be resolved from the overflow handler but can be a
 * moment later: the mm lock was contended (often by the task itself, in
 * fork or mmap), the previous unlock was still pending, the ELF page was
 * not uptodate, or the build-id note lies beyond the first page. For such
 * a sample the handler copies the record into a free per-CPU slot and
 * queues a task_work on the sampled task (task_work_add() is exported to
 * modules); it runs before the task returns to user space, in process
 * context, where stackid_resolve_task() retries those frames against the
 * same mm, and the record is then written. If the task exec'd in between
 * (another mm) or is exiting (no mm), the frames stay as they were: a
 * frame is never resolved against another address space.
 *
 * Nothing is lost: with no free slot, or when the task cannot take work
 * (exiting, or NMI on a kernel without TWA_NMI_CURRENT), the sample is
 * delivered at once as it is (counted in DEFER_NO_SLOT when slots ran
 * out). A queued work item holds a reference on this module, so the
 * module cannot go away under it: rmmod fails with EBUSY while a sampled
 * task has not yet returned to user space (tasks do so within a
 * scheduling tick unless blocked in the kernel).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/task_work.h>
#include <linux/file.h>
#include <linux/topology.h>

#include "internal.h"
#include "compat.h"

struct stackid_deferred {
	struct callback_head work;
	struct stackid_cpu *owner;	/* whose slot this is */
	unsigned int slot;
	struct mm_struct *mm;		/* identity only, never dereferenced */
	union {
		struct stackid_sample sample;
		u8 raw[STACKID_RECORD_MAX];
	} rec;
};

#define STACKID_DEFER_FILES	8	/* path records per deferred sample */

static void stackid_defer_finish(struct stackid_deferred *d)
{
	struct stackid_sample *s = &d->rec.sample;
	struct stackid_found found[STACKID_DEFER_FILES];
	unsigned int nfound = ARRAY_SIZE(found), i;
	struct mm_struct *mm = current->mm;
	unsigned long flags;

	if (mm && mm == d->mm && !(current->flags & PF_EXITING)) {
		stackid_resolve_task(mm, s->frames, s->nr_frames, found,
				     &nfound);
		for (i = 0; i < nfound; i++) {
			stackid_paths_report(found[i].file, found[i].id,
					     found[i].len);
			fput(found[i].file);
		}
	}
	s->flags |= STACKID_SF_DEFERRED;

	local_irq_save(flags);
	stackid_count_frames(sid.cpus[smp_processor_id()], s->frames,
			     s->nr_frames);
	local_irq_restore(flags);
	stackid_write_here(s, s->hdr.size, STACKID_STAT_DELIVERED,
			   STACKID_STAT_DROP_RING_FULL);
	stackid_stat_inc_here(STACKID_STAT_DEFERRED_DONE);
	wake_up_interruptible(&sid.wq);

	/* the slot goes back to its CPU's sampler */
	smp_mb__before_atomic();
	clear_bit(d->slot, &d->owner->defer_busy);
}

/*
 * The task_work callback. The module reference taken when the work was
 * queued is dropped last, as a tail call: module_put() then returns
 * straight to task_work_run(), not into this module's text, which may be
 * gone by then.
 */
static void stackid_defer_fn(struct callback_head *work)
{
	stackid_defer_finish(container_of(work, struct stackid_deferred,
					  work));
	module_put(THIS_MODULE);
}

/**
 * stackid_defer - hand a sample over to its task's own context
 * @c: this CPU's sampler state
 * @s: the sample as the handler built it (hdr.size set)
 * @mm: the sampled task's mm
 *
 * Overflow handler context. Returns true if the sample was taken over;
 * false if the caller must deliver it itself.
 */
bool stackid_defer(struct stackid_cpu *c, const struct stackid_sample *s,
		   struct mm_struct *mm)
{
	struct stackid_deferred *d;
	unsigned int i;

	for (i = 0; i < STACKID_DEFER_SLOTS; i++)
		if (!test_and_set_bit(i, &c->defer_busy))
			break;
	if (i == STACKID_DEFER_SLOTS) {
		stackid_stat_inc(c, STACKID_STAT_DEFER_NO_SLOT);
		return false;
	}
	d = c->defer[i];
	memcpy(&d->rec, s, s->hdr.size);
	d->mm = mm;
	init_task_work(&d->work, stackid_defer_fn);
	__module_get(THIS_MODULE);
	if (stackid_task_work_add_current(&d->work)) {
		module_put(THIS_MODULE);
		clear_bit(i, &c->defer_busy);
		return false;
	}
	stackid_stat_inc(c, STACKID_STAT_DEFERRED);
	return true;
}

int stackid_defer_alloc(struct stackid_cpu *c)
{
	unsigned int i;

	BUILD_BUG_ON(STACKID_DEFER_SLOTS > BITS_PER_LONG);
	for (i = 0; i < STACKID_DEFER_SLOTS; i++) {
		c->defer[i] = kzalloc_node(sizeof(*c->defer[i]), GFP_KERNEL,
					   cpu_to_node(c->cpu));
		if (!c->defer[i])
			return -ENOMEM;
		c->defer[i]->owner = c;
		c->defer[i]->slot = i;
	}
	return 0;
}

/* Module exit: no work can be pending (each holds a module reference). */
void stackid_defer_free(struct stackid_cpu *c)
{
	unsigned int i;

	for (i = 0; i < STACKID_DEFER_SLOTS; i++)
		kfree(c->defer[i]);
}
