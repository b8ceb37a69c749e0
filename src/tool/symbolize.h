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
 *   2. when that file has no .symtab (or --lines wants DWARF): libdwfl's
 *      standard search (dwfl_standard_find_debuginfo: the .gnu_debuglink
 *      file next to it, in .debug/ and under DEBUGDIR, and
 *      DEBUGDIR/.build-id/xx/rest.debug; DEBUGDIR: /usr/lib/debug), then
 *      debuginfod's debuginfo;
 *   3. when there is no ELF file: the debug file found by build-id in
 *      DEBUGDIR/.build-id, then debuginfod's, stands for it: its program
 *      headers map offsets (where strip emptied them, assuming the GNU
 *      ld layout: offset = address - base).
 *
 * Every file is opened with open_regular(): the capture's paths only if
 * absolute and without "..", and a file only if it is a regular file,
 * checked before it is opened. The .gnu_debuglink search (a name without
 * '/') is stackid's own, not libdwfl's standard one, for the same reason.
 * The names it returns (functions, source files, the file's basename)
 * are clean (name_sanitize()).
 *
 * debuginfod is asked by stackid's own client, never libdwfl's, so that
 * a server that cannot be reached (anything but "not found") is reported
 * once on @err, and not asked again in this run.
 *
 * C++ names are demangled with __cxa_demangle() from libstdc++ (which
 * every Debian system has: apt needs it), the mangled name kept as the
 * system name. With lines, DWARF (libdw) gives the source file and line
 * of each address and the chain of functions inlined there.
 */
#ifndef STACKID_TOOL_SYMBOLIZE_H
#define STACKID_TOOL_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct symbolizer;

struct symbolizer_opts {
	const char *debug_dir;	/* NULL: /usr/lib/debug */
	bool debuginfod;	/* ask debuginfod if DEBUGINFOD_URLS is set */
	bool lines;		/* source lines and inlined functions (DWARF) */
	bool no_demangle;	/* keep C++ names mangled */
	bool no_index;		/* ask libdwfl for every address (tests) */
	FILE *err;		/* where a debuginfod failure is told, once */
};

/* A function inlined at the address (with --lines). */
struct sym_inline {
	const char *func, *sysname;	/* as in struct sym */
	const char *src;		/* source file, or NULL */
	unsigned int line;		/* 0: not known */
};

struct sym {
	const char *func;	/* NULL: no symbol covers the address */
	uint64_t func_off;	/* the address's offset from func */
	const char *file;	/* basename of the capture's path, or NULL */
	const char *sysname;	/* the mangled name func was demangled
				 * from, or NULL */
	const char *src;	/* with lines: source file of the address */
	unsigned int line;	/* ... and its line; 0: not known */
	unsigned int ninline;	/* functions inlined there, innermost */
	const struct sym_inline *inl;	/* first; func is their caller */
};

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o);
void symbolizer_free(struct symbolizer *s);

/*
 * What @s holds and did, for one kept across captures (`stackid push`):
 * loads, how many times a build-id was looked up in files (once each,
 * again only after a path is added for one not found); bids, the
 * build-ids it knows; hits, the addresses it looked up and keeps; spans,
 * the entries of its symbol indexes (32 bytes each).
 */
/*
 * Each build-id found keeps its file, and its debug file if it has one,
 * open for as long as the symbolizer lives (libdwfl reads them lazily):
 * a report of 600 libraries with debug files needs more than the usual
 * soft limit of 1024 open files. symbolizer_new() raises it to this where
 * the hard limit allows; past it, the build-ids not yet read are left as
 * file offsets, and that is said.
 */
#define SYMBOLIZER_NOFILE	65536

struct symbolizer_stats {
	uint64_t loads, bids, hits, spans;
};

void symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *st);

/*
 * Open @path read-only if it is a regular file that could hold an ELF
 * file (at least 52 bytes, not on procfs, sysfs, debugfs and the like),
 * checked before it is opened: nothing else is ever opened, not even for
 * a moment (no device, FIFO, socket, terminal or /proc/PID/mem). With
 * @untrusted (a path from a capture), only an absolute path without a
 * ".." component is. Symbolic links are followed. Returns the fd
 * (O_CLOEXEC), or -1.
 */
int open_regular(const char *path, bool untrusted);

/*
 * open_regular() of @path (from a capture: untrusted) as seen from the
 * directory @root taken as the root directory (openat2's
 * RESOLVE_IN_ROOT: ".." and absolute symbolic links stay below it, no
 * /proc magic link is followed): another process's file through its
 * /proc/PID/root. -1 where the kernel has no openat2 (before 5.6).
 */
int open_regular_in(int root, const char *path);

/*
 * A STACKID_REC_BUILD_ID_PATH record: @path held build-id @id. Each
 * distinct path is kept once (a hash set), tried in capture order.
 */
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
