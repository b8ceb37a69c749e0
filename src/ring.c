// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings.
 *
 * One producer per ring: the overflow handler of the ring's own CPU, which
 * runs with interrupts off (hardirq or NMI) and never nests (the per-CPU
 * busy flag drops nested samples before they get here). Consumers are
 * serialised by sid.read_lock. So a ring needs no lock, only ordering:
 * the producer publishes head with a release store after writing the
 * bytes, the consumer publishes tail with a release store after copying
 * them out. A full ring drops the new record (the caller counts it); the
 * producer never waits and never overwrites unread data.
 *
 * Records are multiples of 8 bytes and the ring size is a power of two, so
 * a record's 8-byte header is always contiguous; its body may wrap.
 */
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/minmax.h>
#include <linux/topology.h>

#include "internal.h"

int stackid_ring_alloc(struct stackid_ring *r, int cpu, u32 size)
{
	r->buf = vzalloc_node(size, cpu_to_node(cpu));
	if (!r->buf)
		return -ENOMEM;
	r->size = size;
	r->head = 0;
	r->tail = 0;
	return 0;
}

void stackid_ring_free(struct stackid_ring *r)
{
	vfree(r->buf);
	r->buf = NULL;
}

/* Producer side; returns false (nothing written) when the ring is full. */
bool stackid_ring_write(struct stackid_ring *r, const void *rec, u32 len)
{
	u64 head = r->head;
	/* pairs with the reader's release of tail: its copy is done */
	u64 tail = smp_load_acquire(&r->tail);
	u32 off = head & (r->size - 1);
	u32 first = min(len, r->size - off);

	if (r->size - (head - tail) < len)
		return false;
	memcpy(r->buf + off, rec, first);
	memcpy(r->buf, (const u8 *)rec + first, len - first);
	/* publish the bytes before the new head */
	smp_store_release(&r->head, head + len);
	return true;
}

bool stackid_ring_empty(struct stackid_ring *r)
{
	/* pairs with the producer's release of head */
	return smp_load_acquire(&r->head) == READ_ONCE(r->tail);
}

/*
 * Consumer side, under sid.read_lock: copy whole records into @buf while
 * they fit, adding to *done. Returns 0 when the ring is drained or @buf is
 * full, -EINVAL when nothing was copied yet and the next record is larger
 * than @len, -EFAULT on a bad user buffer. A record is consumed only once
 * it has been copied out completely.
 */
ssize_t stackid_ring_read(struct stackid_ring *r, char __user *buf,
			  size_t len, size_t *done)
{
	for (;;) {
		/* pairs with the producer's release: bytes before head */
		u64 head = smp_load_acquire(&r->head);
		u64 tail = r->tail;
		u32 off = tail & (r->size - 1);
		u32 size, first;

		if (head == tail)
			return 0;
		size = ((struct stackid_record_hdr *)(r->buf + off))->size;
		if (WARN_ON_ONCE(size < sizeof(struct stackid_record_hdr) ||
				 size > head - tail || size % 8))
			return -EIO;
		if (size > len - *done)
			return *done ? 0 : -EINVAL;
		first = min(size, r->size - off);
		if (copy_to_user(buf + *done, r->buf + off, first) ||
		    copy_to_user(buf + *done + first, r->buf, size - first))
			return -EFAULT;
		*done += size;
		/* the copy is done before the producer may reuse the room */
		smp_store_release(&r->tail, tail + size);
	}
}
