// SPDX-License-Identifier: GPL-2.0
/* vma_lookup(): the VMA containing an address, or NULL (5.14). */
#include <linux/mm.h>

struct vm_area_struct *stackid_probe(struct mm_struct *mm, unsigned long a);
struct vm_area_struct *stackid_probe(struct mm_struct *mm, unsigned long a)
{
	return vma_lookup(mm, a);
}
