// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU build-id cache (src/bidcache.c) under hostile keys: files
 * whose inodes all land in one set, a hot file among a stream of others,
 * hundreds of files at slab-like addresses and in scattered slabs, the pin that keeps a sample's
 * own entries, and the LRU clock wrapping. TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bidcache.h"
#include "tap.h"

static struct stackid_bidcache cache;

static unsigned int set_of(uint64_t inode)
{
	return stackid_bidcache_set(inode);
}

static struct stackid_bid_key key(uint64_t inode)
{
	struct stackid_bid_key k;

	memset(&k, 0, sizeof(k));
	k.inode = inode;
	k.ino = inode >> 6;
	k.size = 4096 + (inode & 0xfff);
	return k;
}

/* Look @inode up; insert it (with a recognisable id) when missing. */
static int touch(uint64_t inode)
{
	struct stackid_bid_key k = key(inode);
	struct stackid_bid_entry *e = stackid_bidcache_find(&cache, &k);

	if (e)
		return 1;
	e = stackid_bidcache_insert(&cache, &k, stackid_bidcache_tick(&cache));
	if (e) {
		e->len = 8;
		memcpy(e->id, &inode, 8);
	}
	return 0;
}

/* @n inode values (slab-like: 1 KiB apart) that all land in one set. */
static void colliding(uint64_t *out, unsigned int n)
{
	uint64_t a = 0xffff888004000000ULL;
	unsigned int want = set_of(a), i = 0;

	for (; i < n; a += 0x400)
		if (set_of(a) == want)
			out[i++] = a;
}

/* @n inode values, @size bytes apart in 32 KiB slabs at random places. */
static void slab_inodes(uint64_t *out, unsigned int n, uint64_t size)
{
	unsigned int i = 0, j;

	while (i < n) {
		uint64_t slab = 0xffff888000000000ULL +
				((uint64_t)(rand() % 32768) << 15);

		for (j = 0; j < 0x8000 / size && i < n; j++)
			out[i++] = slab + j * size;
	}
}

static uint64_t c[10064];

int main(void)
{
	uint64_t hot, a;
	unsigned int i, n, hits, misses, lost;
	struct stackid_bid_entry *e, *pinned[STACKID_BIDCACHE_WAYS];
	struct stackid_bid_key k;
	u32 pin;

	stackid_bidcache_clear(&cache);
	colliding(c, 64);

	/* as many files as ways, all in one set: all stay */
	for (i = 0; i < STACKID_BIDCACHE_WAYS; i++)
		touch(c[i]);
	hits = 0;
	for (i = 0; i < 10 * STACKID_BIDCACHE_WAYS; i++)
		hits += touch(c[i % STACKID_BIDCACHE_WAYS]);
	tap_ok(hits == 10 * STACKID_BIDCACHE_WAYS,
	       "%u files in one set, round robin: every lookup hits (%u/%u)",
	       STACKID_BIDCACHE_WAYS, hits, 10 * STACKID_BIDCACHE_WAYS);

	/* a hot file among a stream of 10000 new files of its set */
	stackid_bidcache_clear(&cache);
	colliding(c, 10001);
	hot = c[0];
	touch(hot);
	lost = 0;
	for (i = 0; i < 10000; i++) {
		lost += !touch(hot);
		touch(c[1 + i]);
	}
	tap_ok(!lost, "a hot file stays cached while 10000 other files of its "
	       "set come and go (missed %u times)", lost);
	k = key(hot);
	e = stackid_bidcache_find(&cache, &k);
	tap_ok(e && e->len == 8 && !memcmp(e->id, &hot, 8),
	       "and its entry still holds its build-id");

	/* hundreds of files at slab-like addresses: all fit */
	stackid_bidcache_clear(&cache);
	srand(7);
	for (i = 0, a = 0xffff888010000000ULL; i < 400; i++) {
		a += 0x400 * (1 + rand() % 64);
		touch(a);
	}
	hits = misses = 0;
	srand(7);
	for (i = 0, a = 0xffff888010000000ULL; i < 400; i++) {
		a += 0x400 * (1 + rand() % 64);
		if (touch(a))
			hits++;
		else
			misses++;
	}
	tap_ok(hits == 400, "400 files at slab-like addresses: all cached "
	       "(%u hits, %u misses)", hits, misses);

	/*
	 * Inodes as a slab hands them out: a few objects per slab (here
	 * 3 KiB objects, as a debug kernel's inodes, in 32 KiB slabs) at
	 * scattered slab addresses. 500 files, 20 layouts: all fit, so no
	 * set may get more hot files than it has ways.
	 */
	lost = 0;
	for (n = 0; n < 20; n++) {
		stackid_bidcache_clear(&cache);
		srand(100 + n);
		slab_inodes(c, 500, 0xc00);
		for (i = 0; i < 500; i++)
			touch(c[i]);
		for (i = 0; i < 500; i++)
			lost += !touch(c[i]);
	}
	tap_ok(!lost, "500 files in scattered slabs, 20 layouts: all cached "
	       "(%u misses)", lost);

	/* the pin: a sample's own entries are never taken */
	stackid_bidcache_clear(&cache);
	colliding(c, 64);
	pin = stackid_bidcache_tick(&cache);
	for (i = 0; i < STACKID_BIDCACHE_WAYS; i++) {
		k = key(c[i]);
		pinned[i] = stackid_bidcache_insert(&cache, &k, pin);
	}
	k = key(c[STACKID_BIDCACHE_WAYS]);
	e = stackid_bidcache_insert(&cache, &k, pin);
	tap_ok(e == NULL && pinned[0] && pinned[STACKID_BIDCACHE_WAYS - 1],
	       "insert with every way used since the pin: NULL, nothing "
	       "evicted");
	e = stackid_bidcache_insert(&cache, &k, stackid_bidcache_tick(&cache));
	k = key(c[0]);
	tap_ok(e && !stackid_bidcache_find(&cache, &k),
	       "without the pin: the least recently used way goes");

	/* the LRU clock wraps: still the oldest goes */
	stackid_bidcache_clear(&cache);
	cache.clock = 0xfffffff0U;
	for (i = 0; i < STACKID_BIDCACHE_WAYS; i++)
		touch(c[i]);		/* c[0] is the oldest, across the wrap */
	for (i = 1; i < STACKID_BIDCACHE_WAYS; i++)
		touch(c[i]);
	touch(c[STACKID_BIDCACHE_WAYS]);
	k = key(c[0]);
	e = stackid_bidcache_find(&cache, &k);
	k = key(c[1]);
	tap_ok(!e && stackid_bidcache_find(&cache, &k),
	       "clock wrapping past 2^32: the oldest entry is the one evicted");

	/* a changed key (size, mtime, ctime, i_version...) is a miss */
	stackid_bidcache_clear(&cache);
	touch(c[0]);
	k = key(c[0]);
	k.ctime_nsec++;
	tap_ok(!stackid_bidcache_find(&cache, &k),
	       "same inode, another ctime: a miss");
	k = key(c[0]);
	k.iversion++;
	tap_ok(!stackid_bidcache_find(&cache, &k),
	       "same inode, another i_version: a miss");
	return tap_done();
}
