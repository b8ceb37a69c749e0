// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of symbolization by build-id (src/tool/symbolize.c,
 * through `stackid report`'s code): captures whose path records point at
 * fixtures built by the Makefile (BUILD/report-fix, from
 * test/unit/report/symfix.c) with frames at known file offsets, computed
 * here with libelf from the fixtures' own symbol tables and program
 * headers. The folded output must be exactly as expected.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/inotify.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "tool/tool.h"
#include "tool/report.h"
#include "tool/symbolize.h"

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);
#include "report/capgen.h"
#include "tap.h"

#ifndef BUILD
#define BUILD "build"
#endif
#define FIX BUILD "/report-fix/"

struct fn {
	uint64_t off, size;	/* file offset of its first byte */
};

struct fixture {
	const char *path;
	unsigned char id[20];
	unsigned int idlen;
	struct fn leaf, mid, outer;
	bool ok;
};

static bool find_fn(Elf *elf, const char *name, struct fn *fn)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n, i;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(d, i, &sym))
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!s || strcmp(s, name))
				continue;
			if (elf_getphdrnum(elf, &n))
				return false;
			for (i = 0; i < n; i++) {
				GElf_Phdr ph;

				if (!gelf_getphdr(elf, i, &ph) ||
				    ph.p_type != PT_LOAD ||
				    sym.st_value < ph.p_vaddr ||
				    sym.st_value >= ph.p_vaddr + ph.p_filesz)
					continue;
				fn->off = sym.st_value - ph.p_vaddr +
					  ph.p_offset;
				fn->size = sym.st_size;
				return true;
			}
			return false;
		}
	}
	return false;
}

/* Build-id and function offsets of @symfile (unstripped). */
static void load_fixture(struct fixture *fx, const char *path,
			 const char *symfile)
{
	const void *id;
	ssize_t len;
	Elf *elf;
	int fd;

	memset(fx, 0, sizeof(*fx));
	fx->path = path;
	fd = open(symfile, O_RDONLY);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len > 0 && len <= 20) {
		memcpy(fx->id, id, len);
		fx->idlen = len;
		fx->ok = find_fn(elf, "symfix_leaf", &fx->leaf) &&
			 find_fn(elf, "symfix_mid", &fx->mid) &&
			 find_fn(elf, "symfix_outer", &fx->outer) &&
			 fx->leaf.size > 4 && fx->mid.size > 5;
	}
	elf_end(elf);
	close(fd);
}

/*
 * The known chain, innermost first: inside symfix_leaf; a return address
 * inside symfix_mid; a return address just past the end of symfix_outer
 * (its byte before is outer's last).
 */
static void chain(const struct fixture *fx, struct cg_frame *f)
{
	f[0] = cg_valid(fx->id, fx->idlen, fx->leaf.off + 4);
	f[1] = cg_valid(fx->id, fx->idlen, fx->mid.off + 5);
	f[2] = cg_valid(fx->id, fx->idlen, fx->outer.off + fx->outer.size);
}

/* Options of the next run()s. */
static bool opt_lines, opt_no_demangle;
static struct symbolizer *opt_sym;	/* run(): kept across reports */

/* run(), and stderr in *@err (if @err) instead of TAP comments */
static int run_err(const struct capgen *g, enum report_format fmt,
		   bool offsets, const char *debug_dir, char **out, char **err)
{
	struct report_opts o = {
		.format = fmt,
		.symbols = true,
		.offsets = offsets,
		.debug_dir = debug_dir,
		.lines = opt_lines,
		.no_demangle = opt_no_demangle,
		.sym = opt_sym,
	};
	struct capture *c = malloc(sizeof(*c));
	char *ebuf = NULL;
	size_t olen, elen;
	FILE *fo = open_memstream(out, &olen);
	FILE *fe = open_memstream(&ebuf, &elen);
	int r;

	r = capture_open_mem(c, g->buf, g->len, "sym.cap");
	if (!r)
		r = report_run(c, &o, fo, fe);
	capture_close(c);
	free(c);
	fclose(fo);
	fclose(fe);
	if (err) {
		*err = ebuf;
		return r;
	}
	if (*ebuf)
		printf("# stderr: %s", ebuf);
	free(ebuf);
	return r;
}

static int run(const struct capgen *g, enum report_format fmt, bool offsets,
	       const char *debug_dir, char **out)
{
	return run_err(g, fmt, offsets, debug_dir, out, NULL);
}

static char *debug_dir_for(const struct fixture *fx, const char *debugfile,
			   char *tmpl)
{
	char path[4096], abs[4096];
	int n;

	if (!mkdtemp(tmpl))
		return NULL;
	n = snprintf(path, sizeof(path), "%s/.build-id", tmpl);
	mkdir(path, 0755);
	n += snprintf(path + n, sizeof(path) - n, "/%02x", fx->id[0]);
	mkdir(path, 0755);
	n += snprintf(path + n, sizeof(path) - n, "/");
	for (unsigned int i = 1; i < fx->idlen; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", fx->id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	if (!realpath(debugfile, abs) || symlink(abs, path))
		return NULL;
	return tmpl;
}

static void rm_debug_dir(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

#define NAMES "symfix_outer;symfix_mid;symfix_leaf"

/* On a mismatch, show both outputs as TAP comments. */
static void diff(int r, const char *out, const char *want)
{
	const char *w[2] = { out, want }, *p, *nl;
	int i;

	if (r == 0 && !strcmp(out, want))
		return;
	printf("# status %d\n", r);
	for (i = 0; i < 2; i++)
		for (p = w[i]; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			printf("# %s: %.*s\n", i ? "want" : "got", (int)(nl - p),
			       p);
		}
}

static void test_fixture(const char *what, const struct fixture *fx,
			 const char *debug_dir)
{
	struct cg_frame f[3];
	struct capgen g = { 0 };
	char *out = NULL, want[512], l1[200], l2[200];
	int r;

	if (!tap_ok(fx->ok, "%s: fixture %s has its build-id and symbols",
		    what, fx->path))
		return;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, fx->id, fx->idlen, fx->path);
	chain(fx, f);
	cg_sample(&g, 1, 0, 1, 1, "symtest", STACKID_SF_USER, 3, f);
	/* another offset in each function: aggregates without --offsets */
	f[0].addr += 1;
	f[1].addr += 1;
	f[2].addr -= 1;
	cg_sample(&g, 2, 0, 1, 1, "symtest", STACKID_SF_USER, 3, f);

	r = run(&g, FORMAT_FOLDED, false, debug_dir, &out);
	snprintf(want, sizeof(want), "symtest;" NAMES " 2\n");
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want), "%s: folded: " NAMES, what);
	free(out);

	r = run(&g, FORMAT_FOLDED, true, debug_dir, &out);
	/* equal counts: in byte order */
	snprintf(l1, sizeof(l1), "symtest;symfix_outer+%#" PRIx64
		 ";symfix_mid+0x5;symfix_leaf+0x4 1\n", fx->outer.size);
	snprintf(l2, sizeof(l2), "symtest;symfix_outer+%#" PRIx64
		 ";symfix_mid+0x6;symfix_leaf+0x5 1\n", fx->outer.size - 1);
	snprintf(want, sizeof(want), "%s%s", strcmp(l1, l2) < 0 ? l1 : l2,
		 strcmp(l1, l2) < 0 ? l2 : l1);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want),
	       "%s: --offsets: real offsets of return addresses", what);
	free(out);
	cg_free(&g);
}

static void test_mixed(const struct fixture *so, const struct fixture *exe)
{
	static const unsigned char other[20] = { 0xee, 0xee, 0xee };
	struct cg_frame f[4];
	struct capgen g = { 0 };
	char *out = NULL, want[1024];
	int r;

	if (!so->ok || !exe->ok)
		return;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	/* the sample before the path records that name its files */
	f[0] = cg_valid(so->id, so->idlen, so->leaf.off + 1);
	f[1] = cg_ip(0x7fff1234, STACKID_IP_NOT_RESOLVED);
	f[2] = cg_valid(other, 20, so->mid.off + 2);
	f[3] = cg_valid(exe->id, exe->idlen, exe->outer.off + 3);
	cg_sample(&g, 1000, 1, 5, 6, "mixed", STACKID_SF_USER, 4, f);
	/* the same offset as innermost and as return address */
	f[0] = cg_valid(so->id, so->idlen, so->mid.off);
	f[1] = cg_valid(so->id, so->idlen, so->mid.off);
	cg_sample(&g, 2000, 1, 5, 6, "edge", STACKID_SF_USER, 2, f);
	cg_path(&g, so->id, so->idlen, "/nonexistent/libsymfix.so");
	cg_path(&g, so->id, so->idlen, so->path);
	/* a file whose build-id is not the one the capture says */
	cg_path(&g, other, 20, so->path);
	cg_path(&g, exe->id, exe->idlen, exe->path);

	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	snprintf(want, sizeof(want),
		 "edge;symfix_leaf;symfix_mid 1\n"
		 "mixed;symfix_outer;[libsymfix.so]+%#" PRIx64
		 ";0x7fff1234;symfix_leaf 1\n", so->mid.off + 2);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want),
	       "paths after the sample, a stale path first, a file with "
	       "another build-id not used, ip frames, a return address at "
	       "a function's start names the function before it");
	free(out);

	r = run(&g, FORMAT_TEXT, true, NULL, &out);
	snprintf(want, sizeof(want),
		 "0.000001 cpu 1 mixed 5/6 user\n"
		 "\tsymfix_leaf+0x1\n"
		 "\t0x7fff1234 (not_resolved)\n"
		 "\t[libsymfix.so]+%#" PRIx64 "\n"
		 "\tsymfix_outer+0x3\n"
		 "\n"
		 "0.000002 cpu 1 edge 5/6 user\n"
		 "\tsymfix_mid+0x0\n"
		 "\tsymfix_leaf+%#" PRIx64 "\n"
		 "\n", so->mid.off + 2, so->mid.off - so->leaf.off);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want), "text, --offsets, as expected");
	free(out);
	cg_free(&g);
}

/* A path the kernel marked deleted: tried, and shown, without the mark. */
static void test_deleted(const struct fixture *so)
{
	static const unsigned char gone[20] = { 0x60, 0x0e };
	struct cg_frame f[3];
	struct capgen g = { 0 };
	char *out = NULL, want[512], path[600];
	int r;

	if (!so->ok)
		return;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	snprintf(path, sizeof(path), "%s (deleted)", so->path);
	cg_path(&g, so->id, so->idlen, path);
	cg_path(&g, gone, 20, "/nonexistent/libgone.so (deleted)");
	chain(so, f);
	cg_sample(&g, 1, 0, 1, 1, "del", STACKID_SF_USER, 3, f);
	f[0] = cg_valid(gone, 20, 0x1234);
	cg_sample(&g, 1, 0, 1, 1, "gone", STACKID_SF_USER, 1, f);
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	snprintf(want, sizeof(want), "del;" NAMES " 1\n"
		 "gone;[libgone.so]+0x1234 1\n");
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want),
	       "paths marked \" (deleted)\": tried and shown without it");
	free(out);
	cg_free(&g);
}

static void test_hidden(const struct fixture *hid, const struct fixture *dbg)
{
	char tmpl[] = "/tmp/stackid-dbg.XXXXXX", *dir;
	char empty[] = "/tmp/stackid-empty.XXXXXX";
	struct cg_frame f[3];
	struct capgen g = { 0 };
	char *out = NULL, want[512];
	int r;

	if (!hid->ok)
		return;
	dir = debug_dir_for(hid, BUILD "/report-fix/libhidden.debug", tmpl);
	if (!tap_ok(dir && mkdtemp(empty), "debug directory %s", tmpl))
		return;
	test_fixture("stripped, names in DEBUGDIR/.build-id", hid, dir);

	/* no debug file: the basename the capture gave, and the offsets */
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, hid->id, hid->idlen, hid->path);
	chain(hid, f);
	cg_sample(&g, 1, 0, 1, 1, "hid", STACKID_SF_USER, 3, f);
	r = run(&g, FORMAT_FOLDED, false, empty, &out);
	snprintf(want, sizeof(want), "hid;[libhidden.stripped.so]+%#" PRIx64
		 ";[libhidden.stripped.so]+%#" PRIx64
		 ";[libhidden.stripped.so]+%#" PRIx64 " 1\n", (uint64_t)f[2].addr,
		 (uint64_t)f[1].addr, (uint64_t)f[0].addr);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want),
	       "stripped, no debug file: [libhidden.stripped.so]+0xOFFSET");
	free(out);
	cg_free(&g);

	/* the debug file alone: its emptied program headers still map */
	test_fixture("no ELF file, debug file only", dbg, dir);
	rm_debug_dir(dir);
	rmdir(empty);
}

/* libsymfix.so's vaddr @v as a file offset. */
static bool vaddr_off(const char *file, uint64_t v, uint64_t *off)
{
	int fd = open(file, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0, i;
	bool ok = false;

	if (elf && !elf_getphdrnum(elf, &n))
		for (i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
				*off = v - ph.p_vaddr + ph.p_offset;
				ok = true;
			}
		}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* The first inlined copy of @name under @die (DWARF, libdw). */
static bool find_inlined(Dwarf_Die *die, const char *name, uint64_t *lo)
{
	Dwarf_Die c;
	Dwarf_Addr base, start, end;
	const char *n;

	if (dwarf_child(die, &c))
		return false;
	do {
		n = dwarf_diename(&c);
		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine && n &&
		    !strcmp(n, name) &&
		    dwarf_ranges(&c, 0, &base, &start, &end) > 0) {
			*lo = start;
			return true;
		}
		if (find_inlined(&c, name, lo))
			return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

/* The line of test/unit/report/symfix.c holding @marker. */
static int marker_line(const char *marker)
{
	FILE *f = fopen(TOP "/test/unit/report/symfix.c", "r");
	char buf[512];
	int n = 0;

	while (f && fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, marker)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

/* --lines: the source line, and inl_leaf inlined in symfix_inl. */
static void test_lines(const struct fixture *so)
{
	int fd = open(so->path, O_RDONLY);
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint64_t lo = 0, foff = 0;
	bool found = false;
	struct cg_frame f[1];
	struct capgen g = { 0 };
	char *out = NULL, want[600];
	int leaf = marker_line("INL-LEAF"), call = marker_line("INL-CALL"), r;

	while (dw && !found &&
	       !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			found = find_inlined(&cu, "inl_leaf", &lo);
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	found = found && vaddr_off(so->path, lo, &foff);
	if (!tap_ok(found && leaf > 0 && call > 0, "DWARF: inl_leaf inlined at %#" PRIx64
		    " (file offset %#" PRIx64 "), lines %d and %d", lo, foff,
		    leaf, call))
		return;
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, so->id, so->idlen, so->path);
	f[0] = cg_valid(so->id, so->idlen, foff);
	cg_sample(&g, 1, 0, 1, 1, "inl", STACKID_SF_USER, 1, f);

	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	diff(r, out, "inl;symfix_inl 1\n");
	tap_ok(r == 0 && !strcmp(out, "inl;symfix_inl 1\n"),
	       "without --lines: the symbol only, symfix_inl");
	free(out);
	opt_lines = true;
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	diff(r, out, "inl;symfix_inl;inl_leaf 1\n");
	tap_ok(r == 0 && !strcmp(out, "inl;symfix_inl;inl_leaf 1\n"),
	       "--lines, folded: the inlined inl_leaf is a frame of its own");
	free(out);
	r = run(&g, FORMAT_TEXT, false, NULL, &out);
	snprintf(want, sizeof(want), "symfix.c:%d) [inlined]\n\tsymfix_inl "
		 "(", leaf);
	{
		char w2[64];

		snprintf(w2, sizeof(w2), "symfix.c:%d)\n", call);
		tap_ok(r == 0 && strstr(out, "\tinl_leaf (") &&
		       strstr(out, want) && strstr(out, w2),
		       "--lines, text: inl_leaf (symfix.c:%d) [inlined], "
		       "symfix_inl (symfix.c:%d)", leaf, call);
		if (!strstr(out, want))
			printf("# got: %s", out);
	}
	free(out);
	opt_lines = false;
	cg_free(&g);
}

static void test_cxx(void)
{
	struct fixture cx;
	struct fn method = { 0 }, twice = { 0 };
	struct cg_frame f[2];
	struct capgen g = { 0 };
	char *out = NULL;
	const char *want = "cxx;int cxxfix::twice<int>(int);"
			   "cxxfix::Klass::method(int) 1\n";
	const char *raw = "cxx;_ZN6cxxfix5twiceIiEET_S1_;"
			  "_ZN6cxxfix5Klass6methodEi 1\n";
	int fd, r;
	Elf *elf;

	memset(&cx, 0, sizeof(cx));
	load_fixture(&cx, FIX "libcxxfix.so", FIX "libcxxfix.so");
	fd = open(FIX "libcxxfix.so", O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!tap_ok(cx.idlen && elf &&
		    find_fn(elf, "_ZN6cxxfix5Klass6methodEi", &method) &&
		    find_fn(elf, "_ZN6cxxfix5twiceIiEET_S1_", &twice),
		    "C++ fixture: mangled names in its symbol table")) {
		elf_end(elf);
		return;
	}
	elf_end(elf);
	close(fd);
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, cx.id, cx.idlen, FIX "libcxxfix.so");
	f[0] = cg_valid(cx.id, cx.idlen, method.off + 2);
	f[1] = cg_valid(cx.id, cx.idlen, twice.off + twice.size / 2);
	cg_sample(&g, 1, 0, 1, 1, "cxx", STACKID_SF_USER, 2, f);
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want), "C++ names demangled: "
	       "int cxxfix::twice<int>(int), cxxfix::Klass::method(int)");
	free(out);
	opt_no_demangle = true;
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	diff(r, out, raw);
	tap_ok(r == 0 && !strcmp(out, raw), "--no-demangle: as mangled");
	free(out);
	opt_no_demangle = false;
	cg_free(&g);
}

/* Found only through .gnu_debuglink: libdwfl's standard search. */
static void test_debuglink(const struct fixture *lnk)
{
	char empty[] = "/tmp/stackid-nodbg.XXXXXX";

	if (!tap_ok(mkdtemp(empty) != NULL, "an empty debug directory"))
		return;
	test_fixture("stripped, names through its .gnu_debuglink file", lnk,
		     empty);
	rmdir(empty);
}

/* Was anything opened (IN_OPEN) under inotify watch @in since the last call? */
static int opened(int in)
{
	char buf[4096] __attribute__((aligned(8)));
	int n = 0;
	ssize_t r;

	while ((r = read(in, buf, sizeof(buf))) > 0) {
		ssize_t i = 0;

		while (i < r) {
			const struct inotify_event *e = (const void *)(buf + i);

			if (e->mask & IN_OPEN)
				n++;
			i += sizeof(*e) + e->len;
		}
	}
	return n;
}

/*
 * Issue 19, item 1: path records naming a device (/dev/zero, /dev/ptmx),
 * a FIFO, /proc/self/mem, a relative path and a path with "..", the last
 * two reaching the real file: none is opened (inotify sees no open; an
 * O_PATH look is no open) nor used. A symbolic link to the file is.
 */
static void test_hostile_paths(const struct fixture *so)
{
	char dir[] = "/tmp/stackid-hostile.XXXXXX", fifo[64], sub[64];
	char dots[96], link[64], cwd[4096], *out = NULL, want[512];
	struct cg_frame f[3];
	struct capgen g = { 0 };
	int in, r, n;

	if (!so->ok || !mkdtemp(dir) || !getcwd(cwd, sizeof(cwd)))
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(dots, sizeof(dots), "%s/sub/../lib.so", dir);
	snprintf(link, sizeof(link), "%s/lib.so", dir);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!tap_ok(in >= 0 && !mkfifo(fifo, 0600) && !mkdir(sub, 0700) &&
		    !symlink(so->path, link) && !chdir(dir) &&
		    inotify_add_watch(in, "/dev/zero", IN_OPEN) >= 0 &&
		    inotify_add_watch(in, "/dev/ptmx", IN_OPEN) >= 0 &&
		    inotify_add_watch(in, fifo, IN_OPEN) >= 0,
		    "hostile paths: FIFO, symbolic link, inotify watches"))
		goto out;
	opened(in);
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, so->id, so->idlen, "/dev/zero");
	cg_path(&g, so->id, so->idlen, "/dev/ptmx");
	cg_path(&g, so->id, so->idlen, fifo);
	cg_path(&g, so->id, so->idlen, "/proc/self/mem");
	cg_path(&g, so->id, so->idlen, "lib.so");	/* relative, in cwd */
	cg_path(&g, so->id, so->idlen, "./lib.so");
	cg_path(&g, so->id, so->idlen, dots);
	chain(so, f);
	cg_sample(&g, 1, 0, 1, 1, "hp", STACKID_SF_USER, 3, f);
	r = run(&g, FORMAT_FOLDED, false, dir, &out);
	n = opened(in);
	snprintf(want, sizeof(want), "hp;[zero]+%#" PRIx64 ";[zero]+%#" PRIx64
		 ";[zero]+%#" PRIx64 " 1\n", (uint64_t)f[2].addr,
		 (uint64_t)f[1].addr, (uint64_t)f[0].addr);
	diff(r, out, want);
	tap_ok(n == 0, "a device, /dev/ptmx, a FIFO in path records: not "
	       "opened (%d opens seen)", n);
	tap_ok(r == 0 && !strcmp(out, want), "/proc/self/mem, a relative "
	       "path, a path with \"..\": not used");
	free(out);
	cg_free(&g);

	/* the symbolic link, by its absolute path: used */
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, so->id, so->idlen, "/dev/zero");
	cg_path(&g, so->id, so->idlen, link);
	cg_sample(&g, 1, 0, 1, 1, "hp", STACKID_SF_USER, 3, f);
	r = run(&g, FORMAT_FOLDED, false, dir, &out);
	diff(r, out, "hp;" NAMES " 1\n");
	tap_ok(r == 0 && !strcmp(out, "hp;" NAMES " 1\n") && !opened(in),
	       "a symbolic link to the library: followed and used");
	free(out);
	cg_free(&g);
out:
	if (in >= 0)
		close(in);
	if (chdir(cwd))
		printf("# chdir back: %s\n", strerror(errno));
	unlink(link);
	unlink(fifo);
	rmdir(sub);
	rmdir(dir);
}

/*
 * A symbolizer kept across captures (`stackid push`): each build-id's
 * file is read once, whatever the number of reports; one not found is
 * looked up again when a later capture gives it another path, and only
 * then.
 */
static void test_kept(const struct fixture *so)
{
	struct symbolizer_opts sopts = { .err = stdout };
	struct symbolizer_stats st;
	uint64_t bids, hits, l1, l2, l3;
	struct cg_frame f[3];
	struct capgen g = { 0 }, g2 = { 0 };
	char *out = NULL, want[512];
	int r, good = 0, i;

	if (!so->ok)
		return;
	opt_sym = symbolizer_new(&sopts);
	/* first only a path where the file is not */
	cg_header(&g, STACKID_ABI_VERSION, 0);
	cg_path(&g, so->id, so->idlen, "/nonexistent/libsymfix.so");
	chain(so, f);
	cg_sample(&g, 1, 0, 1, 1, "kept", STACKID_SF_USER, 3, f);
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	symbolizer_stats(opt_sym, &st);
	l1 = st.loads;
	bids = st.bids;
	hits = st.hits;
	snprintf(want, sizeof(want), "kept;[libsymfix.so]+0x%" PRIx64
		 ";[libsymfix.so]+0x%" PRIx64 ";[libsymfix.so]+0x%" PRIx64
		 " 1\n", f[2].addr, f[1].addr, f[0].addr);
	diff(r, out, want);
	tap_ok(r == 0 && !strcmp(out, want) && l1 == 1,
	       "kept symbolizer: a build-id whose path holds no file is "
	       "not named (looked up %" PRIu64 " time)", l1);
	free(out);
	/* the same capture again: not looked up again */
	r = run(&g, FORMAT_FOLDED, false, NULL, &out);
	symbolizer_stats(opt_sym, &st);
	l2 = st.loads;
	bids = st.bids;
	hits = st.hits;
	tap_ok(r == 0 && !strcmp(out, want) && l2 == 1,
	       "kept symbolizer: the same capture again, no new path: not "
	       "looked up again (%" PRIu64 " in all)", l2);
	free(out);
	/* a later capture gives the real path: found, then kept */
	cg_header(&g2, STACKID_ABI_VERSION, 0);
	cg_path(&g2, so->id, so->idlen, so->path);
	cg_sample(&g2, 1, 0, 1, 1, "kept", STACKID_SF_USER, 3, f);
	snprintf(want, sizeof(want), "kept;" NAMES " 1\n");
	for (i = 0; i < 5; i++) {
		r = run(&g2, FORMAT_FOLDED, false, NULL, &out);
		diff(r, out, want);
		good += r == 0 && !strcmp(out, want);
		free(out);
	}
	symbolizer_stats(opt_sym, &st);
	l3 = st.loads;
	bids = st.bids;
	hits = st.hits;
	tap_ok(good == 5 && l3 == 2 && bids == 1 && hits == 3,
	       "kept symbolizer: a new path for it is tried, and five "
	       "reports of it read its file once (%d named, %" PRIu64
	       " look-ups, %" PRIu64 " build-id, %" PRIu64 " addresses)",
	       good, l3, bids, hits);
	symbolizer_free(opt_sym);
	opt_sym = NULL;
	cg_free(&g);
	cg_free(&g2);
}

#define NOFILE_LIBS	40

/*
 * In a child: the soft limit on open files set to @room above the files
 * open now (and the hard one too if @hard), then a report of @g, whose
 * NOFILE_LIBS build-ids each need a file of their own. Exit status: 0 if
 * every build-id was named and nothing said, 1 if some were named, the
 * others kept file offsets and that was said, 3 otherwise.
 */
static int nofile_child(const struct capgen *g, unsigned int room, bool hard)
{
	char *out = NULL, *err = NULL, *p, *nl, want[256];
	unsigned long named = 0, offsets = 0, n;
	struct rlimit rl;
	int fd, r;

	fd = dup(0);
	getrlimit(RLIMIT_NOFILE, &rl);
	if (fd < 0 || rl.rlim_max < (rlim_t)fd + room + 2 * NOFILE_LIBS)
		return 4;
	rl.rlim_cur = fd + room;
	if (hard)
		rl.rlim_max = rl.rlim_cur;
	close(fd);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 4;
	r = run_err(g, FORMAT_FOLDED, false, NULL, &out, &err);
	snprintf(want, sizeof(want), "nofile;%s ", NAMES);
	for (p = out; r == 0 && p && *p; p = nl + 1) {
		char *sp;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		sp = strrchr(p, ' ');
		n = sp ? strtoul(sp + 1, NULL, 10) : 0;
		if (!strncmp(p, want, strlen(want)))
			named += n;
		else if (strstr(p, "[lib") && strstr(p, ".so]+0x"))
			offsets += n;
	}
	printf("# limit %s%u above: %lu named, %lu as offsets, said: %s",
	       hard ? "(hard) " : "", room, named, offsets,
	       err && *err ? err : "nothing\n");
	if (r == 0 && named == NOFILE_LIBS && !*err)
		r = 0;
	else if (r == 0 && named > 0 && named + offsets == NOFILE_LIBS &&
		 strstr(err, "Too many open files") &&
		 strstr(err, "ulimit -n"))
		r = 1;
	else
		r = 3;
	free(out);
	free(err);
	fflush(stdout);
	return r;
}

static int nofile_run(const struct capgen *g, unsigned int room, bool hard)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(nofile_child(g, room, hard));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * A report needs a file open for each build-id it reads: it raises a
 * low soft limit on open files itself, and where the hard limit stops
 * it, says so instead of leaving frames unnamed silently. NOFILE_LIBS
 * copies of the fixture, each with a build-id of its own.
 */
static void test_nofile(const struct fixture *so)
{
	char dir[] = "/tmp/stackid-nofile.XXXXXX", path[4200];
	struct capgen g = { 0 };
	struct cg_frame f[3];
	struct fixture c;
	unsigned char *img = NULL, *id;
	size_t len = 0;
	FILE *fp;
	int i, a = -1, b = -1;

	fp = so->ok && mkdtemp(dir) ? fopen(so->path, "rb") : NULL;
	if (fp) {
		img = malloc(1 << 24);
		len = img ? fread(img, 1, 1 << 24, fp) : 0;
		fclose(fp);
	}
	id = len ? memmem(img, len, so->id, so->idlen) : NULL;
	if (!id) {
		tap_ok(false, "open-file limit: fixture copies made");
		free(img);
		return;
	}
	cg_header(&g, STACKID_ABI_VERSION, 0);
	for (i = 0; i < NOFILE_LIBS; i++) {
		c = *so;
		id[so->idlen - 2] = c.id[so->idlen - 2] = 0xa5;
		id[so->idlen - 1] = c.id[so->idlen - 1] = i;
		snprintf(path, sizeof(path), "%s/lib%02d.so", dir, i);
		fp = fopen(path, "wb");
		if (!fp || fwrite(img, 1, len, fp) != len)
			break;
		fclose(fp);
		cg_path(&g, c.id, c.idlen, path);
		chain(&c, f);
		cg_sample(&g, 1, 0, 1, 1, "nofile", STACKID_SF_USER, 3, f);
	}
	if (i == NOFILE_LIBS) {
		a = nofile_run(&g, 8, false);
		b = nofile_run(&g, 8, true);
	}
	tap_ok(a == 0, "open-file limit: a report of %d build-ids raises a "
	       "soft limit too low for them and names every one (%d)",
	       NOFILE_LIBS, a);
	tap_ok(b == 1, "open-file limit: where the hard limit stops it, "
	       "the rest keep file offsets and that is said (%d)", b);
	rm_debug_dir(dir);
	cg_free(&g);
	free(img);
}

/*
 * The symbol index (symindex_make()) against libdwfl asked for every
 * address: the same names and offsets at every @stride-th byte of each
 * executable segment of the ELF file @path, looked up in ascending and,
 * with a new index, in descending order (a span's answer is kept from
 * whichever address of it comes first). Returns the number of lookups
 * that differ, or -1 if @path is not usable; *@n: the addresses
 * compared, *@named: those named.
 */
static long compare_index(const char *path, unsigned int stride,
			  unsigned long *n, unsigned long *named)
{
	struct symbolizer_opts oi = { .err = stdout };
	struct symbolizer_opts od = { .err = stdout, .no_index = true };
	struct symbolizer *si = NULL, *sd;
	uint64_t *offs = NULL, off;
	size_t nph, i, noffs = 0, cap = 0;
	const void *id;
	long diffs = 0;
	ssize_t len;
	int fd, pass;
	Elf *elf;

	*n = *named = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len <= 0 || len > 20 || elf_getphdrnum(elf, &nph)) {
		elf_end(elf);
		close(fd);
		return -1;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		for (off = ph.p_offset; off < ph.p_offset + ph.p_filesz;
		     off += stride) {
			if (noffs == cap) {
				cap = cap ? 2 * cap : 4096;
				offs = realloc(offs, cap * sizeof(*offs));
			}
			offs[noffs++] = off;
		}
	}
	sd = symbolizer_new(&od);
	symbolizer_add_path(sd, id, len, path);
	for (pass = 0; pass < 2; pass++) {
		si = symbolizer_new(&oi);
		symbolizer_add_path(si, id, len, path);
		for (i = 0; i < noffs; i++) {
			struct sym a, b;

			off = offs[pass ? noffs - 1 - i : i];
			symbolize(si, id, len, off, false, &a);
			symbolize(sd, id, len, off, false, &b);
			if ((!a.func) != (!b.func) || a.func_off != b.func_off ||
			    (a.func && strcmp(a.func, b.func))) {
				if (diffs++ < 3)
					printf("# %s+0x%" PRIx64 " (%s): %s+0x%"
					       PRIx64 " with the index, %s+0x%"
					       PRIx64 " without\n", path, off,
					       pass ? "descending" : "ascending",
					       a.func ? a.func : "-",
					       a.func_off, b.func ? b.func : "-",
					       b.func_off);
			}
			if (!pass) {
				(*n)++;
				*named += !!a.func;
			}
		}
		symbolizer_free(si);
	}
	symbolizer_free(sd);
	free(offs);
	elf_end(elf);
	close(fd);
	return diffs;
}

/*
 * Assembly labels without sizes, as hand-written code has them: a global
 * and a local label at one address (libdwfl searches the locals only if
 * no global label is exactly at the address), a global label inside a
 * sized local function, an absolute symbol inside code (it counts only
 * exactly at its value). Built into @dir/libasm.so; its path, or NULL.
 */
static const char *asm_fixture(char *dir)
{
	static const char src[] =
		"\t.text\n"
		"\t.globl sized_first\n\t.type sized_first, @function\n"
		"sized_first:\n\tret\n\t.size sized_first, .-sized_first\n"
		"\t.globl glob_a\nglob_a:\nloc_a:\n"
		"\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
		"\t.p2align 4\n\t.type loc_fn, @function\nloc_fn:\n"
		"\tnop\n\tnop\n\t.globl glob_b\nglob_b:\n"
		"\tnop\n\tnop\n\tnop\n\tret\n\t.size loc_fn, .-loc_fn\n"
		"\t.p2align 4\n\t.globl code_c\ncode_c:\n"
		"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
		"\tret\n";
	static char so[4200];
	char cmd[9000], s[4200];
	FILE *f;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(s, sizeof(s), "%s/asm.S", dir);
	snprintf(so, sizeof(so), "%s/libasm.so", dir);
	f = fopen(s, "w");
	if (!f)
		return NULL;
	fputs(src, f);
	fclose(f);
	/* abs_c: absolute, three bytes into code_c where ld puts it */
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -Wl,--build-id "
		 "-Wl,--defsym=abs_c=0x1023 -o %s %s", so, s);
	return system(cmd) ? NULL : so;
}

/* compare_index() over the space-separated @files; false if none could be */
static bool compare_files(const char *files, unsigned int stride,
			  unsigned long *tn, unsigned long *tnamed,
			  unsigned long *nfiles, long *diffs)
{
	char *list = strdup(files), *p, *save = NULL;
	unsigned long n, named;
	long d;

	for (p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		d = compare_index(p, stride, &n, &named);
		if (d < 0)
			continue;
		(*nfiles)++;
		*diffs += d;
		*tn += n;
		*tnamed += named;
	}
	free(list);
	return *nfiles > 0;
}

/*
 * Debian's libc and libstdc++ (this test's own) at every 127th byte, and
 * our own unstripped binaries (a symbol table, debug sections, padding
 * between sections) at every byte; STACKID_SYMINDEX_FILES (paths,
 * space-separated) and STACKID_SYMINDEX_STRIDE compare others, by hand.
 */
static void test_index(void)
{
	const char *files = getenv("STACKID_SYMINDEX_FILES");
	const char *st = getenv("STACKID_SYMINDEX_STRIDE");
	unsigned int stride = st ? (unsigned int)atoi(st) : 127;
	unsigned long tn = 0, tnamed = 0, nfiles = 0;
	char libs[8192] = "", dir[] = "/tmp/stackid-symasm.XXXXXX";
	const char *so = NULL;
	long diffs = 0;
	Dl_info dl;

	if (!stride)
		stride = 1;
	if (files) {
		compare_files(files, stride, &tn, &tnamed, &nfiles, &diffs);
	} else {
		if (dladdr((void *)printf, &dl) && dl.dli_fname)
			snprintf(libs, sizeof(libs), "%s ", dl.dli_fname);
		if (dladdr((void *)__cxa_demangle, &dl) && dl.dli_fname)
			strncat(libs, dl.dli_fname, 4000);
		compare_files(libs, stride, &tn, &tnamed, &nfiles, &diffs);
		compare_files(BUILD "/stackid " FIX "symfix " FIX "libsymfix.so "
			      FIX "libsymfix32.so", 1, &tn, &tnamed, &nfiles,
			      &diffs);
		so = asm_fixture(dir);
		if (so)
			compare_files(so, 1, &tn, &tnamed, &nfiles, &diffs);
		rm_debug_dir(dir);
	}
	/* libc and libstdc++ name most of their code: the index is used */
	tap_ok(nfiles >= (files ? 1 : 7) && diffs == 0 &&
	       (files || tnamed > tn / 2),
	       "symbol index: the same name and offset as libdwfl's own "
	       "search at %lu addresses of %lu files, ascending and "
	       "descending (%lu named, %ld lookups differ)%s", tn, nfiles,
	       tnamed, diffs, files || so ? "" : "; no assembler for the "
	       "labels' fixture");
}

int main(void)
{
	struct fixture so, so32, exe, hid, dbg, lnk;

	elf_version(EV_CURRENT);
	unsetenv("DEBUGINFOD_URLS");
	load_fixture(&so, FIX "libsymfix.so", FIX "libsymfix.so");
	load_fixture(&so32, FIX "libsymfix32.so", FIX "libsymfix32.so");
	load_fixture(&exe, FIX "symfix", FIX "symfix");
	load_fixture(&hid, FIX "libhidden.stripped.so", FIX "libhidden.so");
	load_fixture(&dbg, "/nonexistent/libhidden.so", FIX "libhidden.so");
	load_fixture(&lnk, FIX "link/liblink.so", FIX "libhidden.so");

	tap_ok(exe.ok && exe.leaf.off != 0 && exe.idlen == 16,
	       "non-PIE fixture: md5 build-id, file offsets computed");
	test_fixture("shared object, sha1 build-id", &so, NULL);
	test_fixture("non-PIE executable, md5 build-id", &exe, NULL);
	test_fixture("32-bit shared object", &so32, NULL);
	test_mixed(&so, &exe);
	test_deleted(&so);
	test_hidden(&hid, &dbg);
	test_debuglink(&lnk);
	test_lines(&so);
	test_cxx();
	test_hostile_paths(&so);
	test_kept(&so);
	test_nofile(&so);
	test_index();
	return tap_done();
}
