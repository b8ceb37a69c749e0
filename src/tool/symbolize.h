/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolization by build-id, with elfutils: never /proc/PID/maps.
 *
 * For each build-id (looked up once, on first use, then cached), the
 * files tried, each used only if its own GNU build-id note matches:
 *   1. the ELF file: each path the capture's STACKID_REC_BUILD_ID_PATH
 *      records gave for the build-id, in capture order (for a path the
 *      kernel marked " (deleted)", the path without it first); if none
 *      matches,
 *      debuginfod's executable (when DEBUGINFOD_URLS is set). Its PT_LOAD
 *      program headers map file offsets to addresses; its .symtab, else
 *      .dynsym, names them;
 *   2. when that file has no .symtab, or there is no such file: the
 *      separate debug file DEBUGDIR/.build-id/xx/rest.debug (DEBUGDIR:
 *      /usr/lib/debug), then debuginfod's debuginfo. Without an ELF file,
 *      a debug file's program headers map offsets (where strip emptied
 *      them, assuming the GNU ld layout: offset = address - base).
 */
#ifndef STACKID_TOOL_SYMBOLIZE_H
#define STACKID_TOOL_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

struct symbolizer;

struct symbolizer_opts {
	const char *debug_dir;	/* NULL: /usr/lib/debug */
	bool debuginfod;	/* ask debuginfod if DEBUGINFOD_URLS is set */
};

struct sym {
	const char *func;	/* NULL: no symbol covers the address */
	uint64_t func_off;	/* the address's offset from func */
	const char *file;	/* basename of the capture's path, or NULL */
};

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o);
void symbolizer_free(struct symbolizer *s);

/* A STACKID_REC_BUILD_ID_PATH record: @path held build-id @id. */
void symbolizer_add_path(struct symbolizer *s, const unsigned char *id,
			 unsigned int len, const char *path);

/*
 * Symbolize file offset @off of the file with build-id @id. @ret: @off
 * is a return address (any frame but the innermost), so the symbol of
 * the byte before it is looked up, while func_off stays @off's. The
 * strings in @out live as long as @s.
 */
void symbolize(struct symbolizer *s, const unsigned char *id,
	       unsigned int len, uint64_t off, bool ret, struct sym *out);

#endif /* STACKID_TOOL_SYMBOLIZE_H */
