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

#endif /* STACKID_COMPAT_H */
