/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables (include/stackid.h, "Unwind tables"): checking a table
 * user space handed in, finding a row, and taking one step of a walk by
 * it. Pure code (pure.h): the module's handler and task context use it,
 * and so do the host's unit test and fuzzer, with their own memory.
 *
 * Everything here is bounded: the search is a binary search (at most 23
 * probes for STACKID_UW_MAX_ROWS rows), a step reads at most three words
 * of the stack, and no value a row holds can make either go further.
 */
#ifndef STACKID_UWTAB_H
#define STACKID_UWTAB_H

#include "pure.h"
#include <stackid.h>

#ifndef __KERNEL__
/* A frame's registers as the walk knows them (internal.h in the module). */
struct stackid_uw_regs {
	u64 ip, sp, bp;
};
#endif

/* Offsets into the kernel's x86-64 struct ucontext (uc_mcontext at 40). */
#define STACKID_UC_BP	(40 + 10 * 8)
#define STACKID_UC_SP	(40 + 15 * 8)
#define STACKID_UC_IP	(40 + 16 * 8)

/*
 * 0 if @rows are a table the module may take: strictly ascending starts,
 * and only the rules include/stackid.h defines.
 */
static inline int stackid_uw_check(const struct stackid_unwind_row *rows,
				   u32 n)
{
	u32 i;

	if (!n || n > STACKID_UW_MAX_ROWS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		u8 cfa = rows[i].rule & STACKID_UW_CFA_MASK;
		u8 bp = rows[i].rule & STACKID_UW_BP_MASK;

		if (cfa > STACKID_UW_CFA_BP_DEREF ||
		    bp > STACKID_UW_BP_AT_BP)
			return -EINVAL;
		if (i && rows[i].start <= rows[i - 1].start)
			return -EINVAL;
	}
	return 0;
}

/* The row covering file offset @off, or NULL (before the first row). */
static inline const struct stackid_unwind_row *
stackid_uw_find(const struct stackid_unwind_row *rows, u32 n, u64 off)
{
	u32 lo = 0, hi = n;

	if (off > 0xffffffffULL)
		return NULL;	/* beyond what a row can start at: unknown */
	/* the last row whose start <= off */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (rows[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &rows[lo - 1] : NULL;
}

/*
 * Reads @n (1 or 2) consecutive words of @size bytes each (8, or 4 for a
 * 32-bit task) of the stack at @addr into @val[0] .. @val[n - 1],
 * zero-extended; nonzero if it cannot (the walk then stops,
 * STACKID_STOP_FAULT).
 */
typedef int (*stackid_uw_read_fn)(void *ctx, u64 addr, unsigned int size,
				  unsigned int n, u64 *val);

/**
 * stackid_uw_step - the caller's registers by one row
 * @row: the row covering @r->ip (ip - 1 for a return address)
 * @r: in: this frame's registers; out: the caller's
 * @read: reads the stack
 * @ctx: for @read
 * @how: set to how the caller was found (enum stackid_frame_how)
 * @w: the task's word size: 8, or 4 for a 32-bit task (whose tables
 *	come from 32-bit files: the return address at cfa - 4, bp saved
 *	in 4-byte words, no signal frames)
 *
 * Returns 0, or why the walk ends here (enum stackid_stop). The caller's
 * stack pointer must lie above this frame's (a CFA below or at sp is
 * BAD_CFA), except across a signal frame, which may come from another
 * stack (sigaltstack); the walk's depth bound ends a loop either way.
 */
static inline int stackid_uw_step(const struct stackid_unwind_row *row,
				  struct stackid_uw_regs *r,
				  stackid_uw_read_fn read, void *ctx, u8 *how,
				  unsigned int w)
{
	u32 bpr = row->rule & STACKID_UW_BP_MASK;	/* where bp is saved */
	u64 cfa, ra, bp = r->bp;

	switch (row->rule & STACKID_UW_CFA_MASK) {
	case STACKID_UW_CFA_SP:
		cfa = r->sp + row->cfa_off;
		break;
	case STACKID_UW_CFA_BP:
		cfa = r->bp + row->cfa_off;
		break;
	case STACKID_UW_CFA_PLT:
		cfa = r->sp + row->cfa_off +
		      ((r->ip & 15) >= (u64)(u8)row->bp_off ? w : 0);
		break;
	case STACKID_UW_CFA_SIGNAL: {
		u64 ip, sp;

		if (w != 8)
			return STACKID_STOP_NO_ROW;
		if (read(ctx, r->sp + STACKID_UC_IP, 8, 1, &ip) ||
		    read(ctx, r->sp + STACKID_UC_SP, 8, 1, &sp) ||
		    read(ctx, r->sp + STACKID_UC_BP, 8, 1, &bp))
			return STACKID_STOP_FAULT;
		if (!ip)
			return STACKID_STOP_END;
		r->ip = ip;
		r->sp = sp;
		r->bp = bp;
		*how = STACKID_HOW_SIGNAL;
		return 0;
	}
	case STACKID_UW_CFA_END:
		return STACKID_STOP_END;
	case STACKID_UW_CFA_BP_DEREF:
		if (read(ctx, r->bp - row->cfa_off, w, 1, &cfa))
			return STACKID_STOP_FAULT;
		break;
	default:
		return STACKID_STOP_NO_ROW;
	}
	/* the return address at cfa - w must be at or above sp */
	if (cfa < r->sp + w || cfa < r->sp ||
	    (w == 4 && cfa > 0xffffffffULL))
		return STACKID_STOP_BAD_CFA;
	if (bpr == STACKID_UW_BP_SAVED && row->bp_off == -2) {
		/* bp saved just below the return address: one read */
		u64 rec[2];

		if (read(ctx, cfa - 2 * w, w, 2, rec))
			return STACKID_STOP_FAULT;
		bp = rec[0];
		ra = rec[1];
	} else {
		if (read(ctx, cfa - w, w, 1, &ra))
			return STACKID_STOP_FAULT;
		if (bpr == STACKID_UW_BP_SAVED &&
		    read(ctx, cfa + (s64)row->bp_off * w, w, 1, &bp))
			return STACKID_STOP_FAULT;
		if (bpr == STACKID_UW_BP_AT_BP && read(ctx, r->bp, w, 1, &bp))
			return STACKID_STOP_FAULT;
	}
	if (!ra)
		return STACKID_STOP_END;
	r->ip = ra;
	r->sp = cfa;
	r->bp = bp;
	*how = STACKID_HOW_TABLE;
	return 0;
}

#endif /* STACKID_UWTAB_H */
