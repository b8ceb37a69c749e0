// SPDX-License-Identifier: GPL-2.0
/* timer_shutdown_sync(): delete a timer for good (6.2). */
#include <linux/timer.h>

int stackid_probe(struct timer_list *t);
int stackid_probe(struct timer_list *t)
{
	return timer_shutdown_sync(t);
}
