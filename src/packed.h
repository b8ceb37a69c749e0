/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packed frames (STACKID_REC_SAMPLE_PACKED, ABI 2.4): the module packs,
 * every reader unpacks, with these (pure code: see pure.h). The layout
 * is the UAPI header's; a frame that does not fit is never packed, and
 * its sample is written with 16-byte frames.
 */
#ifndef STACKID_PACKED_H
#define STACKID_PACKED_H

#include "pure.h"
#include <stackid.h>

#define STACKID_PF_OFF_MASK	((1ULL << STACKID_PF_OFF_BITS) - 1)
#define STACKID_PF_IP_MASK	((1ULL << STACKID_PF_IP_BITS) - 1)

/*
 * Whether a frame with @how, @addr and @reason fits the bits: an ip
 * frame's (@ip) or a valid or kernel frame's (a 16-bit index always
 * does). The module asks this of its own frames, stackid_frame_packs()
 * of a struct stackid_frame.
 */
static inline bool stackid_pf_fits(bool ip, u8 how, u64 addr, u8 reason)
{
	if (how > STACKID_PF_HOW_MAX)
		return false;
	if (ip)
		return addr <= STACKID_PF_IP_MASK &&
		       reason <= STACKID_PF_REASON_MAX;
	return addr <= STACKID_PF_OFF_MASK && !reason;
}

/* Whether @f packs; a status other than VALID, IP and KERNEL does not. */
static inline bool stackid_frame_packs(const struct stackid_frame *f)
{
	switch (f->status) {
	case STACKID_FRAME_VALID:
	case STACKID_FRAME_KERNEL:
		return stackid_pf_fits(false, f->how, f->addr, f->reason);
	case STACKID_FRAME_IP:
		return !f->bid &&
		       stackid_pf_fits(true, f->how, f->addr, f->reason);
	default:
		return false;
	}
}

/* @f packed; only for a frame stackid_frame_packs() accepts. */
static inline u64 stackid_frame_pack(const struct stackid_frame *f)
{
	u64 v = (u64)f->status << STACKID_PF_STATUS_SHIFT |
		(u64)f->how << STACKID_PF_HOW_SHIFT;

	if (f->status == STACKID_FRAME_IP)
		return v | (u64)f->reason << STACKID_PF_REASON_SHIFT | f->addr;
	return v | (u64)f->bid << STACKID_PF_BID_SHIFT | f->addr;
}

/* The frame @v stands for. */
static inline void stackid_frame_unpack(u64 v, struct stackid_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->status = v >> STACKID_PF_STATUS_SHIFT;
	f->how = (v >> STACKID_PF_HOW_SHIFT) & STACKID_PF_HOW_MAX;
	if (f->status == STACKID_FRAME_IP) {
		f->reason = (v >> STACKID_PF_REASON_SHIFT) &
			    STACKID_PF_REASON_MAX;
		f->addr = v & STACKID_PF_IP_MASK;
	} else {
		f->bid = (v >> STACKID_PF_BID_SHIFT) & 0xffff;
		f->addr = v & STACKID_PF_OFF_MASK;
	}
}

/* Bytes of one frame in a sample record of @type. */
static inline size_t stackid_frame_size(u16 type)
{
	return type == STACKID_REC_SAMPLE_PACKED ? sizeof(u64) :
						   sizeof(struct stackid_frame);
}

/*
 * Frame @i of the sample record @rec (STACKID_REC_SAMPLE or _PACKED,
 * checked), as a struct stackid_frame.
 */
static inline void stackid_sample_frame(const void *rec, unsigned int i,
					struct stackid_frame *f)
{
	const unsigned char *p = (const unsigned char *)rec +
				 sizeof(struct stackid_sample);
	const struct stackid_record_hdr *h = rec;
	u64 v;

	if (h->type == STACKID_REC_SAMPLE_PACKED) {
		memcpy(&v, p + i * sizeof(v), sizeof(v));
		stackid_frame_unpack(v, f);
	} else {
		memcpy(f, p + i * sizeof(*f), sizeof(*f));
	}
}

/* Whether @type is a sample record's. */
static inline bool stackid_is_sample(u16 type)
{
	return type == STACKID_REC_SAMPLE || type == STACKID_REC_SAMPLE_PACKED;
}

#endif /* STACKID_PACKED_H */
