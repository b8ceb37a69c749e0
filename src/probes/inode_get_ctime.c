// SPDX-License-Identifier: GPL-2.0
/* inode_get_ctime(): i_ctime behind accessors (6.6). */
#include <linux/fs.h>

struct timespec64 stackid_probe(const struct inode *inode);
struct timespec64 stackid_probe(const struct inode *inode)
{
	return inode_get_ctime(inode);
}
