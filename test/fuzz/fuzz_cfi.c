// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the unwind table compiler (src/tool/cfi.c): the
 * input is an ELF file, compiled from memory and, through a pipe-less
 * memfd, from a file descriptor (pread(), as `stackid record` reads).
 *
 *	make fuzz FUZZ_TIME=60
 *
 * Seeds: tiny x86-64 and i386 ELF files with hand-made .eh_frame entries
 * (test/fuzz/corpus/cfi, written by `build/test_cfi --seeds DIR`).
 *
 * Beyond the sanitizers, it checks that both ways give the same table,
 * and that a table is what the module takes: at least two rows, starts
 * strictly ascending, no two neighbours the same, rules defined in
 * include/stackid.h, the last row CFA_NONE, at most STACKID_UW_MAX_ROWS;
 * and that cfi_lookup() finds each row by its start.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "tool/cfi.h"

static void check(const struct cfi_table *t)
{
	uint32_t i;

	if (t->nr_rows < 2 || t->nr_rows > STACKID_UW_MAX_ROWS ||
	    t->rows[t->nr_rows - 1].rule != STACKID_UW_CFA_NONE)
		abort();
	for (i = 0; i < t->nr_rows; i++) {
		const struct stackid_unwind_row *r = &t->rows[i];
		unsigned int cfa = r->rule & STACKID_UW_CFA_MASK;

		if (cfa > STACKID_UW_CFA_BP_DEREF ||
		    (r->rule & STACKID_UW_BP_MASK) > STACKID_UW_BP_AT_BP)
			abort();
		if (cfa != STACKID_UW_CFA_SP && cfa != STACKID_UW_CFA_BP &&
		    cfa != STACKID_UW_CFA_BP_DEREF &&
		    (r->rule & STACKID_UW_BP_MASK))
			abort();
		if (i && (r[-1].start >= r->start ||
			  (r[-1].rule == r->rule && r[-1].cfa_off == r->cfa_off &&
			   r[-1].bp_off == r->bp_off)))
			abort();
		if (cfi_lookup(t, r->start) != r)
			abort();
	}
	if (cfi_lookup(t, (uint64_t)t->rows[0].start - 1) &&
	    t->rows[0].start)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct cfi_table a, b;
	int ra, rb;

	ra = cfi_compile_buf(data, size, &a);
	if (!ra)
		check(&a);
	if (fd < 0)
		fd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	rb = cfi_compile_fd(fd, &b);
	if (ra != rb || a.nr_rows != b.nr_rows ||
	    a.build_id_len != b.build_id_len ||
	    memcmp(a.build_id, b.build_id, sizeof(a.build_id)) ||
	    (a.nr_rows && memcmp(a.rows, b.rows, a.nr_rows * sizeof(*a.rows))))
		abort();
	cfi_table_free(&a);
	cfi_table_free(&b);
	return 0;
}
