// SPDX-License-Identifier: GPL-2.0
/* timer_delete_sync(): del_timer_sync()'s new name (6.2). */
#include <linux/timer.h>

int stackid_probe(struct timer_list *t);
int stackid_probe(struct timer_list *t)
{
	return timer_delete_sync(t);
}
