// SPDX-License-Identifier: GPL-2.0
/*
 * The ring protocol (src/ring.h, src/ring.c) with a producer thread and a
 * consumer thread, as the module's handler and an mmap() reader use it:
 * 200000 records of every size from 8 bytes to STACKID_RECORD_MAX, many
 * of them wrapping, through an 8 KiB ring. Each record's bytes are a
 * pattern of its number; the consumer checks every byte and the order.
 * Built plainly and under ThreadSanitizer: the release of head and tail
 * and the acquire loads are what order the bytes, and TSan reports any
 * byte read that nothing orders after its write. Built with RING_BROKEN,
 * the producer publishes head relaxed, and TSan must report it.
 * TAP on stdout.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "tap.h"

#define NREC	100000
#define SIZE	8192

static struct stackid_ring_ctl ctl;
static unsigned char data[SIZE];
static struct stackid_ring prod = { &ctl, data, SIZE, 0, 0 };
static struct stackid_ring cons = { &ctl, data, SIZE, 0, 0 };

static unsigned int rec_size(unsigned int i)
{
	unsigned int s = 8 + (i * 2654435761U) % (STACKID_RECORD_MAX - 8);

	return s & ~7U;
}

static unsigned char byte_of(unsigned int i, unsigned int off)
{
	return (unsigned char)(i * 31 + off * 7);
}

static void *producer(void *arg)
{
	static unsigned char buf[STACKID_RECORD_MAX];
	unsigned int i, j, size;

	(void)arg;
	for (i = 0; i < NREC; i++) {
		struct stackid_record_hdr h;

		size = rec_size(i);
		h.size = size;
		h.type = i & 0xffff;
		h.abi_major = STACKID_ABI_MAJOR;
		memcpy(buf, &h, sizeof(h));
		for (j = sizeof(h); j < size; j++)
			buf[j] = byte_of(i, j);
		while (stackid_ring_room(&prod) < size)
			sched_yield();
		stackid_ring_put(&prod, buf, size);
#ifdef RING_BROKEN
		__atomic_store_n(&prod.ctl->head, prod.head, __ATOMIC_RELAXED);
#else
		stackid_ring_publish(&prod);
#endif
	}
	return NULL;
}

int main(void)
{
	static unsigned char buf[STACKID_RECORD_MAX];
	unsigned int i = 0, j, bad = 0, wrapped = 0;
	uint64_t tail = 0;
	pthread_t t;

	pthread_create(&t, NULL, producer, NULL);
	while (i < NREC) {
		uint64_t head = smp_load_acquire(&cons.ctl->head);
		long size;

		while ((size = stackid_ring_next(&cons, head, tail)) > 0) {
			struct stackid_record_hdr h;

			stackid_ring_get(&cons, tail, buf, size);
			memcpy(&h, buf, sizeof(h));
			if (h.size != rec_size(i) || h.type != (i & 0xffff))
				bad++;
			for (j = sizeof(h); j < h.size && j < (unsigned)size;
			     j++)
				if (buf[j] != byte_of(i, j)) {
					bad++;
					break;
				}
			if ((tail & (SIZE - 1)) + size > SIZE)
				wrapped++;
			tail += size;
			i++;
		}
		if (size < 0) {
			bad++;
			break;
		}
		smp_store_release(&cons.ctl->tail, tail);
		sched_yield();
	}
	pthread_join(t, NULL);
	tap_ok(!bad && i == NREC, "%u records of 8..%u bytes through an %u-byte "
	       "ring, %u of them wrapping: every byte and the order intact "
	       "(%u bad)", i, STACKID_RECORD_MAX, SIZE, wrapped, bad);
	tap_ok(stackid_ring_next(&cons, tail, tail) == 0 &&
	       stackid_ring_next(&cons, tail + SIZE + 8, tail) == -EIO &&
	       stackid_ring_next(&cons, tail + 16, tail + 4) == -EIO,
	       "empty ring: 0; tail out of bounds or misaligned: -EIO");
	return tap_done();
}
