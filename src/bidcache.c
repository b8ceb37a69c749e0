// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU build-id cache (pure code: see bidcache.h).
 *
 * The LRU clock is a u32 that counts uses and may wrap: ages are taken
 * modulo 2^32, so only an entry unused for 2^32 uses can look young, and
 * all that costs is that it survives a little longer.
 */
#include "bidcache.h"

/*
 * The set of an inode pointer. Slab addresses are anything but random in
 * their low bits (object size, slab size, slabs allocated in a row), so
 * every bit is mixed into every other first (the splitmix64 finalizer).
 */
u32 stackid_bidcache_set(u64 inode)
{
	u64 h = inode;

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h & (STACKID_BIDCACHE_SETS - 1);
}

static u32 set_of(const struct stackid_bid_key *k)
{
	return stackid_bidcache_set(k->inode);
}

static bool empty(const struct stackid_bid_entry *e)
{
	return !e->key.inode;
}

void stackid_bidcache_clear(struct stackid_bidcache *c)
{
	memset(c, 0, sizeof(*c));
}

struct stackid_bid_entry *stackid_bidcache_find(struct stackid_bidcache *c,
						const struct stackid_bid_key *k)
{
	struct stackid_bid_entry *set = c->e[set_of(k)];
	unsigned int w;

	for (w = 0; w < STACKID_BIDCACHE_WAYS; w++) {
		if (set[w].key.inode == k->inode &&
		    !memcmp(&set[w].key, k, sizeof(*k))) {
			set[w].used = ++c->clock;
			return &set[w];
		}
	}
	return NULL;
}

struct stackid_bid_entry *stackid_bidcache_insert(struct stackid_bidcache *c,
						  const struct stackid_bid_key *k,
						  u32 pin)
{
	struct stackid_bid_entry *set = c->e[set_of(k)], *victim = NULL;
	u32 age, oldest = 0;
	unsigned int w;

	for (w = 0; w < STACKID_BIDCACHE_WAYS; w++) {
		struct stackid_bid_entry *e = &set[w];

		if (e->key.inode == k->inode &&
		    !memcmp(&e->key, k, sizeof(*k))) {
			victim = e;
			goto take;
		}
		if (empty(e)) {
			victim = e;
			break;
		}
		/* used at or after @pin: part of the work in progress */
		if ((s32)(e->used - pin) >= 0)
			continue;
		age = c->clock - e->used;
		if (!victim || age > oldest) {
			victim = e;
			oldest = age;
		}
	}
	if (!victim)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	victim->key = *k;
take:
	victim->used = ++c->clock;
	return victim;
}
