// SPDX-License-Identifier: GPL-2.0
/* irq_work_is_busy() (5.12; struct irq_work changed its flags in 5.11). */
#include <linux/irq_work.h>

bool stackid_probe(struct irq_work *w);
bool stackid_probe(struct irq_work *w)
{
	return irq_work_is_busy(w);
}
