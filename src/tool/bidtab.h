/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings' build-id and kernel symbol tables, as a reader rebuilds them
 * from the STACKID_REC_BUILD_ID, STACKID_REC_KSYM and STACKID_REC_EPOCH
 * records (ABI 2): valid frames name their build-id, kernel frames their
 * function, by (ring, index). Two tables per ring, grown to the largest
 * index seen, both emptied by an epoch record.
 */
#ifndef STACKID_TOOL_BIDTAB_H
#define STACKID_TOOL_BIDTAB_H

#include <stdbool.h>
#include <stdint.h>

#include <stackid.h>

struct strbuf;

struct bidtab_entry {
	uint8_t len;		/* 0: not defined */
	uint8_t id[STACKID_BUILD_ID_SIZE];
	unsigned int user;	/* the caller's, set after bidtab_take() */
};

/* A kernel function: name and module ("" for the kernel itself). */
struct bidtab_ksym {
	char *name;		/* NULL: not defined; one allocation with */
	const char *module;	/* ... the module's name after the NUL */
	uint16_t name_len, module_len;
	unsigned int user;	/* the caller's, set after bidtab_take_ksym() */
};

struct bidtab {
	struct bidtab_ring {
		struct bidtab_entry *e;	/* by index; [0] unused */
		unsigned int cap;
		struct bidtab_ksym *k;	/* by index; [0] unused */
		unsigned int kcap;
	} *rings;
	unsigned int nrings;
};

/*
 * Take in a checked STACKID_REC_BUILD_ID or STACKID_REC_EPOCH record;
 * other records are ignored. True if it was one of the two; *@defined
 * (if @defined) is the entry a build-id record defined, else NULL.
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
