// SPDX-License-Identifier: GPL-2.0
/* mmap_lock's tracepoints (5.11): tracepoint_enabled() on them. */
#include <linux/mmap_lock.h>

bool stackid_probe(void);
bool stackid_probe(void)
{
	return tracepoint_enabled(mmap_lock_acquire_returned);
}
