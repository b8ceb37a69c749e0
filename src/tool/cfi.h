/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwind table compiler: one ELF file's DWARF call frame information
 * (.eh_frame, and .debug_frame for code .eh_frame does not cover) as the
 * rows of a STACKID_IOC_ADD_UNWIND table (include/stackid.h, "Unwind
 * tables"), in file offset space.
 *
 * x86-64 ELF64 and i386 ELF32 (EM_386) files: an i386 file's table is
 * what the module walks 32-bit tasks by, with 4-byte words (DWARF
 * registers esp 4, ebp 5, eip 8; its signal trampolines, the vDSO's,
 * get CFA_NONE). Every input is taken as hostile: reads are bounded by
 * the file and its sections, the work by the limits below; a malformed
 * entry loses its FDE (or the rest of the section), never more, and
 * an FDE's instructions that cannot be followed (an unknown opcode, a
 * limit) leave the rest of its range without a row (CFA_NONE).
 */
#ifndef STACKID_TOOL_CFI_H
#define STACKID_TOOL_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stackid.h>

/* Limits: a file beyond them gives -EFBIG, or fewer rows (truncated). */
#define CFI_FILE_MAX		(4ULL << 30)	/* offsets fit 32 bits */
#define CFI_SECTION_MAX		(64U << 20)	/* .eh_frame, .debug_frame */
#define CFI_FDE_MAX		(1U << 20)	/* FDEs read, both sections */
#define CFI_OPS_FDE_MAX		(1U << 18)	/* CFA instructions per FDE */
#define CFI_OPS_MAX		(1U << 26)	/* ... in all */
#define CFI_STATE_DEPTH		16		/* remember_state */

struct cfi_table {
	struct stackid_unwind_row *rows;	/* nr_rows, ascending */
	uint32_t nr_rows;
	uint8_t build_id[STACKID_BUILD_ID_SIZE];
	uint8_t build_id_len;			/* 0: the file has none */
	bool elf32;				/* an i386 file: 4-byte words */
	/* what was read */
	bool eh_frame, debug_frame;		/* sections found */
	bool truncated;				/* a limit cut the table */
	uint32_t fdes;				/* FDEs with rows */
	uint32_t fdes_debug;			/* ... of them .debug_frame's */
	uint32_t fdes_bad;			/* malformed, unsupported CIE or
						 * pointer encoding: skipped */
	uint32_t fdes_partial;			/* instructions not followed
						 * to the end */
	uint32_t fdes_overlap;			/* cut by an FDE before them */
	uint32_t fdes_unmapped;			/* in no executable segment */
};

/*
 * Compile the ELF file open at @fd (read with pread(), never mapped), or
 * the @len bytes at @buf. Returns 0 with @t filled (at least two rows:
 * a range and the CFA_NONE row that ends it), or a negative errno:
 *   -ENOEXEC  not an ELF file, or its headers are malformed
 *   -ENOTSUP  big-endian, or neither ELF64 x86-64 nor ELF32 i386
 *   -ENODATA  no .eh_frame or .debug_frame, or nothing in them maps to
 *             executable code
 *   -EFBIG    the file is larger than CFI_FILE_MAX
 *   -ENOMEM, or the error of pread()
 * On error @t holds no rows, but build_id is filled if it was read.
 */
int cfi_compile_fd(int fd, struct cfi_table *t);
int cfi_compile_buf(const void *buf, size_t len, struct cfi_table *t);
/*
 * The same, but only if the file's GNU build-id is the @id_len bytes at
 * @id: else -ESTALE, before any call frame information is read (a file
 * without build-id or of another class or machine: its error).
 */
int cfi_compile_fd_id(int fd, const uint8_t *id, size_t id_len,
		      struct cfi_table *t);
void cfi_table_free(struct cfi_table *t);

/* The row that covers file offset @off, or NULL (before the first row). */
const struct stackid_unwind_row *cfi_lookup(const struct cfi_table *t,
					    uint64_t off);

/*
 * A row's rule in a word: its CFA rule ("none", "sp", "bp", "plt",
 * "signal", "end", "bpderef", "?" for another value), followed by "+bp"
 * when the caller's bp is saved at cfa + word * bp_off (STACKID_UW_BP_SAVED;
 * words of 8 bytes, 4 in an i386 file's table)
 * and "+bpatbp" when it is the word at bp (STACKID_UW_BP_AT_BP).
 */
void cfi_rule_name(uint8_t rule, char buf[16]);

/* What a negative return of cfi_compile_*() means, in a few words. */
const char *cfi_strerror(int err);

#endif /* STACKID_TOOL_CFI_H */
