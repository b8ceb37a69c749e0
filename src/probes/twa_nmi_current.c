// SPDX-License-Identifier: GPL-2.0
/* task_work_add(..., TWA_NMI_CURRENT): task work queued from NMI (6.11). */
#include <linux/sched.h>
#include <linux/task_work.h>

int stackid_probe(struct callback_head *w);
int stackid_probe(struct callback_head *w)
{
	return task_work_add(current, w, TWA_NMI_CURRENT);
}
