// SPDX-License-Identifier: GPL-2.0
/*
 * mm->mm_lock_seq as a seqcount, moved by every mmap write lock (Debian's
 * 6.12 and later kernels): only with CONFIG_PER_VMA_LOCK.
 */
#include <linux/mm_types.h>
#include <linux/seqlock.h>

unsigned int stackid_probe(struct mm_struct *mm);
unsigned int stackid_probe(struct mm_struct *mm)
{
	return READ_ONCE(mm->mm_lock_seq.sequence);
}
