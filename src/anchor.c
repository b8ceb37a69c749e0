// SPDX-License-Identifier: GPL-2.0
/*
 * stackid_anchor.ko: the function that stackid's queued task works name.
 *
 * Why a module of its own. A sample that stackid's handler cannot finish
 * waits for its task in a task_work (task.c). A task sampled just before
 * it sleeps in the kernel (epoll_wait(), a futex) runs that work only
 * when it wakes, maybe hours later, and the kernel gives a module no way
 * to take a queued work back (task_work_cancel() is not exported). While
 * such a work is queued its function must stay in memory: when that was
 * stackid's own, "rmmod stackid" failed (in use) for as long as any
 * such task slept.
 *
 * So the works name stackid_anchor_run(), here, which calls stackid's
 * function through a pointer under SRCU, and only for a work of the
 * registration that is current (a stackid loaded again must not be
 * handed its predecessor's works). stackid_anchor_unregister() (stackid's
 * exit) clears the pointer and waits until no call is in progress: after
 * it no work calls into stackid, and a work only drops what it holds.
 * The memory works live in is a block (anchor.h) that its owner hands
 * over at exit; the last work in it frees it.
 *
 * This module is held, as stackid was before, by each queued work: the
 * work holds a reference on the registration's pin, a file whose
 * file_operations this module owns, and drops it with fput() as the last
 * thing it does. fput() from a task never releases the file itself: it
 * queues the release as one more task_work, which task_work_run() runs
 * after this function has returned (a task's works are never run from a
 * kernel thread, and task_work_add() from a running work does not fail,
 * in exit_task_work() too, so fput()'s fallback to a kernel worker is
 * not taken here); the release's module_put() is the kernel's own code
 * (__fput()). So "rmmod stackid_anchor" fails (in use) while a work is
 * queued or stackid is loaded (it uses this module), and works when
 * neither is.
 *
 * Contexts: stackid_anchor_run() runs where task works run: in process
 * context, on the way back to user space, in exit_task_work(), or where
 * a kernel user worker (io_uring, vhost) runs its works; it may sleep
 * (SRCU, and stackid's function takes the mm lock). Register and
 * unregister run in module init and exit.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/anon_inodes.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/srcu.h>
#include <linux/sysfs.h>
#include "anchor.h"

struct stackid_anchor_user {
	struct module *owner;
	void (*fn)(struct stackid_anchor_work *w);
	u64 gen;
	struct file *pin;
};

static struct srcu_struct stackid_anchor_srcu;
static DEFINE_MUTEX(stackid_anchor_lock);	/* register, unregister */
static struct stackid_anchor_user __rcu *stackid_anchor_user;
static u64 stackid_anchor_gen;			/* under the lock */
/* blocks whose owner left while works in them were still queued */
static atomic_long_t stackid_anchor_orphan_blocks = ATOMIC_LONG_INIT(0);
/* works that ran after the registration that queued them had ended */
static atomic_long_t stackid_anchor_orphan_works = ATOMIC_LONG_INIT(0);
/* works queued and not yet run (anchor.h) */
atomic_long_t stackid_anchor_queued = ATOMIC_LONG_INIT(0);
EXPORT_SYMBOL_GPL(stackid_anchor_queued);

/* The counters, read-only parameters: kp->arg is the atomic_long_t. */
static int stackid_anchor_param_ro(const char *val,
				   const struct kernel_param *kp)
{
	return -EPERM;
}

static int stackid_anchor_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops stackid_anchor_count_ops = {
	.set = stackid_anchor_param_ro,
	.get = stackid_anchor_param_get,
};

module_param_cb(queued_works, &stackid_anchor_count_ops,
		&stackid_anchor_queued, 0444);
MODULE_PARM_DESC(queued_works, "Works queued for tasks and not yet run (read-only)");
module_param_cb(orphan_blocks, &stackid_anchor_count_ops,
		&stackid_anchor_orphan_blocks, 0444);
MODULE_PARM_DESC(orphan_blocks, "Blocks of works queued by a stackid since unloaded, still waiting for their tasks (read-only)");
module_param_cb(orphan_works, &stackid_anchor_count_ops,
		&stackid_anchor_orphan_works, 0444);
MODULE_PARM_DESC(orphan_works, "Works that ran after the stackid that queued them was unloaded, so only let go (read-only)");

/* The pin: its only use is to hold this module (see above). */
static const struct file_operations stackid_anchor_fops = {
	.owner = THIS_MODULE,
};

/**
 * stackid_anchor_register - make @fn the function works call
 * @api: STACKID_ANCHOR_API as the caller was built with
 * @owner: the module @fn is in
 * @fn: called by stackid_anchor_run() for each work of this registration,
 *	holding a reference on @owner
 * @reg: receives the pin and the generation the caller's works carry
 *
 * Process context. Return: 0, -EPROTO for another interface, -EBUSY if
 * a registration is current, or an allocation's error.
 */
int stackid_anchor_register(unsigned int api, struct module *owner,
			    void (*fn)(struct stackid_anchor_work *w),
			    struct stackid_anchor_reg *reg)
{
	struct stackid_anchor_user *u;
	struct file *pin;
	int ret = 0;

	if (api != STACKID_ANCHOR_API)
		return -EPROTO;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	pin = anon_inode_getfile("[stackid_anchor]", &stackid_anchor_fops,
				 NULL, O_RDONLY);
	if (IS_ERR(pin)) {
		kfree(u);
		return PTR_ERR(pin);
	}
	mutex_lock(&stackid_anchor_lock);
	if (rcu_access_pointer(stackid_anchor_user)) {
		ret = -EBUSY;
	} else {
		u->owner = owner;
		u->fn = fn;
		u->gen = ++stackid_anchor_gen;
		u->pin = pin;
		reg->pin = pin;
		reg->gen = u->gen;
		rcu_assign_pointer(stackid_anchor_user, u);
	}
	mutex_unlock(&stackid_anchor_lock);
	if (ret) {
		fput(pin);
		kfree(u);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(stackid_anchor_register);

/**
 * stackid_anchor_unregister - no work calls the registered function again
 *
 * Process context; waits for a call in progress to return. Works queued
 * before still run, when their tasks come for them, and then only let
 * go of what they hold.
 */
void stackid_anchor_unregister(void)
{
	struct stackid_anchor_user *u;

	mutex_lock(&stackid_anchor_lock);
	u = rcu_dereference_protected(stackid_anchor_user,
				      lockdep_is_held(&stackid_anchor_lock));
	RCU_INIT_POINTER(stackid_anchor_user, NULL);
	mutex_unlock(&stackid_anchor_lock);
	if (!u)
		return;
	synchronize_srcu(&stackid_anchor_srcu);
	fput(u->pin);
	kfree(u);
}
EXPORT_SYMBOL_GPL(stackid_anchor_unregister);

static void stackid_anchor_block_drop(struct stackid_anchor_block *b)
{
	if (refcount_dec_and_test(&b->refs)) {
		/* the owner's reference went first: it was an orphan */
		atomic_long_dec(&stackid_anchor_orphan_blocks);
		kvfree(b);
	}
}

/**
 * stackid_anchor_block_put - the owner lets go of its block
 * @b: the block, at the start of a kvmalloc()ed allocation
 *
 * Any context that may free. Works still queued in it keep it; the last
 * of them frees it.
 */
void stackid_anchor_block_put(struct stackid_anchor_block *b)
{
	/* counted before, so that the count never goes below zero */
	atomic_long_inc(&stackid_anchor_orphan_blocks);
	stackid_anchor_block_drop(b);
}
EXPORT_SYMBOL_GPL(stackid_anchor_block_put);

/**
 * stackid_anchor_run - the function of every work stackid queues
 * @cb: the work's callback_head, in a struct stackid_anchor_work
 *
 * Task work context (see above).
 */
void stackid_anchor_run(struct callback_head *cb)
{
	struct stackid_anchor_work *w =
		container_of(cb, struct stackid_anchor_work, cb);
	/* @w may be queued again as soon as the owner's function gave it back */
	struct stackid_anchor_block *b = w->block;
	struct mm_struct *mm = w->mm;
	struct file *pin = w->pin;
	u64 gen = w->gen;
	struct stackid_anchor_user *u;
	bool ran = false;
	int idx;

	idx = srcu_read_lock(&stackid_anchor_srcu);
	u = srcu_dereference(stackid_anchor_user, &stackid_anchor_srcu);
	/*
	 * The owner's reference makes "rmmod stackid" fail (in use) while
	 * a call is in progress (it may wait long: the mm lock, a file's
	 * read) rather than wait for it in its exit's synchronize_srcu();
	 * once the owner is going, a work only lets go.
	 */
	if (u && u->gen == gen && try_module_get(u->owner)) {
		u->fn(w);
		module_put(u->owner);
		ran = true;
	}
	srcu_read_unlock(&stackid_anchor_srcu, idx);
	if (!ran)
		atomic_long_inc(&stackid_anchor_orphan_works);
	mmdrop(mm);
	stackid_anchor_block_drop(b);
	atomic_long_dec(&stackid_anchor_queued);
	fput(pin);	/* last: see above */
}
EXPORT_SYMBOL_GPL(stackid_anchor_run);

static int __init stackid_anchor_init(void)
{
	return init_srcu_struct(&stackid_anchor_srcu);
}

/* Nothing registered (stackid held this module), no work queued (each held it). */
static void __exit stackid_anchor_exit(void)
{
	cleanup_srcu_struct(&stackid_anchor_srcu);
}

module_init(stackid_anchor_init);
module_exit(stackid_anchor_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("stackid developers");
MODULE_DESCRIPTION("stackid's deferred-sample work function, so that stackid unloads while tasks sleep");
MODULE_VERSION(STACKID_VERSION);
