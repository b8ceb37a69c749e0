// SPDX-License-Identifier: GPL-2.0
/*
 * Containers: each sample carries its task's cgroup v2 id; a sample can
 * be kept to one cgroup and those below it (STACKID_IOC_SET_CGROUP); and
 * a cgroup id is named by a STACKID_REC_CGROUP record, emitted from the
 * sampled task's own context the first time since enable that a CPU sees
 * the id (the handler hands such a sample over, as it does a file it has
 * not read), once per id: a table of the ids reported keeps other CPUs
 * from naming it again.
 *
 * The handler (sample.c) reads the task's cgroup under rcu_read_lock()
 * (an NMI may: RCU readers nest in anything), and the filter's cgroup,
 * which the ioctl publishes with a reference and replaces only after
 * synchronize_rcu(), so a handler never sees it freed.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/hash.h>

#include "internal.h"

#ifdef CONFIG_CGROUPS

/* The cgroup filter: RCU-published, read by the handler (sample.c). */
struct cgroup __rcu *stackid_filter_cgrp;

/* STACKID_IOC_SET_CGROUP: @fd, or -1 for none. Process context. */
int stackid_cgroup_set_filter(int fd)
{
	struct cgroup *cg = NULL, *old;

	if (fd != -1) {
		cg = cgroup_get_from_fd(fd);
		if (IS_ERR(cg))
			return PTR_ERR(cg);
	}
	old = rcu_dereference_protected(stackid_filter_cgrp,
					lockdep_is_held(&stackid_state.lock));
	rcu_assign_pointer(stackid_filter_cgrp, cg);
	if (old) {
		synchronize_rcu();
		cgroup_put(old);
	}
	return 0;
}

/* The ids reported since the last enable; process context only. */
#define STACKID_CGROUPS_MAX	4096
struct stackid_cgroup_named {
	struct hlist_node node;
	u64 id;
};
static DEFINE_HASHTABLE(stackid_cgroups_seen, 8);
static unsigned int stackid_ncgroups;
static DEFINE_MUTEX(stackid_cgroups_lock);

static bool stackid_cgroup_claim(u64 id)
{
	struct stackid_cgroup_named *s;

	hash_for_each_possible(stackid_cgroups_seen, s, node, id)
		if (s->id == id)
			return false;
	if (stackid_ncgroups >= STACKID_CGROUPS_MAX)
		return true;	/* report again rather than forget */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return true;
	s->id = id;
	hash_add(stackid_cgroups_seen, &s->node, id);
	stackid_ncgroups++;
	return true;
}

static void stackid_cgroup_unclaim(u64 id)
{
	struct stackid_cgroup_named *s;

	hash_for_each_possible(stackid_cgroups_seen, s, node, id)
		if (s->id == id) {
			hash_del(&s->node);
			stackid_ncgroups--;
			kfree(s);
			return;
		}
}

/**
 * stackid_cgroup_report - name cgroup @id, once since enable
 * @id: the id a sample of the current task carries
 *
 * The sampled task's own context. The task's cgroup is the one named (if
 * it moved meanwhile, nothing is sent: its next sample will ask again).
 */
void stackid_cgroup_report(u64 id)
{
	struct stackid_cgroup *rec;
	struct stackid_cpu *c;
	unsigned long flags;
	size_t len = 0, size;
	bool ok = false, claimed;
	char *path;

	mutex_lock(&stackid_cgroups_lock);
	claimed = stackid_cgroup_claim(id);
	mutex_unlock(&stackid_cgroups_lock);
	if (!claimed) {
		/* named already (another CPU): this CPU knows it now */
		c = stackid_cpu_get(&flags);
		stackid_cgroup_seen_add(c, id);
		stackid_cpu_put(c, flags);
		return;
	}
	rec = kzalloc(STACKID_RECORD_MAX, GFP_KERNEL);
	if (rec) {
		struct cgroup *cg;
		int r = -EINVAL;

		path = rec->path;
		rcu_read_lock();
		cg = task_dfl_cgroup(current);
		if (cgroup_id(cg) == id)
			r = cgroup_path(cg, path, STACKID_PATH_MAX - 8);
		rcu_read_unlock();
		if (r >= 0 && r < STACKID_PATH_MAX - 8)
			len = strlen(path);
		else
			path[0] = 0;
		size = ALIGN(sizeof(*rec) + len + 1, 8);
		rec->hdr.size = size;
		rec->hdr.type = STACKID_REC_CGROUP;
		rec->hdr.abi_major = STACKID_ABI_MAJOR;
		rec->id = id;
		rec->path_len = len;
		c = stackid_cpu_get(&flags);
		ok = stackid_emit_raw(c, rec, size);
		stackid_stat_inc(c, ok ? STACKID_STAT_CGROUPS :
					 STACKID_STAT_CGROUPS_DROPPED);
		if (ok)
			stackid_cgroup_seen_add(c, id);
		stackid_cpu_put(c, flags);
		kfree(rec);
	} else {
		stackid_stat_inc_here(STACKID_STAT_CGROUPS_DROPPED);
	}
	if (ok)
		return;
	mutex_lock(&stackid_cgroups_lock);
	stackid_cgroup_unclaim(id);
	mutex_unlock(&stackid_cgroups_lock);
}

/* A new session (enable), or module exit: forget every id. */
void stackid_cgroups_reset(void)
{
	struct stackid_cgroup_named *s;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&stackid_cgroups_lock);
	hash_for_each_safe(stackid_cgroups_seen, bkt, tmp, s, node) {
		hash_del(&s->node);
		kfree(s);
	}
	stackid_ncgroups = 0;
	mutex_unlock(&stackid_cgroups_lock);
}

#else /* !CONFIG_CGROUPS */

int stackid_cgroup_set_filter(int fd)
{
	return fd == -1 ? 0 : -EOPNOTSUPP;
}

void stackid_cgroup_report(u64 id)
{
}

void stackid_cgroups_reset(void)
{
}

#endif
