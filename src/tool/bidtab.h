/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings' build-id and kernel symbol tables, as a reader rebuilds them
 * from the STACKID_REC_BUILD_ID, STACKID_REC_KSYM and STACKID_REC_EPOCH
 * records (ABI 2): valid frames name their build-id, kernel frames their
 * function, by (ring, index). Two tables per ring, both emptied by an
 * epoch record.
 *
 * The capture chooses ring and index (16 bits each): the rings and each
 * ring's tables are hash tables (open addressing, at most half full,
 * keyed with a random multiplier per process), never arrays indexed by
 * them. Memory is linear in the records taken in: a table slot (32
 * bytes) at most four times per entry, a ring (64 bytes) per ring named
 * by a table record, a kernel symbol's names; an epoch record costs
 * time in proportion to the entries it forgets (each entry is forgotten
 * once), and nothing for a ring without entries.
 */
#ifndef STACKID_TOOL_BIDTAB_H
#define STACKID_TOOL_BIDTAB_H

#include <stdbool.h>
#include <stdint.h>

#include <stackid.h>

struct strbuf;

struct bidtab_entry {
	uint16_t index;		/* 0: an empty slot */
	uint8_t len;		/* 1..20 */
	uint8_t id[STACKID_BUILD_ID_SIZE];
	unsigned int user;	/* the caller's, set after bidtab_take() */
};

/* A kernel function: name and module ("" for the kernel itself). */
struct bidtab_ksym {
	char *name;		/* NULL: an empty slot; one allocation with */
	const char *module;	/* ... the module's name after the NUL */
	uint16_t index;
	uint16_t name_len, module_len;
	unsigned int user;	/* the caller's, set after bidtab_take_ksym() */
};

struct bidtab {
	struct bidtab_ring {
		uint16_t ring;
		bool used;		/* false: an empty slot */
		struct bidtab_entry *e;	/* open addressing by index */
		unsigned int ne, ecap;	/* entries, slots (0 or 2^n) */
		struct bidtab_ksym *k;	/* open addressing by index */
		unsigned int nk, kcap;
	} *rings;		/* open addressing by ring number */
	unsigned int nrings;	/* rings a table record named */
	unsigned int rcap;	/* slots (0 or 2^n) */
};

/*
 * Take in a checked STACKID_REC_BUILD_ID or STACKID_REC_EPOCH record;
 * other records are ignored. True if it was one of the two; *@defined
 * (if @defined) is the entry a build-id record defined, else NULL. The
 * entries and kernel symbols handed out stay valid until the next
 * record is taken in.
 */
bool bidtab_take_entry(struct bidtab *t, const struct stackid_record_hdr *h,
		       struct bidtab_entry **defined);

/*
 * Take in a checked STACKID_REC_KSYM record; other records are ignored.
 * True if it was one; *@defined (if @defined) is the entry it defined.
 */
bool bidtab_take_ksym(struct bidtab *t, const struct stackid_record_hdr *h,
		      struct bidtab_ksym **defined);

/* Any of the three: true if @h was a table record. */
static inline bool bidtab_take(struct bidtab *t,
			       const struct stackid_record_hdr *h)
{
	return bidtab_take_entry(t, h, NULL) || bidtab_take_ksym(t, h, NULL);
}

/*
 * @ring's tables, or NULL if no record named the ring: for a sample's
 * frames, which all come from one ring, looked up once. Valid until the
 * next record is taken in.
 */
const struct bidtab_ring *bidtab_ring(const struct bidtab *t,
				      unsigned int ring);

/* The build-id @index stands for in @r (NULL: none), or NULL. */
const struct bidtab_entry *bidtab_ring_get(const struct bidtab_ring *r,
					   unsigned int index);

/* The kernel function @index stands for in @r (NULL: none), or NULL. */
const struct bidtab_ksym *bidtab_ring_get_ksym(const struct bidtab_ring *r,
					       unsigned int index);

/* The build-id @index stands for in @ring, or NULL if none does. */
const struct bidtab_entry *bidtab_get(const struct bidtab *t,
				      unsigned int ring, unsigned int index);

/* The kernel function @index stands for in @ring, or NULL if none does. */
const struct bidtab_ksym *bidtab_get_ksym(const struct bidtab *t,
					  unsigned int ring,
					  unsigned int index);

/*
 * Records that rebuild every table as it is now (per ring with entries:
 * an epoch record, then its build-id and kernel symbol records), appended
 * to @out with
 * abi_major @major: what a new capture file starts with so that it reads
 * alone.
 */
void bidtab_replay(const struct bidtab *t, struct strbuf *out,
		   uint16_t major);

void bidtab_free(struct bidtab *t);

#endif /* STACKID_TOOL_BIDTAB_H */
