// SPDX-License-Identifier: GPL-2.0
/* vm_flags_clear(): vm_flags read-only outside its helpers (6.3). */
#include <linux/mm.h>

void stackid_probe(struct vm_area_struct *vma);
void stackid_probe(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYEXEC);
}
