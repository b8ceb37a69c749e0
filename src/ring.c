// SPDX-License-Identifier: GPL-2.0
/*
 * The ring protocol's consumer side that is not a one-liner (pure code:
 * see ring.h).
 */
#include "ring.h"

long stackid_ring_next(const struct stackid_ring *r, u64 head, u64 tail)
{
	struct stackid_record_hdr h;
	u64 avail = head - tail;

	if (avail > r->size || tail % 8)
		return -EIO;
	if (!avail)
		return 0;
	if (avail < sizeof(h))
		return -EIO;
	/* a header never wraps: records are 8-byte multiples */
	memcpy(&h, r->data + (tail & (r->size - 1)), sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > STACKID_RECORD_MAX ||
	    h.size > avail)
		return -EIO;
	return h.size;
}
