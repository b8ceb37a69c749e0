/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record ring: one per CPU, shared with user space through mmap().
 *
 * Pure code (pure.h): the module's producer and read() consumer and the
 * stackid command's mmap() consumer use these same functions, and a host
 * unit test runs a producer and a consumer thread on them under
 * ThreadSanitizer. The protocol is documented with struct
 * stackid_ring_ctl in include/stackid.h; in short:
 *
 *  - One producer at a time: the ring's own CPU, from its sampling handler
 *    (hardirq or NMI, never nested: a per-CPU busy flag drops nested
 *    samples) or from process context with interrupts off and that flag
 *    set. It keeps its own head, and publishes it twice: in @published,
 *    for the module's own consumer, and in the shared control page, for
 *    a consumer that mapped it. The module never reads back the copy in
 *    the control page: user space can write anything there.
 *  - The producer reserves room against tail (acquire: the consumer is
 *    done with those bytes), copies records in, and publishes head
 *    (release: the bytes are visible before the head that covers them).
 *  - The consumer reads head (acquire), copies records out, and publishes
 *    tail (release). A tail outside [head - size, head] (user space wrote
 *    nonsense) makes the ring full for the producer and empty for the
 *    module's consumer: nothing is ever read or written out of bounds.
 *
 * Records are multiples of 8 bytes and the size is a power of two of at
 * least 8 KiB, so a record's 8-byte header never wraps; its body may.
 */
#ifndef STACKID_RING_H
#define STACKID_RING_H

#include "pure.h"
#include <stackid.h>

/**
 * struct stackid_ring - one ring as its producer or consumer sees it
 * @ctl: the shared control page
 * @data: the data area, @size bytes
 * @size: a power of two
 * @head: the producer's own head (producers only)
 * @published: @head as last published (the module's consumer reads this)
 */
struct stackid_ring {
	struct stackid_ring_ctl *ctl;
	u8 *data;
	u32 size;
	u64 head;
	u64 published;
};

/* Producer: bytes free for writing now (0 if tail is out of bounds). */
static inline u32 stackid_ring_room(const struct stackid_ring *r)
{
	/* pairs with the consumer's release of tail: its copy is done */
	u64 tail = smp_load_acquire(&r->ctl->tail);
	u64 used = r->head - tail;

	return used > r->size ? 0 : r->size - (u32)used;
}

/* Producer: copy @len bytes at the private head; the caller made room. */
static inline void stackid_ring_put(struct stackid_ring *r, const void *p,
				    u32 len)
{
	u32 off = r->head & (r->size - 1);
	u32 first = min(len, r->size - off);

	memcpy(r->data + off, p, first);
	memcpy(r->data, (const u8 *)p + first, len - first);
	r->head += len;
}

/* Producer: make everything put so far visible to consumers. */
static inline void stackid_ring_publish(struct stackid_ring *r)
{
	/* the bytes before the head that covers them, for the module */
	smp_store_release(&r->published, r->head);
	/* ... and for a consumer that mapped the ring */
	smp_store_release(&r->ctl->head, r->head);
}

/**
 * stackid_ring_next() - consumer: where the next record is, if any
 * @r: the ring (@r->head unused)
 * @head: the head, read with smp_load_acquire() from @published (the
 *	module) or from the control page (a consumer that mapped it)
 * @tail: the consumer's tail
 *
 * Return: the record's size (> 0) when a whole, sane record starts at
 * @tail: its header's size is a multiple of 8, at least the header's, at
 * most STACKID_RECORD_MAX and at most what lies between @tail and @head.
 * 0 when the ring is empty. -EIO when @tail is out of bounds or the data
 * is not a record (user space can write the shared pages).
 */
long stackid_ring_next(const struct stackid_ring *r, u64 head, u64 tail);

/*
 * Consumer: copy @len bytes starting at @tail (wrapping) to @dst, with
 * memcpy (user space) or any other copy function of the same shape.
 */
static inline void stackid_ring_get(const struct stackid_ring *r, u64 tail,
				    void *dst, u32 len)
{
	u32 off = tail & (r->size - 1);
	u32 first = min(len, r->size - off);

	memcpy(dst, r->data + off, first);
	memcpy((u8 *)dst + first, r->data, len - first);
}

#endif /* STACKID_RING_H */
