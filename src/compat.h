/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference stackid cares about, and nothing else.
 * Core code calls the stackid_*() wrappers here; no other file tests
 * LINUX_VERSION_CODE.
 */
#ifndef STACKID_COMPAT_H
#define STACKID_COMPAT_H

#include <linux/version.h>
#include <linux/pagemap.h>
#include <linux/fs.h>
#include <linux/err.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/preempt.h>

/*
 * The folio at @index if it is in the page cache, without I/O, locks or
 * sleeping; NULL if absent. 6.3 made filemap_get_folio() return
 * ERR_PTR(-ENOENT) instead of NULL.
 */
static inline struct folio *stackid_cached_folio(struct address_space *m,
						 pgoff_t index)
{
	struct folio *folio = filemap_get_folio(m, index);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	if (IS_ERR(folio))
		return NULL;
#endif
	return folio;
}

/* Modification time: 6.7 hid i_mtime behind accessors. */
static inline struct timespec64 stackid_inode_mtime(const struct inode *inode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/* Mappings whose folios must not be read (guest_memfd, 6.11+). */
static inline bool stackid_mapping_inaccessible(struct address_space *m)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	return mapping_inaccessible(m);
#else
	return false;
#endif
}

/*
 * Queue @work on the current task, to run before it returns to user
 * space. From NMI that needs TWA_NMI_CURRENT (6.11+): the other modes may
 * allocate (KASAN) or kick other CPUs. Older kernels get -EOPNOTSUPP in
 * NMI, and the caller keeps what it has.
 */
static inline int stackid_task_work_add_current(struct callback_head *work)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	return task_work_add(current, work,
			     in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME);
#else
	if (in_nmi())
		return -EOPNOTSUPP;
	return task_work_add(current, work, TWA_RESUME);
#endif
}

#endif /* STACKID_COMPAT_H */
