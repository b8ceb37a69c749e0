// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the unwind table compiler (src/tool/cfi.c):
 *
 *  - hand-made .eh_frame entries (test/unit/cfigen.h), one rule each:
 *    the rows they must give;
 *  - hostile ones (truncated, CIE pointers that loop or point anywhere,
 *    huge lengths, advance_loc past the FDE, remember_state too deep,
 *    ELFCLASS32): an error or fewer rows, never a crash or a hang;
 *  - the same for i386 ELF32 files (4-byte words, esp 4, ebp 5, eip 8,
 *    absptr 4 bytes, 'S' FDEs none);
 *  - real files: the host's libc, python3.11 (skipped if absent) and
 *    programs compiled here (-O2 -fomit-frame-pointer: a large frame,
 *    alloca and a VLA, no PIE, .debug_frame only, frame pointers), row
 *    by row against `readelf --debug-dump=frames-interp`: at the first
 *    and the last byte of every oracle row, the table's row for its file
 *    offset must be the oracle's rule; and the same with -m32, the
 *    host's 32-bit libc and the guest's 32-bit programs (read, never
 *    run);
 *  - with --seeds DIR, it writes the fuzzer's seeds there instead.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tool/cfi.h"
#include "tap.h"
#include "cfigen.h"

static unsigned char elfbuf[16384];

/* The table of .eh_frame @eh in a tiny ELF file. */
static int compile_eh(const struct cfibuf *eh, struct cfi_table *t)
{
	size_t n = cg_elf(eh, elfbuf);

	return cfi_compile_buf(elfbuf, n, t);
}

/* Row at text offset @n (the file offset of CG_TEXT + n). */
static const struct stackid_unwind_row *at(const struct cfi_table *t,
					   uint64_t n)
{
	return cfi_lookup(t, CG_TEXT - CG_BASE + n);
}

static bool is(const struct stackid_unwind_row *r, uint8_t rule,
	       uint16_t cfa_off, int8_t bp_off)
{
	return r && r->rule == rule && r->cfa_off == cfa_off &&
	       r->bp_off == bp_off;
}

/* Rows strictly ascending, no two neighbours the same, last CFA_NONE. */
static bool well_formed(const struct cfi_table *t)
{
	uint32_t i;

	if (!t->nr_rows || t->rows[t->nr_rows - 1].rule != STACKID_UW_CFA_NONE)
		return false;
	for (i = 1; i < t->nr_rows; i++) {
		const struct stackid_unwind_row *a = &t->rows[i - 1],
						 *b = &t->rows[i];

		if (a->start >= b->start || (a->rule == b->rule &&
		    a->cfa_off == b->cfa_off && a->bp_off == b->bp_off))
			return false;
	}
	return true;
}

/* One FDE [0x10, 0x40) of the standard CIE with @ins; compiled. */
static int one(const void *ins, size_t n, struct cfi_table *t)
{
	struct cfibuf eh = { .n = 0 };
	size_t cie = cg_cie(&eh, "zR");

	cg_fde(&eh, cie, 0x10, 0x40, ins, n, 0);
	return compile_eh(&eh, t);
}

static void test_rules(void)
{
	struct cfi_table t;
	int ret;

	/* push rbp; mov rbp, rsp; ...; leave */
	{
		static const unsigned char ins[] = {
			0x41, 0x0e, 16, 0x86, 2,	/* +1: cfa rsp+16, rbp c-16 */
			0x43, 0x0d, 6,			/* +3: cfa rbp */
			0x4a, 0x0c, 7, 8,		/* +10: cfa rsp+8 */
		};

		ret = one(ins, sizeof(ins), &t);
		tap_ok(!ret && well_formed(&t) && t.nr_rows == 5 &&
		       !at(&t, 0xf) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x11), 0x11, 16, -2) &&
		       is(at(&t, 0x14), 0x12, 16, -2) &&
		       is(at(&t, 0x1d), 0x12, 16, -2) &&
		       is(at(&t, 0x1e), 0x11, 8, -2) &&
		       is(at(&t, 0x3f), 0x11, 8, -2) && is(at(&t, 0x40), 0, 0, 0),
		       "frame pointer prologue: sp, sp+bp, bp+bp, then none at "
		       "the FDE's end (%d, %u rows)", ret, t.nr_rows);
		cfi_table_free(&t);
	}
	/* restore rbp, same_value, remember/restore state */
	{
		static const unsigned char ins[] = {
			0x41, 0x0e, 16, 0x86, 2,	/* +1 */
			0x0a,				/* remember */
			0x41, 0x0e, 8, 0xc6,		/* +1: rsp+8, restore rbp */
			0x41, 0x0b,			/* +1: restore_state */
			0x41, 0x08, 6,			/* +1: same_value rbp */
			0x41, 0x2e, 8,			/* GNU_args_size */
		};

		ret = one(ins, sizeof(ins), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x11), 0x11, 16, -2) &&
		       is(at(&t, 0x12), 1, 8, 0) &&
		       is(at(&t, 0x13), 0x11, 16, -2) &&
		       is(at(&t, 0x14), 1, 16, 0) && is(at(&t, 0x3f), 1, 16, 0),
		       "restore, remember_state/restore_state, same_value");
		cfi_table_free(&t);
	}
	/* PLT expression, signal frame, undefined ra */
	{
		static const unsigned char plt[] = {
			0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
			0x33, 0x24, 0x22,
		};
		static const unsigned char sig[] = {
			0x0f, 4, 0x77, 0xa0, 0x01, 0x06,
			0x10, 6, 2, 0x77, 120,		/* rbp: expression */
			0x10, 16, 3, 0x77, 0xa8, 0x01,	/* ra: expression */
		};
		static const unsigned char undef[] = { 0x07, 16 };
		static const unsigned char other[] = {
			0x0f, 3, 0x77, 8, 0x06,		/* breg7 8; deref */
		};
		static const unsigned char drap[] = {
			0x0f, 3, 0x76, 0x78, 0x06,	/* breg6 -8; deref */
			0x41, 0x10, 6, 2, 0x76, 0,	/* +1: rbp: breg6 0 */
		};
		struct cfibuf eh = { .n = 0 };
		size_t cie = cg_cie(&eh, "zR"), scie = cg_cie(&eh, "zRS");

		cg_fde(&eh, cie, 0x10, 0x20, plt, sizeof(plt), 0);
		cg_fde(&eh, scie, 0x20, 0x28, sig, sizeof(sig), 0);
		cg_fde(&eh, cie, 0x28, 0x30, undef, sizeof(undef), 0);
		cg_fde(&eh, scie, 0x30, 0x38, plt, sizeof(plt), 0);
		cg_fde(&eh, cie, 0x38, 0x40, sig, sizeof(sig), 0);
		cg_fde(&eh, cie, 0x40, 0x48, other, sizeof(other), 0);
		cg_fde(&eh, cie, 0x48, 0x50, drap, sizeof(drap), 0);
		ret = compile_eh(&eh, &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 3, 8, 11) &&
		       is(at(&t, 0x20), 4, 0, 0) && is(at(&t, 0x28), 5, 0, 0) &&
		       is(at(&t, 0x30), 3, 8, 11) && is(at(&t, 0x38), 0, 0, 0) &&
		       is(at(&t, 0x40), 0, 0, 0) && t.fdes == 7 &&
		       is(at(&t, 0x48), 6, 8, 0) && is(at(&t, 0x49), 0x26, 8, 0),
		       "PLT expression, __restore_rt, undefined ra, a signal "
		       "expression without 'S', another expression, a CFA "
		       "saved below bp, rbp saved at bp (bp_deref, bp_at_bp)");
		cfi_table_free(&t);
	}
	/* what a row cannot say */
	{
		static const unsigned char big[] = {
			0x41, 0x0e, 0x80, 0x80, 0x04,	/* +1: rsp+65536 */
			0x41, 0x0e, 0xff, 0xff, 0x03,	/* +1: rsp+65535 */
			0x41, 0x0c, 3, 8,		/* +1: rbx+8 */
			0x41, 0x0c, 7, 16, 0x05, 16, 2,	/* +1: ra at c-16 */
			0x41, 0x90, 1, 0x86, 0x81, 0x01,/* +1: rbp c-1032 */
			0x41, 0x86, 2, 0x09, 6, 3,	/* +1: rbp in rbx */
			0x41, 0x06, 6, 0x14, 16, 1,	/* +1: ra val_offset */
		};

		ret = one(big, sizeof(big), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x11), 0, 0, 0) &&
		       is(at(&t, 0x12), 1, 65535, 0) &&
		       is(at(&t, 0x13), 0, 0, 0) && is(at(&t, 0x14), 0, 0, 0) &&
		       is(at(&t, 0x15), 0, 0, 0) && is(at(&t, 0x16), 0, 0, 0) &&
		       is(at(&t, 0x17), 0, 0, 0),
		       "cfa_off above 65535, another CFA register, ra not at "
		       "cfa-8, bp_off beyond s8, rbp in a register, ra "
		       "val_offset: none");
		cfi_table_free(&t);
	}
	/* CIE with personality and LSDA, advance_loc1/2/4, set_loc */
	{
		static const unsigned char ins[] = {
			0x02, 2, 0x0e, 16,		/* +2 */
			0x03, 2, 0, 0x0e, 24,		/* +2 */
			0x04, 2, 0, 0, 0, 0x0e, 32,	/* +2 */
		};
		struct cfibuf eh = { .n = 0 };
		size_t cie = cg_cie(&eh, "zPLR");

		cg_fde(&eh, cie, 0x10, 0x40, ins, sizeof(ins), 1);
		ret = compile_eh(&eh, &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x12), 1, 16, 0) && is(at(&t, 0x14), 1, 24, 0) &&
		       is(at(&t, 0x16), 1, 32, 0) && is(at(&t, 0x3f), 1, 32, 0),
		       "zPLR CIE (indirect personality), advance_loc1/2/4");
		cfi_table_free(&t);
	}
	/* overlapping FDEs, neighbours, a gap, identical rows merged */
	{
		static const unsigned char a[] = { 0x41, 0x0e, 16 };
		struct cfibuf eh = { .n = 0 };
		size_t cie = cg_cie(&eh, "zR");

		cg_fde(&eh, cie, 0x20, 0x30, NULL, 0, 0);	/* sp 8 */
		cg_fde(&eh, cie, 0x10, 0x28, a, sizeof(a), 0);	/* first */
		cg_fde(&eh, cie, 0x30, 0x40, NULL, 0, 0);	/* merged */
		cg_fde(&eh, cie, 0x50, 0x60, a, sizeof(a), 0);	/* gap */
		cg_fde(&eh, cie, 0x50, 0x58, NULL, 0, 0);	/* same start */
		ret = compile_eh(&eh, &t);
		tap_ok(!ret && well_formed(&t) && t.nr_rows == 7 &&
		       is(at(&t, 0x10), 1, 8, 0) && is(at(&t, 0x11), 1, 16, 0) &&
		       is(at(&t, 0x27), 1, 16, 0) && is(at(&t, 0x28), 1, 8, 0) &&
		       is(at(&t, 0x3f), 1, 8, 0) && is(at(&t, 0x40), 0, 0, 0) &&
		       is(at(&t, 0x50), 1, 8, 0) && is(at(&t, 0x51), 1, 16, 0) &&
		       is(at(&t, 0x60), 0, 0, 0) && t.fdes_overlap == 2,
		       "overlaps: the FDE that starts first wins, then the "
		       "first in the file; gaps end in none (%u rows)",
		       t.nr_rows);
		cfi_table_free(&t);
	}
}

/* The table of .eh_frame @eh in a tiny i386 ELF file. */
static int compile_eh32(const struct cfibuf *eh, struct cfi_table *t)
{
	size_t n = cg_elf32(eh, elfbuf);

	return cfi_compile_buf(elfbuf, n, t);
}

/* One FDE [0x10, 0x40) of the standard i386 CIE with @ins; compiled. */
static int one32(const void *ins, size_t n, struct cfi_table *t)
{
	struct cfibuf eh = { .n = 0 };
	size_t cie = cg_cie32(&eh, "zR", 0x1b);

	cg_fde(&eh, cie, 0x10, 0x40, ins, n, 0);
	return compile_eh32(&eh, t);
}

static void test_rules32(void)
{
	struct cfi_table t;
	int ret;

	/* push ebp; mov ebp, esp; ...; leave */
	{
		static const unsigned char ins[] = {
			0x41, 0x0e, 8, 0x85, 2,		/* +1: cfa esp+8, ebp c-8 */
			0x42, 0x0d, 5,			/* +2: cfa ebp */
			0x4a, 0x0c, 4, 4,		/* +10: cfa esp+4 */
		};

		ret = one32(ins, sizeof(ins), &t);
		tap_ok(!ret && well_formed(&t) && t.nr_rows == 5 && t.elf32 &&
		       !at(&t, 0xf) && is(at(&t, 0x10), 1, 4, 0) &&
		       is(at(&t, 0x11), 0x11, 8, -2) &&
		       is(at(&t, 0x13), 0x12, 8, -2) &&
		       is(at(&t, 0x1c), 0x12, 8, -2) &&
		       is(at(&t, 0x1d), 0x11, 4, -2) &&
		       is(at(&t, 0x3f), 0x11, 4, -2) && is(at(&t, 0x40), 0, 0, 0),
		       "i386 frame pointer prologue: sp 4, sp 8 + ebp at "
		       "cfa-8 (bp_off -2 words), bp, then none (%d, %u rows)",
		       ret, t.nr_rows);
		cfi_table_free(&t);
	}
	/* PLT, DRAP, signal, undefined ra; x86-64's forms in an i386 file */
	{
		static const unsigned char plt[] = {
			0x0f, 11, 0x74, 4, 0x78, 0, 0x3f, 0x1a, 0x3b, 0x2a,
			0x32, 0x24, 0x22,
		};
		static const unsigned char plt10[] = {
			0x0f, 11, 0x74, 4, 0x78, 0, 0x3f, 0x1a, 0x3a, 0x2a,
			0x32, 0x24, 0x22,
		};
		static const unsigned char plt64[] = {
			0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
			0x33, 0x24, 0x22,
		};
		static const unsigned char plt_lit3[] = {
			0x0f, 11, 0x74, 4, 0x78, 0, 0x3f, 0x1a, 0x3b, 0x2a,
			0x33, 0x24, 0x22,
		};
		static const unsigned char drap[] = {
			0x0f, 3, 0x75, 0x7c, 0x06,	/* breg5 -4; deref */
			0x41, 0x10, 5, 2, 0x75, 0,	/* +1: ebp: breg5 0 */
		};
		static const unsigned char drap64[] = {
			0x0f, 3, 0x76, 0x78, 0x06,	/* breg6 -8; deref */
			0x41, 0x10, 6, 2, 0x76, 0,
		};
		static const unsigned char undef[] = { 0x07, 8 };
		static const unsigned char undef64[] = { 0x07, 16 };
		static const unsigned char sig[] = {
			0x0f, 4, 0x74, 0xa0, 0x01, 0x06,
		};
		struct cfibuf eh = { .n = 0 };
		size_t cie = cg_cie32(&eh, "zR", 0x1b),
		       scie = cg_cie32(&eh, "zRS", 0x1b);

		cg_fde(&eh, cie, 0x10, 0x20, plt, sizeof(plt), 0);
		cg_fde(&eh, cie, 0x20, 0x28, plt10, sizeof(plt10), 0);
		cg_fde(&eh, cie, 0x28, 0x30, plt64, sizeof(plt64), 0);
		cg_fde(&eh, cie, 0x30, 0x38, plt_lit3, sizeof(plt_lit3), 0);
		cg_fde(&eh, cie, 0x38, 0x40, drap, sizeof(drap), 0);
		cg_fde(&eh, cie, 0x40, 0x48, drap64, sizeof(drap64), 0);
		cg_fde(&eh, cie, 0x48, 0x50, undef, sizeof(undef), 0);
		cg_fde(&eh, cie, 0x50, 0x58, undef64, sizeof(undef64), 0);
		cg_fde(&eh, scie, 0x58, 0x60, sig, sizeof(sig), 0);
		cg_fde(&eh, scie, 0x60, 0x68, NULL, 0, 0);
		cg_fde(&eh, scie, 0x68, 0x70, undef, sizeof(undef), 0);
		cg_fde(&eh, cie, 0x70, 0x78, NULL, 0, 0);
		ret = compile_eh32(&eh, &t);
		tap_ok(!ret && well_formed(&t) && t.fdes == 12 &&
		       is(at(&t, 0x10), 3, 4, 11) && is(at(&t, 0x20), 3, 4, 10) &&
		       is(at(&t, 0x28), 0, 0, 0) && is(at(&t, 0x30), 0, 0, 0) &&
		       is(at(&t, 0x38), 6, 4, 0) && is(at(&t, 0x39), 0x26, 4, 0) &&
		       is(at(&t, 0x40), 0, 0, 0) && is(at(&t, 0x41), 0, 0, 0) &&
		       is(at(&t, 0x48), 5, 0, 0) && is(at(&t, 0x50), 1, 4, 0) &&
		       is(at(&t, 0x58), 0, 0, 0) && is(at(&t, 0x60), 0, 0, 0) &&
		       is(at(&t, 0x68), 0, 0, 0) && is(at(&t, 0x70), 1, 4, 0),
		       "i386: PLT expression (lit11, lit10: plt 4), x86-64's "
		       "PLT and lit3: none, DRAP breg5 (bpderef+bpatbp), "
		       "breg6: none, eip undefined: end (r16: ignored), 'S' "
		       "FDEs: none");
		cfi_table_free(&t);
	}
	/* what a row cannot say; the registers x86-64 numbers rsp, rbp */
	{
		static const unsigned char big[] = {
			0x41, 0x0e, 0x80, 0x80, 0x04,	/* +1: esp+65536 */
			0x41, 0x0e, 0xff, 0xff, 0x03,	/* +1: esp+65535 */
			0x41, 0x0c, 7, 8,		/* +1: edi+8 */
			0x41, 0x0c, 6, 8,		/* +1: esi+8 */
			0x41, 0x0c, 4, 8, 0x88, 2,	/* +1: ra at c-8 */
			0x41, 0xc8, 0x85, 0x81, 0x01,	/* +1: ra back, ebp c-516 */
			0x41, 0x85, 0x80, 0x01,		/* +1: ebp c-512 */
			0x41, 0x86, 2,			/* +1: esi saved: same */
		};

		ret = one32(big, sizeof(big), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x11), 0, 0, 0) &&
		       is(at(&t, 0x12), 1, 65535, 0) &&
		       is(at(&t, 0x13), 0, 0, 0) && is(at(&t, 0x14), 0, 0, 0) &&
		       is(at(&t, 0x15), 0, 0, 0) && is(at(&t, 0x16), 0, 0, 0) &&
		       is(at(&t, 0x17), 0x11, 8, -128) &&
		       is(at(&t, 0x18), 0x11, 8, -128),
		       "i386: cfa_off above 65535, CFA by edi or esi, ra at "
		       "cfa-8, bp_off -129 words: none; -128 words: kept");
		cfi_table_free(&t);
	}
	/* absptr: 4-byte pointers in ELF32 */
	{
		static const unsigned char ins[] = { 0x41, 0x0e, 8 };
		struct cfibuf eh = { .n = 0 };
		size_t cie = cg_cie32(&eh, "zR", 0x00);

		cg_fde_abs(&eh, cie, 0x10, 0x20, ins, sizeof(ins));
		cg_fde_abs(&eh, cie, 0x30, 0x40, NULL, 0);
		ret = compile_eh32(&eh, &t);
		tap_ok(!ret && well_formed(&t) && t.fdes == 2 &&
		       is(at(&t, 0x10), 1, 4, 0) && is(at(&t, 0x11), 1, 8, 0) &&
		       is(at(&t, 0x20), 0, 0, 0) && is(at(&t, 0x30), 1, 4, 0) &&
		       is(at(&t, 0x40), 0, 0, 0),
		       "i386: absptr FDE pointers are 4 bytes (%d)", ret);
		cfi_table_free(&t);
	}
}

/* The same result, row for row and count for count. */
static bool same_table(int ra, const struct cfi_table *a, int rb,
		       const struct cfi_table *b)
{
	return ra == rb && a->nr_rows == b->nr_rows &&
	       (!a->nr_rows || !memcmp(a->rows, b->rows,
				       a->nr_rows * sizeof(*a->rows))) &&
	       a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, sizeof(a->build_id)) &&
	       a->elf32 == b->elf32 && a->eh_frame == b->eh_frame &&
	       a->debug_frame == b->debug_frame &&
	       a->truncated == b->truncated && a->fdes == b->fdes &&
	       a->fdes_debug == b->fdes_debug && a->fdes_bad == b->fdes_bad &&
	       a->fdes_partial == b->fdes_partial &&
	       a->fdes_overlap == b->fdes_overlap &&
	       a->fdes_unmapped == b->fdes_unmapped;
}

/*
 * Compile @len bytes of @p from memory, and from a file (memfd) holding
 * them: the file's reads go through the compiler's window, so both must
 * give the same. -1001: they differ.
 */
static int buf_and_fd(const unsigned char *p, size_t len, struct cfi_table *t)
{
	struct cfi_table t2;
	int ret = cfi_compile_buf(p, len, t), ret2 = -1001;
	int fd = memfd_create("stackid-cfi", MFD_CLOEXEC);

	if (fd < 0) {
		/* no memfd here (seccomp, an old kernel): memory only */
		return ret;
	}
	if ((size_t)pwrite(fd, p, len, 0) == len) {
		ret2 = cfi_compile_fd(fd, &t2);
		ret2 = same_table(ret, t, ret2, &t2) ? ret : -1001;
		cfi_table_free(&t2);
	}
	close(fd);
	return ret2;
}

/* Compile @len bytes of @p; must return (the sanitizers watch). */
static int hostile(const unsigned char *p, size_t len, struct cfi_table *t)
{
	int ret = buf_and_fd(p, len, t);

	if (ret == -1001)
		return -1000;
	if (!ret && !well_formed(t))
		ret = -1000;
	return ret;
}

static void test_hostile(void)
{
	static const unsigned char fp[] = { 0x41, 0x0e, 16, 0x86, 2 };
	struct cfibuf eh = { .n = 0 }, e2;
	struct cfi_table t;
	size_t n, cut, cie, fde;
	unsigned char *copy;
	int ret, bad = 0;
	uint32_t v;
	unsigned int i;

	cie = cg_cie(&eh, "zR");
	fde = cg_fde(&eh, cie, 0x10, 0x40, fp, sizeof(fp), 0);
	cg_fde(&eh, cie, 0x40, 0x50, fp, sizeof(fp), 0);
	n = cg_elf(&eh, elfbuf);
	copy = malloc(n);
	/* every prefix of the file, and of .eh_frame alone */
	for (cut = 0; cut < n; cut++) {
		memcpy(copy, elfbuf, cut);
		ret = hostile(copy, cut, &t);
		bad += ret == -1000;
		cfi_table_free(&t);
	}
	for (cut = 0; cut < eh.n; cut++) {
		e2 = eh;
		e2.n = cut;
		ret = compile_eh(&e2, &t);
		bad += ret == -1000 || (!ret && !well_formed(&t));
		cfi_table_free(&t);
	}
	tap_ok(!bad, "truncated files and .eh_frame: no crash, well-formed "
	       "rows or an error, the same from a file (%zu + %zu cuts)",
	       n, eh.n);

	/* the FDE's CIE pointer at itself, at the other FDE, beyond 0 */
	bad = 0;
	for (i = 0; i < 4; i++) {
		/* itself, 0 (a CIE then), the real CIE, before the section */
		uint32_t ptrs[] = { 4, 0, fde + 4, 0xfffffff0 };

		e2 = eh;
		v = ptrs[i];
		memcpy(e2.b + fde + 4, &v, 4);
		ret = compile_eh(&e2, &t);
		bad += ret == -1000 || (!ret && !well_formed(&t));
		if (i != 2 && !ret && at(&t, 0x11) &&
		    at(&t, 0x11)->rule == 0x11)
			bad++;		/* that FDE is gone */
		if (i == 2 && (ret || !is(at(&t, 0x11), 0x11, 16, -2)))
			bad++;
		cfi_table_free(&t);
	}
	tap_ok(!bad, "CIE pointers at the FDE itself, 0, out of the "
	       "section: that FDE skipped; at the CIE: kept");

	/* huge lengths: 32-bit, reserved, 64-bit */
	bad = 0;
	for (i = 0; i < 3; i++) {
		static const uint32_t lens[] = { 0xffffff00, 0xfffffff4,
						 0xffffffff };

		e2 = eh;
		memcpy(e2.b + fde, &lens[i], 4);
		ret = compile_eh(&e2, &t);
		bad += ret == -1000 || (!ret && !well_formed(&t));
		cfi_table_free(&t);
	}
	tap_ok(!bad, "huge and 64-bit lengths: the rest of the section lost, "
	       "no crash");

	/* advance_loc past the FDE's end; set_loc backwards */
	{
		static const unsigned char ins[] = {
			0x41, 0x0e, 16, 0x04, 0, 0, 0, 0x80, 0x0e, 24,
		};
		static const unsigned char back[] = {
			0x44, 0x0e, 16, 0x01, 0, 0, 0, 0, 0x0e, 24,
		};

		ret = one(ins, sizeof(ins), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x11), 1, 16, 0) &&
		       is(at(&t, 0x3f), 1, 16, 0) && is(at(&t, 0x40), 0, 0, 0),
		       "advance_loc past the FDE's end: the rows stop there");
		cfi_table_free(&t);
		ret = one(back, sizeof(back), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x14), 0, 0, 0) && t.fdes_partial == 1,
		       "set_loc backwards: the rest of the FDE has no row");
		cfi_table_free(&t);
	}
	/* remember_state 17 deep, restore_state with nothing remembered */
	{
		unsigned char ins[40];
		static const unsigned char under[] = { 0x41, 0x0b, 0x0e, 16 };

		ins[0] = 0x41;
		ins[1] = 0x0e;
		ins[2] = 16;
		memset(ins + 3, 0x0a, 17);
		ins[20] = 0x41;
		ins[21] = 0x0e;
		ins[22] = 24;
		ret = one(ins, 23, &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x11), 0, 0, 0) && t.fdes_partial == 1,
		       "remember_state 17 deep: none from there (ret %d)", ret);
		cfi_table_free(&t);
		ret = one(ins + 1 - 1, 3 + 16, &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x11), 1, 16, 0) && !t.fdes_partial,
		       "remember_state 16 deep: followed");
		cfi_table_free(&t);
		ret = one(under, sizeof(under), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x10), 1, 8, 0) &&
		       is(at(&t, 0x11), 0, 0, 0), "restore_state with nothing "
		       "remembered: none from there");
		cfi_table_free(&t);
	}
	/* an unknown opcode; a CIE of version 2; an "eh" augmentation */
	{
		static const unsigned char ins[] = { 0x41, 0x0e, 16, 0x41, 0x3f };
		struct cfibuf e3 = { .n = 0 };
		size_t c3 = cg_cie(&e3, "zR"), c4 = cg_cie(&e3, "eh");

		e3.b[c3 + 8] = 2;
		cg_fde(&e3, c3, 0x10, 0x20, fp, sizeof(fp), 0);
		cg_fde(&e3, c4, 0x20, 0x30, fp, sizeof(fp), 0);
		ret = compile_eh(&e3, &t);
		tap_ok(ret == -ENODATA && !t.nr_rows && t.fdes_bad == 2,
		       "CIE version 2, 'eh' augmentation: FDEs skipped, no "
		       "table (%d)", ret);
		cfi_table_free(&t);
		ret = one(ins, sizeof(ins), &t);
		tap_ok(!ret && well_formed(&t) && is(at(&t, 0x11), 1, 16, 0) &&
		       is(at(&t, 0x12), 0, 0, 0), "unknown opcode: none from "
		       "there");
		cfi_table_free(&t);
	}
	/* many FDEs on one CIE with a long initial program: bounded */
	{
		static struct cfibuf big;
		struct timespec t0, t1;
		size_t c;

		big.n = 0;
		c = big.n;
		cb_le(&big, 0, 4);
		cb_le(&big, 0, 4);
		cb_u8(&big, 1);
		cb_bytes(&big, "zR", 3);
		cb_uleb(&big, 1);
		cb_sleb(&big, -8);
		cb_u8(&big, 16);
		cb_uleb(&big, 1);
		cb_u8(&big, 0x1b);
		while (big.n < 4000)
			cb_u8(&big, 0x0a), cb_u8(&big, 0x0b);	/* remember, restore */
		cb_close(&big, c);
		while (big.n < sizeof(big.b) - 64)
			cg_fde(&big, c, 0x10, 0x20, NULL, 0, 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = compile_eh(&big, &t);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		tap_ok(ret == -ENODATA && t1.tv_sec - t0.tv_sec < 5,
		       "a CIE whose initial program is long, run for each of "
		       "many FDEs: done (%d)", ret);
		cfi_table_free(&t);
	}
	/* i386 ELF32: every prefix; headers the wrong size */
	{
		struct cfibuf e3 = { .n = 0 };
		size_t c3 = cg_cie32(&e3, "zR", 0x1b);

		cg_fde(&e3, c3, 0x10, 0x40, fp, sizeof(fp), 0);
		cg_fde(&e3, c3, 0x40, 0x50, fp, sizeof(fp), 0);
		n = cg_elf32(&e3, elfbuf);
		bad = 0;
		for (cut = 0; cut < n; cut++) {
			unsigned char *c = malloc(cut ? cut : 1);

			memcpy(c, elfbuf, cut);
			ret = hostile(c, cut, &t);
			bad += ret == -1000;
			cfi_table_free(&t);
			free(c);
		}
		ret = hostile(elfbuf, n, &t);
		tap_ok(!bad && !ret && t.elf32 && t.nr_rows > 2,
		       "i386: every prefix of the file: no crash (%zu cuts)", n);
		cfi_table_free(&t);
		elfbuf[42] = sizeof(Elf64_Phdr);	/* e_phentsize */
		tap_ok(hostile(elfbuf, n, &t) == -ENOEXEC,
		       "i386: ELF64-sized program headers: -ENOEXEC");
		n = cg_elf32(&e3, elfbuf);
		elfbuf[46] = sizeof(Elf64_Shdr);	/* e_shentsize */
		ret = hostile(elfbuf, n, &t);
		tap_ok(ret == -ENODATA, "i386: ELF64-sized section headers: "
		       "no sections, no table (%d)", ret);
		n = cg_elf32(&e3, elfbuf);
		elfbuf[18] = EM_X86_64;
		tap_ok(cfi_compile_buf(elfbuf, n, &t) == -ENOTSUP,
		       "ELF32 x86-64 (x32): unsupported");
		n = cg_elf(&eh, elfbuf);
		elfbuf[18] = EM_386;
		tap_ok(cfi_compile_buf(elfbuf, n, &t) == -ENOTSUP,
		       "ELF64 i386: unsupported");
	}
	/* not x86-64 ELF64 or i386 ELF32 */
	{
		unsigned char e[64] = { 0x7f, 'E', 'L', 'F', ELFCLASS32, 1, 1 };

		tap_ok(cfi_compile_buf(e, sizeof(e), &t) == -ENOTSUP,
		       "ELFCLASS32 of machine 0: unsupported");
		e[EI_DATA] = ELFDATA2MSB;
		e[18] = 0;
		e[19] = EM_386;
		tap_ok(cfi_compile_buf(e, sizeof(e), &t) == -ENOTSUP,
		       "big-endian ELFCLASS32: unsupported");
		n = cg_elf(&eh, elfbuf);
		elfbuf[18] = EM_AARCH64;
		tap_ok(cfi_compile_buf(elfbuf, n, &t) == -ENOTSUP,
		       "another machine: unsupported");
		tap_ok(cfi_compile_buf("hello", 5, &t) == -ENOEXEC,
		       "not ELF: -ENOEXEC");
	}
	free(copy);
}

/* The oracle: readelf's interpretation of one FDE. */
struct orow {
	uint64_t loc;
	struct stackid_unwind_row want;
	bool any_exp;		/* CFA an expression we do not check */
	bool bp_exp;		/* rbp's rule an expression: bp_at_bp or none */
};

struct ofde {
	uint64_t lo, hi;
	bool debug;
	struct orow *rows;
	size_t n;
};

struct ocie {
	bool debug, signal, has_row;
	unsigned long off;
	struct orow row;
};

/* What readelf calls the registers, and the word, of a class. */
struct oarch {
	const char *sp, *bp, *ra_at;
	int word;
	bool is32;
};

static const struct oarch oa64 = { "rsp", "rbp", "c-8", 8, false };
static const struct oarch oa32 = { "esp", "ebp", "c-4", 4, true };

/* "REG+N" with REG @reg: N, else false. */
static bool reg_plus(const char *cfa, const char *reg, unsigned long *n)
{
	size_t l = strlen(reg);
	char tail;

	return !strncmp(cfa, reg, l) && cfa[l] == '+' &&
	       sscanf(cfa + l + 1, "%lu%c", n, &tail) == 1;
}

static void expect(const struct oarch *oa, const char *cfa, const char *rbp,
		   const char *ra, bool sig, struct orow *o)
{
	unsigned long n;
	long b;
	char tail;

	memset(&o->want, 0, sizeof(o->want));
	o->any_exp = o->bp_exp = false;
	if (sig && oa->is32)
		return;		/* i386 'S': none (no CFA_SIGNAL there) */
	if (!strcmp(ra, "u")) {
		o->want.rule = STACKID_UW_CFA_END;
		return;
	}
	if (!strcmp(cfa, "exp")) {
		if (sig)
			o->want.rule = STACKID_UW_CFA_SIGNAL;
		else
			o->any_exp = true;
		return;
	}
	if (strcmp(ra, oa->ra_at))
		return;
	if (reg_plus(cfa, oa->sp, &n))
		o->want.rule = STACKID_UW_CFA_SP;
	else if (reg_plus(cfa, oa->bp, &n))
		o->want.rule = STACKID_UW_CFA_BP;
	else
		return;
	if (n > 65535) {
		o->want.rule = 0;
		return;
	}
	o->want.cfa_off = n;
	if (!rbp || !strcmp(rbp, "u") || !strcmp(rbp, "s"))
		return;
	if (!strcmp(rbp, "exp")) {	/* DW_OP_breg6 (5) 0, or another */
		o->bp_exp = true;
		return;
	}
	if (sscanf(rbp, "c%ld%c", &b, &tail) == 1 && b % oa->word == 0 &&
	    b / oa->word >= -128 && b / oa->word <= 127) {
		o->want.rule |= STACKID_UW_BP_SAVED;
		o->want.bp_off = b / oa->word;
		return;
	}
	memset(&o->want, 0, sizeof(o->want));
}

struct oracle {
	struct ofde *f;
	size_t n;
	unsigned long cies;
};

static void oracle_free(struct oracle *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->f[i].rows);
	free(o->f);
}

/* Parse readelf -W --debug-dump=frames-interp @path. */
static bool oracle_read(const char *path, const struct oarch *oa,
			struct oracle *o)
{
	char cmd[512], line[4096], *tok[64];
	struct ocie cies[256];
	size_t ncies = 0, i;
	int ntok = 0, col_rbp = -1, col_ra = -1, k;
	bool debug = false, in_cie = false, sig = false;
	struct ocie *cur_cie = NULL;
	struct ofde *cur = NULL;
	FILE *p;

	memset(o, 0, sizeof(*o));
	snprintf(cmd, sizeof(cmd), "readelf -W --debug-dump=frames-interp "
		 "'%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		unsigned long off, cie;
		uint64_t lo, hi, loc;
		char aug[32];

		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "Contents of the .debug_frame")) {
			debug = true;
			continue;
		}
		if (strstr(line, "Contents of the .eh_frame")) {
			debug = false;
			continue;
		}
		if (!line[0]) {
			/* an FDE without rows: the CIE's */
			if (cur && !cur->n && cur_cie && cur_cie->has_row) {
				cur->rows = malloc(sizeof(*cur->rows));
				cur->rows[0] = cur_cie->row;
				cur->rows[0].loc = cur->lo;
				cur->n = 1;
			}
			cur = NULL;
			in_cie = false;
			continue;
		}
		if (strstr(line, " CIE \"") &&
		    sscanf(line, "%lx", &off) == 1) {
			char *q = strstr(line, " CIE \"") + 6;

			snprintf(aug, sizeof(aug), "%.*s",
				 (int)strcspn(q, "\""), q);
			if (ncies == 256)
				continue;
			cur_cie = &cies[ncies++];
			memset(cur_cie, 0, sizeof(*cur_cie));
			cur_cie->debug = debug;
			cur_cie->off = off;
			cur_cie->signal = strchr(aug, 'S') != NULL;
			in_cie = true;
			o->cies++;
			continue;
		}
		if (sscanf(line, "%*x %*x %*x FDE cie=%lx pc=%" SCNx64 "..%" SCNx64,
			   &cie, &lo, &hi) == 3) {
			cur_cie = NULL;
			for (i = 0; i < ncies; i++)
				if (cies[i].off == cie && cies[i].debug == debug)
					cur_cie = &cies[i];
			sig = cur_cie && cur_cie->signal;
			o->f = realloc(o->f, (o->n + 1) * sizeof(*o->f));
			cur = &o->f[o->n++];
			memset(cur, 0, sizeof(*cur));
			cur->lo = lo;
			cur->hi = hi;
			cur->debug = debug;
			continue;
		}
		if (strstr(line, "   LOC ") == line) {
			char *s = line, *w;

			ntok = 0;
			col_rbp = col_ra = -1;
			while ((w = strtok(s, " ")) && ntok < 64) {
				s = NULL;
				if (!strcmp(w, oa->bp))
					col_rbp = ntok;
				if (!strcmp(w, "ra"))
					col_ra = ntok;
				ntok++;
			}
			continue;
		}
		if (strlen(line) > 2U * oa->word + 1 &&
		    sscanf(line, "%" SCNx64, &loc) == 1 &&
		    line[2 * oa->word] == ' ' && col_ra > 1) {
			char *s = line, *w;
			struct orow r;

			k = 0;
			while ((w = strtok(s, " ")) && k < 64) {
				s = NULL;
				if (w[0] == '(' && k)	/* "r9 (r9)": one */
					continue;
				tok[k++] = w;
			}
			if (k != ntok)
				continue;
			r.loc = loc;
			expect(oa, tok[1], col_rbp > 0 ? tok[col_rbp] : NULL,
			       tok[col_ra], in_cie ? false : sig, &r);
			if (in_cie && cur_cie) {
				cur_cie->row = r;
				cur_cie->has_row = true;
			} else if (cur) {
				cur->rows = realloc(cur->rows, (cur->n + 1) *
						    sizeof(*cur->rows));
				cur->rows[cur->n++] = r;
			}
		}
	}
	pclose(p);
	return o->n > 0;
}

/* The file's executable PT_LOAD segments. */
struct xseg {
	uint64_t vaddr, filesz, offset;
};

static size_t xsegs_of(const char *path, struct xseg *xs, size_t max,
		       bool *is32)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf32_Ehdr eh32;
	Elf32_Phdr ph32;
	size_t n = 0;
	int fd = open(path, O_RDONLY), i;

	*is32 = false;
	if (fd < 0)
		return 0;
	if (pread(fd, &eh32, sizeof(eh32), 0) == sizeof(eh32) &&
	    eh32.e_ident[EI_CLASS] == ELFCLASS32) {
		*is32 = true;
		for (i = 0; i < eh32.e_phnum && n < max; i++)
			if (pread(fd, &ph32, sizeof(ph32), eh32.e_phoff + i *
				  sizeof(ph32)) == sizeof(ph32) &&
			    ph32.p_type == PT_LOAD && (ph32.p_flags & PF_X))
				xs[n++] = (struct xseg){ ph32.p_vaddr,
					ph32.p_filesz, ph32.p_offset };
	} else if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh))
		for (i = 0; i < eh.e_phnum && n < max; i++)
			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i *
				  sizeof(ph)) == sizeof(ph) &&
			    ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
				xs[n++] = (struct xseg){ ph.p_vaddr, ph.p_filesz,
							 ph.p_offset };
	close(fd);
	return n;
}

static bool to_off(const struct xseg *xs, size_t n, uint64_t va, uint64_t *off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (va >= xs[i].vaddr && va - xs[i].vaddr < xs[i].filesz) {
			*off = va - xs[i].vaddr + xs[i].offset;
			return true;
		}
	return false;
}

static bool row_ok(const struct stackid_unwind_row *r, const struct orow *o,
		   const struct oarch *oa)
{
	if (!r)
		return false;
	if (o->any_exp)
		return (r->rule == STACKID_UW_CFA_PLT && r->bp_off >= 0 &&
			r->bp_off <= 15 && r->cfa_off == oa->word) ||
		       r->rule == STACKID_UW_CFA_NONE ||
		       (r->rule & STACKID_UW_CFA_MASK) == STACKID_UW_CFA_BP_DEREF;
	if (o->bp_exp)
		return r->rule == STACKID_UW_CFA_NONE ||
		       (r->rule == (o->want.rule | STACKID_UW_BP_AT_BP) &&
			r->cfa_off == o->want.cfa_off && !r->bp_off);
	return r->rule == o->want.rule && r->cfa_off == o->want.cfa_off &&
	       r->bp_off == o->want.bp_off;
}

/*
 * The table of @path against the oracle; FDEs of .debug_frame only where
 * no .eh_frame FDE is. Returns the rows checked (0: could not).
 */
static size_t check_file(const char *name, const char *path,
			 struct cfi_table *t, size_t *nplt)
{
	struct oracle o;
	struct xseg xs[16];
	bool is32;
	size_t nx = xsegs_of(path, xs, 16, &is32), i, j, k, checked = 0,
	       bad = 0;
	const struct oarch *oa = is32 ? &oa32 : &oa64;
	int fd = open(path, O_RDONLY), ret;

	*nplt = 0;
	ret = fd < 0 ? -errno : cfi_compile_fd(fd, t);
	if (fd >= 0) {
		/* the file's reads (through the window) against memory's */
		struct stat st;
		struct cfi_table tb;
		unsigned char *all = NULL;
		size_t ndiff = 0;
		int retb = -1001;

		if (!fstat(fd, &st) && (all = malloc(st.st_size + 1)) &&
		    pread(fd, all, st.st_size, 0) == st.st_size) {
			retb = cfi_compile_buf(all, st.st_size, &tb);
			tap_ok(same_table(ret, t, retb, &tb), "%s: the same "
			       "table from the file as from memory (%lld "
			       "bytes, %u rows)", name, (long long)st.st_size,
			       tb.nr_rows);
			cfi_table_free(&tb);
			/*
			 * prefixes: windows refilled across the file and cut
			 * short at its end, where the section headers are
			 */
			for (k = 1; k <= 16; k++) {
				size_t cut = k < 16 ? (size_t)st.st_size * k / 16 :
					     (size_t)st.st_size - 1;

				ndiff += buf_and_fd(all, cut, &tb) == -1001;
				cfi_table_free(&tb);
			}
			tap_ok(!ndiff, "%s: 16 prefixes, the same from a file "
			       "as from memory (%zu differ)", name, ndiff);
		} else {
			tap_ok(0, "%s: read whole", name);
		}
		free(all);
		close(fd);
	}
	if (!tap_ok(!ret && well_formed(t) && t->elf32 == is32, "%s: compiled (%d: %s), %u rows, "
		    "%zu bytes, %u FDEs", name, ret, ret ? cfi_strerror(ret) : "ok",
		    t->nr_rows, (size_t)t->nr_rows * 8, t->fdes))
		return 0;
	if (!oracle_read(path, oa, &o)) {
		tap_ok(0, "%s: readelf's frames-interp read", name);
		return 0;
	}
	for (i = 0; i < o.n; i++) {
		struct ofde *f = &o.f[i];

		if (f->debug) {
			for (k = 0; k < o.n; k++)
				if (!o.f[k].debug && o.f[k].lo < f->hi &&
				    f->lo < o.f[k].hi)
					break;
			if (k < o.n)
				continue;
		}
		for (j = 0; j < f->n; j++) {
			uint64_t lo = f->rows[j].loc, hi = j + 1 < f->n ?
				f->rows[j + 1].loc : f->hi, probe[2], off;
			unsigned int p;

			if (lo >= hi || lo < f->lo || hi > f->hi)
				continue;
			probe[0] = lo;
			probe[1] = hi - 1;
			for (p = 0; p < 2; p++) {
				const struct stackid_unwind_row *r;

				if (!to_off(xs, nx, probe[p], &off))
					continue;
				r = cfi_lookup(t, off);
				checked++;
				if (r && r->rule == STACKID_UW_CFA_PLT)
					(*nplt)++;
				if (row_ok(r, &f->rows[j], oa))
					continue;
				if (bad++ < 5)
					printf("# %s: %#" PRIx64 " (offset %#"
					       PRIx64 ", FDE %#" PRIx64 "..%#"
					       PRIx64 "%s): want rule %#x cfa "
					       "%u bp %d%s, have %#x %u %d\n",
					       name, probe[p], off, f->lo, f->hi,
					       f->debug ? " debug" : "",
					       f->rows[j].want.rule,
					       f->rows[j].want.cfa_off,
					       f->rows[j].want.bp_off,
					       f->rows[j].any_exp ? " (exp)" : "",
					       r ? r->rule : 255,
					       r ? r->cfa_off : 0,
					       r ? r->bp_off : 0);
			}
		}
	}
	tap_ok(!bad && checked > 0, "%s: %zu oracle rows' first and last "
	       "bytes of %zu FDEs checked, %zu differ", name, checked, o.n,
	       bad);
	oracle_free(&o);
	return checked;
}

static const char prog[] =
"#include <alloca.h>\n"
"#include <string.h>\n"
"__attribute__((noinline)) int big(int n)\n"
"{ volatile char buf[200000]; buf[n] = n; return buf[n / 2]; }\n"
"__attribute__((noinline)) int mid(int n)\n"
"{ volatile char buf[40000]; buf[n] = n; return buf[n / 2]; }\n"
"__attribute__((noinline)) int var(int n)\n"
"{ char *p = alloca(n); memset(p, n, n); return p[n / 2] + mid(n); }\n"
"__attribute__((noinline)) int vla(int n)\n"
"{ volatile char a[n]; a[0] = 1; return a[n - 1] + var(n); }\n"
"__attribute__((noinline)) int al(int n)\n"
"{ char v[64] __attribute__((aligned(32))); char *p = alloca(n);\n"
"  memset(v, n, sizeof(v)); __asm__ volatile(\"\" :: \"r\"(v), \"r\"(p) :\n"
"  \"memory\"); return v[n & 63]; }\n"
"int main(int argc, char **argv)\n"
"{ (void)argv; return big(argc) + vla(argc + 100) + al(argc); }\n";

/* Files of the guest build (read, never run: 32-bit ones too). */
static void test_guest32(void)
{
	static const char *const files[] = {
		"chain32", "libchain32.so", "nofp_chain32", "libnofp_chain32.so",
	};
	struct cfi_table t;
	char path[512];
	size_t nplt, i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/guest/%s", BUILD, files[i]);
		if (access(path, R_OK)) {
			printf("ok %d - # SKIP no %s (make guest)\n", ++tap_n,
			       path);
			continue;
		}
		check_file(files[i], path, &t, &nplt);
		if (!strcmp(files[i], "libnofp_chain32.so"))
			tap_ok(t.elf32 && nplt > 0, "%s: PLT rows (%zu)",
			       files[i], nplt);
		cfi_table_free(&t);
	}
}

static void test_real(void)
{
	static const struct {
		const char *name, *flags;
	} progs[] = {
		{ "prog-pie", "-O2 -fomit-frame-pointer -fPIE -pie" },
		{ "prog-nopie", "-O2 -fomit-frame-pointer -fno-pie -no-pie" },
		{ "prog-fp", "-O2 -fno-omit-frame-pointer" },
		{ "prog-realign", "-O2 -fomit-frame-pointer -mstackrealign "
		  "-mavx2" },
		{ "prog-debugframe", "-O2 -g -fomit-frame-pointer "
		  "-fno-asynchronous-unwind-tables -fno-unwind-tables" },
	};
	static const char *const libc32[] = {
		"/usr/lib32/libc.so.6", "/lib/i386-linux-gnu/libc.so.6",
	};
	char dir[] = "/tmp/stackid-cfi.XXXXXX", path[512], cmd[1200];
	struct cfi_table t;
	size_t nplt, i;
	bool m32;
	int m;
	FILE *f;

	check_file("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", &t, &nplt);
	tap_ok(nplt > 0, "libc.so.6: PLT rows (%zu)", nplt);
	cfi_table_free(&t);
	for (i = 0; i < 2 && access(libc32[i], R_OK); i++)
		;
	if (i == 2) {
		printf("ok %d - # SKIP no 32-bit libc.so.6\n", ++tap_n);
	} else {
		check_file(libc32[i], libc32[i], &t, &nplt);
		tap_ok(nplt > 0 && t.elf32, "%s: PLT rows (%zu)", libc32[i],
		       nplt);
		cfi_table_free(&t);
	}
	test_guest32();
	if (access("/usr/bin/python3.11", R_OK)) {
		printf("ok %d - # SKIP no /usr/bin/python3.11\n", ++tap_n);
	} else {
		check_file("python3.11", "/usr/bin/python3.11", &t, &nplt);
		cfi_table_free(&t);
	}
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/prog.c", dir);
	f = fopen(path, "w");
	fputs(prog, f);
	fclose(f);
	/* can this compiler make 32-bit programs? (never run here) */
	snprintf(cmd, sizeof(cmd), "${CC:-cc} -m32 -o '%s/m32' '%s' "
		 ">/dev/null 2>&1", dir, path);
	m32 = !system(cmd);
	if (!m32)
		printf("ok %d - # SKIP ${CC:-cc} -m32 cannot link\n", ++tap_n);
	for (m = 64; m >= 32; m -= 32) {
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]) && (m == 64 || m32);
	     i++) {
		char out[600], name[64];
		bool debug = strstr(progs[i].flags, "asynchronous") != NULL;

		snprintf(name, sizeof(name), "%s%s", progs[i].name,
			 m == 32 ? "32" : "");
		snprintf(out, sizeof(out), "%s/%s", dir, name);
		snprintf(cmd, sizeof(cmd), "${CC:-cc} %s %s -o '%s' '%s'",
			 m == 32 ? "-m32" : "", progs[i].flags, out, path);
		if (!tap_ok(!system(cmd), "compiled %s: %s%s", name,
			    m == 32 ? "-m32 " : "", progs[i].flags))
			continue;
		if (!check_file(name, out, &t, &nplt))
			continue;
		if (!strcmp(progs[i].name, "prog-pie")) {
			bool mid = false, bp = false;
			uint32_t k;

			for (k = 0; k < t.nr_rows; k++) {
				mid |= (t.rows[k].rule & 15) == 1 &&
				       t.rows[k].cfa_off > 30000;
				bp |= (t.rows[k].rule & 15) == 2;
			}
			tap_ok(mid && bp && nplt > 0, "%s: a 40000-byte "
			       "frame by sp, alloca/VLA by bp, PLT rows", name);
		}
		if (!strcmp(progs[i].name, "prog-realign")) {
			bool deref = false;
			uint32_t k;

			for (k = 0; k < t.nr_rows; k++)
				deref |= t.rows[k].rule == (STACKID_UW_CFA_BP_DEREF |
							    STACKID_UW_BP_AT_BP);
			tap_ok(deref, "%s: a realigned frame "
			       "(bpderef+bpatbp)", name);
		}
		if (debug)
			tap_ok(t.debug_frame && t.fdes_debug > 0,
			       "%s: rows from .debug_frame (%u FDEs)",
			       name, t.fdes_debug);
		cfi_table_free(&t);
	}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_ok(0, "rm -rf %s", dir);
}

/* --seeds DIR: the fuzzer's seed corpus. */
static int seeds(const char *dir)
{
	static const unsigned char fp[] = {
		0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x0a, 0x4a, 0x0c, 7, 8,
		0x41, 0x0b, 0x07, 6, 0x08, 6, 0x2e, 8,
	};
	static const unsigned char plt[] = {
		0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a,
		0x33, 0x24, 0x22,
	};
	static const unsigned char sig[] = {
		0x0f, 4, 0x77, 0xa0, 0x01, 0x06, 0x10, 6, 2, 0x77, 120,
	};
	static const unsigned char misc[] = {
		0x02, 2, 0x0e, 16, 0x03, 2, 0, 0x12, 7, 0x7e, 0x04, 1, 0, 0, 0,
		0x13, 0x7d, 0x11, 6, 0x7e, 0x09, 3, 4, 0x14, 3, 1, 0x15, 3,
		0x7f, 0x16, 3, 1, 0x30, 0x2f, 3, 1, 0x05, 6, 2, 0x06, 6,
		0x01, 0x20, 0, 0, 0, 0, 0, 0, 0,
	};
	static const unsigned char fp32[] = {
		0x41, 0x0e, 8, 0x85, 2, 0x43, 0x0d, 5, 0x0a, 0x4a, 0x0c, 4, 4,
		0x41, 0x0b, 0x07, 5, 0x08, 5, 0x2e, 4,
	};
	static const unsigned char plt32[] = {
		0x0f, 11, 0x74, 4, 0x78, 0, 0x3f, 0x1a, 0x3b, 0x2a,
		0x32, 0x24, 0x22,
	};
	static const unsigned char drap32[] = {
		0x0f, 3, 0x75, 0x7c, 0x06, 0x41, 0x10, 5, 2, 0x75, 0,
	};
	struct cfibuf eh = { .n = 0 };
	char path[512];
	size_t c, s, n;
	FILE *f;
	int i;

	for (i = 0; i < 4; i++) {
		eh.n = 0;
		c = cg_cie(&eh, i == 1 ? "zPLR" : "zR");
		s = cg_cie(&eh, "zRS");
		if (i == 0) {
			cg_fde(&eh, c, 0x10, 0x40, fp, sizeof(fp), 0);
			cg_fde(&eh, c, 0x40, 0x50, plt, sizeof(plt), 0);
		} else if (i == 1) {
			cg_fde(&eh, c, 0x10, 0x40, misc, sizeof(misc), 1);
		} else if (i == 2) {
			cg_fde(&eh, s, 0x10, 0x20, sig, sizeof(sig), 0);
			cg_fde(&eh, c, 0x18, 0x30, fp, sizeof(fp), 0);
		} else {
			cg_fde(&eh, c, 0x30, 0x40, NULL, 0, 0);
			cg_fde(&eh, c, 0x10, 0x20, (const unsigned char[]){ 0x07, 16 },
			       2, 0);
		}
		n = cg_elf(&eh, elfbuf);
		snprintf(path, sizeof(path), "%s/seed%d", dir, i);
		f = fopen(path, "w");
		if (!f || fwrite(elfbuf, 1, n, f) != n || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	/* seed4: i386 (frame pointer, PLT, DRAP, absptr, an 'S' FDE) */
	eh.n = 0;
	c = cg_cie32(&eh, "zR", 0x1b);
	s = cg_cie32(&eh, "zRS", 0x1b);
	cg_fde(&eh, c, 0x10, 0x40, fp32, sizeof(fp32), 0);
	cg_fde(&eh, c, 0x40, 0x50, plt32, sizeof(plt32), 0);
	cg_fde(&eh, c, 0x50, 0x60, drap32, sizeof(drap32), 0);
	cg_fde(&eh, s, 0x60, 0x68, NULL, 0, 0);
	c = cg_cie32(&eh, "zR", 0x00);
	cg_fde_abs(&eh, c, 0x70, 0x80, fp32, sizeof(fp32));
	n = cg_elf32(&eh, elfbuf);
	snprintf(path, sizeof(path), "%s/seed4", dir);
	f = fopen(path, "w");
	if (!f || fwrite(elfbuf, 1, n, f) != n || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--seeds"))
		return seeds(argv[2]);
	test_rules();
	test_rules32();
	test_hostile();
	test_real();
	return tap_done();
}
