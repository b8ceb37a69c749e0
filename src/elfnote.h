/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF build-id note parser.
 *
 * Pure code: compiled into the module and into the user-space unit tests
 * and fuzzer, so it includes nothing but pure.h. It must be safe against
 * hostile and concurrently rewritten files, and it does bounded work, as it
 * runs in NMI context.
 */
#ifndef STACKID_ELFNOTE_H
#define STACKID_ELFNOTE_H

#include "pure.h"

/* The longest build-id we report: a SHA-1 (GNU ld --build-id=sha1). */
#define STACKID_BUILD_ID_MAX 20

/**
 * struct stackid_elf_src - where the parser gets the file's bytes from
 * @read: copy @len bytes at file offset @off into @buf. Return 0, or a
 *	negative errno: -EAGAIN when those bytes cannot be had in this
 *	context (page not cached, beyond the first page in interrupt
 *	context...), -ERANGE when they lie beyond the end of the file.
 *	The parser reads each byte it uses at most once and never re-reads
 *	a field it has validated, so @read may return data that changes
 *	between calls. @len is never 0 and never more than 64.
 * @ctx: passed to @read unchanged.
 */
struct stackid_elf_src {
	int (*read)(void *ctx, u64 off, void *buf, u32 len);
	void *ctx;
};

/**
 * stackid_elf_build_id() - find the GNU build-id of an ELF file
 * @src: how to read the file
 * @id: filled with the build-id on success, untouched otherwise
 * @len: set to the build-id's length (1..STACKID_BUILD_ID_MAX) on success,
 *	to 0 otherwise
 *
 * Walks the program headers (at most the first 256) of a little-endian
 * ELF32 or ELF64 file and, in each PT_NOTE segment (at most its first
 * 64 KiB, and at most 256 notes in the whole file), looks for a note named
 * "GNU" of type NT_GNU_BUILD_ID with a 1..20 byte descriptor. Notes with
 * another name, type or descriptor size are skipped; the first match wins.
 * A malformed note ends the walk of its segment, not of the file.
 *
 * The walk stops at the first read that fails, so a success in a context
 * that can read little of the file gives the same id as one that can read
 * all of it.
 *
 * Return: 0 on success. -ENOEXEC when the data is not a little-endian
 * ELF32/ELF64 file header we understand, or is malformed (wrong
 * e_phentsize, program header table overflowing or beyond the end of the
 * file). -ENOENT when it is ELF but carries no such note. -EAGAIN when
 * @src->read returned -EAGAIN for a region that was needed: the caller may
 * retry in a context that can read more of the file. -ERANGE from @read is
 * taken as "not ELF" for the file header, as "malformed" for the program
 * headers, and ends the walk of a note segment; any other error from @read
 * is returned as is. -EINVAL for NULL arguments.
 */
int stackid_elf_build_id(const struct stackid_elf_src *src,
			 u8 id[STACKID_BUILD_ID_MAX], u32 *len);

/**
 * stackid_elf_build_id_buf() - stackid_elf_build_id() on an in-memory prefix
 * @buf: the first @size bytes of the file (e.g. its first page)
 * @size: how many bytes @buf holds
 * @id: filled with the build-id on success, untouched otherwise
 * @len: set to the build-id's length on success, to 0 otherwise
 *
 * Reads that do not lie entirely within [0, @size) fail with -EAGAIN: @buf
 * is taken as a prefix of a possibly longer file, so a caller that passes
 * one page gets -EAGAIN when a needed header or note lies beyond it.
 *
 * Return: as stackid_elf_build_id().
 */
int stackid_elf_build_id_buf(const void *buf, u32 size,
			     u8 id[STACKID_BUILD_ID_MAX], u32 *len);

#endif /* STACKID_ELFNOTE_H */
