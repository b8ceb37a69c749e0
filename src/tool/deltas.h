/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Delta samples (STACKID_REC_SAMPLE_DELTA, ABI 2.6) as a reader rebuilds
 * them: each ring's previous sample (src/delta.h), kept from the records
 * taken in, in their order.
 *
 * The capture chooses the ring (16 bits): rings are found through an
 * array grown to the largest ring seen (8 bytes a ring), and a ring's
 * previous sample (about 1 KiB) is made by the ring's first packed or
 * delta sample, a record of at least 32 bytes.
 */
#ifndef STACKID_TOOL_DELTAS_H
#define STACKID_TOOL_DELTAS_H

#include <stdbool.h>
#include <stdint.h>

#include <stackid.h>

/* The largest sample a delta sample stands for. */
#define DELTAS_SAMPLE_MAX	(sizeof(struct stackid_sample) + \
				 STACKID_MAX_DEPTH * sizeof(uint64_t))

struct deltas_ring;

struct deltas {
	struct deltas_ring **ring;	/* by ring number; NULL: none yet */
	unsigned int n;
	/* the sample the last delta taken stands for */
	uint64_t out[DELTAS_SAMPLE_MAX / sizeof(uint64_t)];
};

/*
 * Take in @rec, a record of ABI 2 that passed stackid_record_check(), in
 * the order of its ring: that it did is relied on, since a rebuilt
 * sample is checked only where it differs from what was checked before
 * (stackid_record_check_rebuilt()). Returns the record to use in its
 * place: @rec, or for a delta sample the STACKID_REC_SAMPLE_PACKED it
 * stands for (in @d, until the next call), or NULL with *@why set if
 * that cannot be rebuilt (no sample before it in its ring, or what it
 * stands for fails the sample checks): the ring then has no previous
 * sample.
 */
const void *deltas_take(struct deltas *d, const void *rec, const char **why);

/* Forget ring @ring's previous sample (its reader lost its place). */
void deltas_forget(struct deltas *d, unsigned int ring);
void deltas_forget_all(struct deltas *d);

/*
 * For a writer of capture files: whether the file being written holds
 * ring @ring's previous sample as its last sample of that ring (so that a
 * delta sample may follow it there); deltas_set_in_file() says so.
 */
bool deltas_in_file(const struct deltas *d, unsigned int ring);
void deltas_set_in_file(struct deltas *d, unsigned int ring, bool in);
void deltas_new_file(struct deltas *d);

void deltas_free(struct deltas *d);

#endif /* STACKID_TOOL_DELTAS_H */
