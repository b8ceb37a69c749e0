// SPDX-License-Identifier: GPL-2.0
/* inode_get_mtime(): i_mtime behind accessors (6.7). */
#include <linux/fs.h>

struct timespec64 stackid_probe(const struct inode *inode);
struct timespec64 stackid_probe(const struct inode *inode)
{
	return inode_get_mtime(inode);
}
