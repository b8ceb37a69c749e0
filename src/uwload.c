// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables from user space (STACKID_IOC_ADD_UNWIND), in process
 * context: checked on a copy the module owns, hashed by build-id for the
 * walk (unwind.c), bounded all together by the unwind_kb parameter, and
 * dropped together after a grace period when the reader closes the
 * device or the module goes. Nothing here runs in the sampling path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/overflow.h>

#include "internal.h"
#include "uwtab.h"

static DEFINE_MUTEX(stackid_uw_lock);
struct hlist_head stackid_uw_hash[1 << STACKID_UW_HASH_BITS];
static unsigned int stackid_uw_tables;	/* under stackid_uw_lock */
static u64 stackid_uw_rows;
static size_t stackid_uw_bytes;
/* nonzero while any table is loaded: the handler's quick check */
atomic_t stackid_uw_loaded = ATOMIC_INIT(0);
/*
 * Bumped after a table is hashed and after tables are unhashed (before
 * they are freed): a walk's remembered table (unwind.c) counts only if
 * this has not moved since it was found.
 */
atomic_t stackid_uw_gen = ATOMIC_INIT(0);

/**
 * stackid_unwind_add - STACKID_IOC_ADD_UNWIND
 * @arg: the user's struct stackid_unwind_table
 *
 * Process context. The rows are copied into memory of the module's own
 * and checked there, so nothing the caller changes later matters; the
 * mutex covers only the limits, the duplicate check and the insert.
 */
long stackid_unwind_add(const void __user *arg)
{
	struct stackid_unwind_table ut;
	struct stackid_utable *t;
	size_t bytes, limit;
	bool dup;
	long ret;

	if (copy_from_user(&ut, arg, sizeof(ut)))
		return -EFAULT;
	if (ut.__pad[0] || ut.__pad[1] || ut.__pad[2] || ut.__pad2 ||
	    !ut.build_id_len || ut.build_id_len > STACKID_BUILD_ID_SIZE ||
	    !ut.nr_rows || ut.nr_rows > STACKID_UW_MAX_ROWS)
		return -EINVAL;
	bytes = struct_size(t, rows, ut.nr_rows);
	limit = (size_t)READ_ONCE(stackid_param_unwind_kb) * 1024;
	if (bytes > limit)
		return -ENOSPC;
	/* the slow part (allocation, a copy that may fault) unlocked */
	t = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(t->rows, u64_to_user_ptr(ut.rows),
			   array_size(ut.nr_rows, sizeof(t->rows[0]))))
		goto free;
	ret = -EINVAL;
	if (stackid_uw_check(t->rows, ut.nr_rows))
		goto free;
	t->nr = ut.nr_rows;
	t->len = ut.build_id_len;
	memset(t->id, 0, sizeof(t->id));
	memcpy(t->id, ut.build_id, t->len);
	t->bytes = bytes;

	mutex_lock(&stackid_uw_lock);
	ret = -ENOSPC;
	if (stackid_uw_bytes > limit - bytes ||
	    stackid_uw_tables >= STACKID_UW_MAX_TABLES)
		goto unlock;
	rcu_read_lock();
	dup = stackid_uw_table(t->id, t->len);
	rcu_read_unlock();
	ret = -EEXIST;
	if (dup)
		goto unlock;
	hlist_add_head_rcu(&t->node,
			   &stackid_uw_hash[stackid_uw_hashfn(t->id, t->len)]);
	stackid_uw_tables++;
	stackid_uw_rows += t->nr;
	stackid_uw_bytes += bytes;
	atomic_set(&stackid_uw_loaded, 1);
	smp_mb__before_atomic();	/* the add, then the bump */
	atomic_inc(&stackid_uw_gen);
	mutex_unlock(&stackid_uw_lock);
	return 0;
unlock:
	mutex_unlock(&stackid_uw_lock);
free:
	kvfree(t);
	return ret;
}

/* STACKID_IOC_GET_UNWIND */
long stackid_unwind_info(void __user *arg)
{
	struct stackid_unwind_info info = { 0 };

	mutex_lock(&stackid_uw_lock);
	info.tables = stackid_uw_tables;
	info.rows = stackid_uw_rows;
	info.bytes = stackid_uw_bytes;
	mutex_unlock(&stackid_uw_lock);
	info.limit = (u64)READ_ONCE(stackid_param_unwind_kb) * 1024;
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * Drop every table (process context, may sleep): unhashed first, freed
 * after a grace period, when no handler or task-context walk can still
 * use one.
 */
void stackid_unwind_clear(void)
{
	struct stackid_utable *t, *gone = NULL;
	struct hlist_node *tmp;
	unsigned int i;

	mutex_lock(&stackid_uw_lock);
	atomic_set(&stackid_uw_loaded, 0);
	for (i = 0; i < ARRAY_SIZE(stackid_uw_hash); i++) {
		hlist_for_each_entry_safe(t, tmp, &stackid_uw_hash[i], node) {
			hlist_del_rcu(&t->node);
			t->gone = gone;
			gone = t;
		}
	}
	stackid_uw_tables = 0;
	stackid_uw_rows = 0;
	stackid_uw_bytes = 0;
	smp_mb__before_atomic();	/* the unhash, then the bump */
	atomic_inc(&stackid_uw_gen);
	mutex_unlock(&stackid_uw_lock);
	if (!gone)
		return;
	synchronize_rcu();
	while (gone) {
		t = gone;
		gone = t->gone;
		kvfree(t);
	}
}

