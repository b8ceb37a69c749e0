/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU build-id cache: file identity -> build-id (or why there is
 * none), and the index the build-id has in this CPU's ring.
 *
 * Pure code (pure.h), so that a host unit test can drive it with hostile
 * keys. Set-associative: a key's inode pointer picks a set of
 * STACKID_BIDCACHE_WAYS entries, and a miss replaces the least recently
 * used entry of that set. So files thrash only when more than WAYS hot
 * files share a set, not when two of them share a slot, and a hot file
 * stays cached whatever the other files' addresses are: only WAYS - 1
 * others used since its last use can push it out.
 *
 * 2048 entries of 112 bytes, 224 KiB per CPU, in 128 sets of 16 ways: a
 * few hundred files spread over the sets leave each far below its 16
 * ways. (256 sets of 8 were too few ways: on a debug kernel's inode
 * addresses, 300 hot files put more than 8 in some set.)
 *
 * Only the cache's CPU touches it: its sampling handler (hardirq or NMI)
 * and process context with interrupts off and the CPU's busy flag set.
 */
#ifndef STACKID_BIDCACHE_H
#define STACKID_BIDCACHE_H

#include "pure.h"
#include <stackid.h>

#define STACKID_BIDCACHE_WAYS	16
#define STACKID_BIDCACHE_SETS	128	/* a power of two */

struct stackid_utable;

/*
 * What identifies a file's contents, read from its inode without locks:
 * the inode (pointer, number, device, generation, so a freed and reused
 * inode does not match), size, modification and change time (utimensat()
 * can put an old mtime back, never an old ctime), and the i_version
 * counter where the filesystem keeps one (every write bumps it once it
 * was queried; the cache queries it when it inserts). Compared as bytes:
 * no padding; and field by field with a live file, stackid_file_key_is().
 */
struct stackid_bid_key {
	u64 inode;
	u64 ino;
	u64 size;
	u64 iversion;
	s64 mtime_sec;
	s64 ctime_sec;
	u32 mtime_nsec;
	u32 ctime_nsec;
	u32 dev;
	u32 gen;
};

struct stackid_bid_entry {
	struct stackid_bid_key key;
	u32 used;		/* LRU clock of the last use; 0: empty */
	u32 epoch;		/* ring epoch @index belongs to */
	u16 index;		/* in the ring's build-id table, if epoch matches */
	u8 len;			/* build-id length 1..20, or 0: none (see reason) */
	u8 reason;		/* len 0: enum stackid_ip_reason */
	u8 tknown;		/* @table and @tgen are set (unwind.c) */
	u8 id[STACKID_BUILD_ID_SIZE];
	u32 tgen;		/* stackid_uw_gen when @table was looked up */
	const struct stackid_utable *table;	/* @id's unwind table, or NULL */
};

struct stackid_bidcache {
	u32 clock;
	struct stackid_bid_entry e[STACKID_BIDCACHE_SETS][STACKID_BIDCACHE_WAYS];
};

/* Empty the cache. */
void stackid_bidcache_clear(struct stackid_bidcache *c);

/* The set an inode pointer's entries go to. */
u32 stackid_bidcache_set(u64 inode);

/* The entry for @k, marked used, or NULL. */
struct stackid_bid_entry *stackid_bidcache_find(struct stackid_bidcache *c,
						const struct stackid_bid_key *k);

/*
 * An entry for @k, to be filled by the caller: @k's own if present, else
 * the least recently used of its set, emptied and keyed @k. Entries used
 * at or after @pin (an earlier stackid_bidcache_tick()) are not taken:
 * NULL if every way of the set was.
 */
struct stackid_bid_entry *stackid_bidcache_insert(struct stackid_bidcache *c,
						  const struct stackid_bid_key *k,
						  u32 pin);

/* Mark @e, found earlier, used now. */
static inline void stackid_bidcache_touch(struct stackid_bidcache *c,
					  struct stackid_bid_entry *e)
{
	e->used = ++c->clock;
}

/* The LRU clock now; entries used from now on count as used at or after. */
static inline u32 stackid_bidcache_tick(struct stackid_bidcache *c)
{
	return c->clock + 1;
}

#endif /* STACKID_BIDCACHE_H */
