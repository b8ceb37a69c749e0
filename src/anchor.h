/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackid_anchor.ko: the task_work function of stackid's deferred
 * samples, in a module of its own, so that stackid can be unloaded while
 * tasks asleep in the kernel still have its works queued (anchor.c).
 *
 * Its interface is frozen: a stackid of a later version binds to the one
 * already loaded (STACKID_ANCHOR_API says which it speaks).
 */
#ifndef STACKID_ANCHOR_H
#define STACKID_ANCHOR_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/refcount.h>

struct module;
struct mm_struct;
struct file;

#define STACKID_ANCHOR_API	1

/*
 * Memory that queued works live in: the first member of a kvmalloc()ed
 * block. It starts with one reference, its owner's; each queued work
 * holds one more. Whoever drops the last frees the block (kvfree()).
 */
struct stackid_anchor_block {
	refcount_t refs;
};

/*
 * A work queued with task_work_add(), its function stackid_anchor_run().
 * Its owner fills it in, then takes one reference on @block and one on
 * @pin (get_file()) for it, and counts it in stackid_anchor_queued;
 * stackid_anchor_run() drops the mm's, the block's and the pin's, in
 * that order, after the owner's function, and uncounts it.
 */
struct stackid_anchor_work {
	struct callback_head cb;
	struct stackid_anchor_block *block;
	struct mm_struct *mm;		/* mmgrab()ed */
	struct file *pin;		/* stackid_anchor_register()'s */
	u64 gen;			/* of the registration that queued it */
};

/*
 * What stackid_anchor_register() returns: the pin file (it holds this
 * module while a work that may call into it is queued) and the
 * registration's generation, for each work it queues.
 */
struct stackid_anchor_reg {
	struct file *pin;
	u64 gen;
};

/* works queued and not yet run: the owner adds one for each it queues */
extern atomic_long_t stackid_anchor_queued;

int stackid_anchor_register(unsigned int api, struct module *owner,
			    void (*fn)(struct stackid_anchor_work *w),
			    struct stackid_anchor_reg *reg);
void stackid_anchor_unregister(void);
void stackid_anchor_run(struct callback_head *cb);
void stackid_anchor_block_put(struct stackid_anchor_block *b);

#endif /* STACKID_ANCHOR_H */
