// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolization by build-id with elfutils (see symbolize.h for the order
 * in which files are tried). Each build-id gets its own Dwfl with one
 * module reported at its link-time addresses (bias 0), and a cache of the
 * offsets already looked up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include <stackid.h>
#include "symbolize.h"
#include "util.h"

/* A PT_LOAD: file bytes [off, off + filesz) are at vaddr. */
struct seg {
	uint64_t off, filesz, vaddr;
};

/* One looked-up offset; strings owned here, or by libdw. */
struct hit {
	uint64_t off;
	bool used, ret;
	const char *func;
	uint64_t func_off;
	const char *mangled;
	const char *src;
	unsigned int line;
	struct sym_inline *inl;
	unsigned int ninl;
};

/* From libstdc++: C linkage, declared here to keep the tool in C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

struct bid {
	struct symbolizer *s;
	unsigned char id[STACKID_BUILD_ID_SIZE];
	unsigned int len;
	char **paths;
	unsigned int npaths;
	char *base;		/* basename of paths[0], clean */
	bool loaded;
	Dwfl *dwfl;		/* NULL: no usable file */
	Dwfl_Module *mod;
	struct seg *segs;
	unsigned int nsegs;
	struct hit *hits;
	unsigned int nhits, nslots;
	struct symindex *ix;	/* NULL: not made yet, or none */
	bool ix_tried;
};

struct symbolizer {
	struct symbolizer_opts o;
	struct intern ids;	/* build-id bytes -> index into bids */
	struct bid **bids;
	unsigned int cap;
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *dc;
	bool dc_tried, dc_dead, dc_capped;
	unsigned int dc_asked, dc_max;	/* requests made, and allowed */
#endif
	char *debuginfo_path;	/* for libdwfl: ":.debug:DEBUGDIR" */
	Dwfl_Callbacks callbacks;
	struct intern strs;	/* demangled and cleaned names */
	struct intern seen;	/* build-id length, build-id, path: added */
	uint64_t loads;		/* build-ids looked up in files */
	uint64_t hits;		/* addresses looked up */
	uint64_t spans;		/* in all symbol indexes */
	bool out_of_fds;	/* said once */
};

struct symbolizer *symbolizer_new(const struct symbolizer_opts *o)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));

	elf_version(EV_CURRENT);
	s->o = *o;
	if (!s->o.debug_dir)
		s->o.debug_dir = "/usr/lib/debug";
	if (!s->o.err)
		s->o.err = stderr;
	s->debuginfo_path = xmalloc(strlen(s->o.debug_dir) + 9);
	sprintf(s->debuginfo_path, ":.debug:%s", s->o.debug_dir);
	nofile_raise(SYMBOLIZER_NOFILE);
	return s;
}

static struct bid *get_bid(struct symbolizer *s, const unsigned char *id,
			   unsigned int len)
{
	unsigned int n = s->ids.n, i = intern_bytes(&s->ids, id, len);
	struct bid *b;

	if (s->ids.n == n)
		return s->bids[i];
	if (i >= s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->bids = xreallocarray(s->bids, s->cap, sizeof(*s->bids));
	}
	b = xcalloc(1, sizeof(*b));
	b->s = s;
	memcpy(b->id, id, len);
	b->len = len;
	s->bids[i] = b;
	return b;
}

/*
 * @s as name_sanitize() makes it: itself if clean, else a clean copy the
 * symbolizer keeps.
 */
static const char *clean(struct symbolizer *s, const char *name)
{
	struct strbuf sb = { 0 };
	unsigned int i;

	if (!name || name_sanitize(&sb, name, strlen(name))) {
		sb_free(&sb);
		return name;
	}
	i = intern_bytes(&s->strs, sb.buf, sb.len);
	sb_free(&sb);
	return intern_str(&s->strs, i);
}

/* Each distinct (build-id, path) once: a hash set, not a list to scan. */
static void add_path(struct bid *b, const char *path, size_t len)
{
	struct strbuf key = { 0 };
	unsigned int n = b->s->seen.n;
	const char *slash;

	sb_addc(&key, (char)b->len);
	sb_add(&key, b->id, b->len);
	sb_add(&key, path, len);
	intern_bytes(&b->s->seen, key.buf, key.len);
	sb_free(&key);
	if (b->s->seen.n == n)
		return;
	b->paths = xreallocarray(b->paths, b->npaths + 1, sizeof(char *));
	b->paths[b->npaths] = xmalloc(len + 1);
	memcpy(b->paths[b->npaths], path, len);
	b->paths[b->npaths++][len] = 0;
	/* a symbolizer kept across captures: a new path may have the file */
	if (b->loaded && !b->mod)
		b->loaded = false;
	if (!b->base) {
		struct strbuf sb = { 0 };

		slash = strrchr(b->paths[0], '/');
		slash = slash && slash[1] ? slash + 1 : b->paths[0];
		name_sanitize(&sb, slash, strlen(slash));
		b->base = sb_detach(&sb);
	}
}

void symbolizer_add_path(struct symbolizer *s, const unsigned char *id,
			 unsigned int len, const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), d = sizeof(deleted) - 1;
	struct bid *b;

	if (!len || len > STACKID_BUILD_ID_SIZE || !n)
		return;
	b = get_bid(s, id, len);
	/* the kernel's name for an unlinked file: try its old name first */
	if (n > d && !strcmp(path + n - d, deleted))
		add_path(b, path, n - d);
	add_path(b, path, n);
}

/*
 * Might a capture's @path name a file we open? Only by an absolute path
 * without a ".." component: a capture comes from the module, which gives
 * the sampled process's absolute path, and may come from another machine.
 */
static bool path_ok(const char *path)
{
	const char *p;

	if (path[0] != '/')
		return false;
	for (p = path; (p = strstr(p, "..")); p += 2)
		if (p[-1] == '/' && (!p[2] || p[2] == '/'))
			return false;
	return true;
}

/* File systems whose "regular files" are the kernel's: never read. */
static bool pseudo_fs(int fd)
{
	static const unsigned long magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		BPF_FS_MAGIC, EFIVARFS_MAGIC, PSTOREFS_MAGIC,
		0x62656570 /* configfs */,
	};
	struct statfs sf;
	unsigned int i;

	if (fstatfs(fd, &sf))
		return true;
	for (i = 0; i < ARRAY_SIZE(magic); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

/*
 * What open_regular() and open_regular_in() share: @pfd, an O_PATH fd,
 * is checked (a regular file that could be an ELF file, on a real file
 * system) and that very inode opened through /proc/self/fd (O_NOCTTY,
 * O_NONBLOCK as well), or by @path again where there is no /proc (NULL:
 * not so). Closes @pfd. Returns the fd, or -1.
 */
static int open_checked(int pfd, const char *path)
{
	struct stat st, st2;
	char proc[32];
	int fd;

	if (fstat(pfd, &st) || !S_ISREG(st.st_mode) || st.st_size < 52 ||
	    pseudo_fs(pfd)) {
		close(pfd);
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && path)
		fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) || !S_ISREG(st2.st_mode) ||
	    st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Open @path for reading only if it is a regular file (symbolic links
 * followed: libraries are reached through them) that could be an ELF
 * file, on a real file system, looking before opening: O_PATH opens
 * nothing (no device's open, no FIFO's wait, no terminal made ours), the
 * checks are made on what it found, and then that very inode is opened
 * through /proc/self/fd (O_NOCTTY, O_NONBLOCK as well). Returns the fd,
 * or -1.
 */
int open_regular(const char *path, bool untrusted)
{
	int pfd;

	if (untrusted && !path_ok(path))
		return -1;
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	return open_checked(pfd, path);
}

int open_regular_in(int root, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long pfd;

	if (!path_ok(path))
		return -1;
	pfd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	if (pfd < 0)
		return -1;
	return open_checked((int)pfd, NULL);
}

/*
 * Open @path if it is a regular ELF file (open_regular(); @untrusted: a
 * path from the capture) with build-id @b, and take its PT_LOAD headers
 * (if @segs). Returns the fd, or -1.
 */
static int open_match(struct bid *b, const char *path, bool untrusted,
		      bool segs)
{
	const void *id;
	size_t i, n;
	Elf *elf;
	int fd;
	ssize_t len;
	bool ok = false;

	errno = 0;
	fd = open_regular(path, untrusted);
	if (fd < 0) {
		if ((errno == EMFILE || errno == ENFILE) && !b->s->out_of_fds) {
			b->s->out_of_fds = true;
			fprintf(b->s->o.err, "stackid: symbols: %s (at most %lu"
				"): the build-ids not yet read keep file "
				"offsets; raise `ulimit -n`\n", strerror(errno),
				nofile_raise(0));
		}
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (len <= 0 || (size_t)len != b->len || memcmp(id, b->id, len))
		goto out;
	ok = true;
	if (!segs || elf_getphdrnum(elf, &n))
		goto out;
	free(b->segs);
	b->segs = xcalloc(n, sizeof(*b->segs));
	b->nsegs = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->segs[b->nsegs++] = (struct seg){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
		};
	}
out:
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A separate debug file (objcopy --only-keep-debug) keeps the program
 * headers but empties those of the segments whose sections it dropped:
 * p_filesz 0. Assume the GNU ld layout there, offset = vaddr - base.
 */
static void fix_debug_segs(struct bid *b)
{
	uint64_t base;
	unsigned int i;

	if (!b->nsegs)
		return;
	base = b->segs[0].vaddr - b->segs[0].off;
	for (i = 0; i < b->nsegs; i++) {
		struct seg *g = &b->segs[i];

		if (g->filesz == 0 && g->vaddr >= base) {
			g->off = g->vaddr - base;
			g->filesz = UINT64_MAX - g->off;
		}
	}
	/* each segment ends where the next begins */
	for (i = 0; i + 1 < b->nsegs; i++) {
		struct seg *g = &b->segs[i], *n = &b->segs[i + 1];

		if (n->off > g->off && n->off - g->off < g->filesz)
			g->filesz = n->off - g->off;
	}
}

#ifdef HAVE_DEBUGINFOD
/*
 * Requests to debuginfod for one symbolizer at most (one report; in
 * `stackid push`, the captures read until it makes its symbols anew, 10
 * minutes at the latest), two per build-id lookup at most (executable,
 * debug file; a build-id not found is looked up again when it is given
 * another path): a capture of thousands of build-ids must not become
 * thousands of requests, each up to the client's timeout.
 */
#define DEBUGINFOD_MAX_DEFAULT	256

static debuginfod_client *dclient(struct symbolizer *s)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!s->o.debuginfod || !urls || !*urls || s->dc_dead)
		return NULL;
	if (!s->dc_tried) {
		const char *max = getenv("STACKID_DEBUGINFOD_MAX");

		s->dc_tried = true;
		s->dc = debuginfod_begin();
		s->dc_max = DEBUGINFOD_MAX_DEFAULT;
		if (max && *max)
			s->dc_max = strtoul(max, NULL, 10);
	}
	if (s->dc && s->dc_asked >= s->dc_max) {
		if (!s->dc_capped)
			fprintf(s->o.err, "stackid: debuginfod: %u requests made, "
				"the most for one report, or for `stackid "
				"push` until it makes its symbols anew "
				"(STACKID_DEBUGINFOD_MAX); the other build-ids "
				"are symbolized without it\n", s->dc_asked);
		s->dc_capped = true;
		return NULL;
	}
	if (s->dc)
		s->dc_asked++;
	return s->dc;
}

/* debuginfod's executable (@exe) or debuginfo of @b, checked. */
static int from_debuginfod(struct bid *b, bool exe, bool segs, char **name)
{
	debuginfod_client *dc = dclient(b->s);
	char *path = NULL;
	int fd;

	if (!dc)
		return -1;
	fd = exe ? debuginfod_find_executable(dc, b->id, b->len, &path) :
		   debuginfod_find_debuginfo(dc, b->id, b->len, &path);
	if (fd < 0 && fd != -ENOENT) {
		/* not "it has no such file": the server itself failed */
		b->s->dc_dead = true;
		fprintf(b->s->o.err, "stackid: debuginfod (%s): %s; "
			"symbolizing without it\n", getenv("DEBUGINFOD_URLS"),
			strerror(-fd));
	}
	if (fd < 0)
		return -1;
	close(fd);
	fd = open_match(b, path, false, segs);
	if (fd >= 0 && name)
		*name = path;
	else
		free(path);
	return fd;
}
#else
static int from_debuginfod(struct bid *b, bool exe, bool segs, char **name)
{
	(void)b;
	(void)exe;
	(void)segs;
	(void)name;
	return -1;
}
#endif

/* The separate debug file of @b: fd, and its path in *@name. */
static int find_debug(struct bid *b, bool segs, char **name)
{
	struct strbuf sb = { 0 };
	int fd;

	sb_adds(&sb, b->s->o.debug_dir);
	sb_adds(&sb, "/.build-id/");
	sb_addhex(&sb, b->id, 1);
	sb_addc(&sb, '/');
	sb_addhex(&sb, b->id + 1, b->len - 1);
	sb_adds(&sb, ".debug");
	fd = b->len > 1 ? open_match(b, sb.buf, false, segs) : -1;
	if (fd >= 0) {
		*name = sb_detach(&sb);
		return fd;
	}
	sb_free(&sb);
	return from_debuginfod(b, false, segs, name);
}

static int find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)elfp;
	return -1;
}

/*
 * The file @debuglink (the name in @file's .gnu_debuglink) next to
 * @file, in .debug/ beside it, and under DEBUGDIR: what libdwfl's
 * standard search tries, but through open_match(), so that only a
 * regular file with the build-id is opened. A name with a '/' is not
 * followed.
 */
static int find_debuglink(struct bid *b, const char *file,
			  const char *debuglink, char **name)
{
	const char *slash = strrchr(file, '/');
	size_t dir = slash ? (size_t)(slash - file) : 0;
	struct strbuf sb = { 0 };
	unsigned int i;
	int fd = -1;

	if (!debuglink || !*debuglink || strchr(debuglink, '/') ||
	    !strcmp(debuglink, ".") || !strcmp(debuglink, "..") || !slash)
		return -1;
	for (i = 0; i < 3 && fd < 0; i++) {
		sb_reset(&sb);
		if (i == 2)
			sb_adds(&sb, b->s->o.debug_dir);
		sb_add(&sb, file, dir);
		sb_adds(&sb, i == 1 ? "/.debug/" : "/");
		sb_adds(&sb, debuglink);
		if (!strcmp(sb.buf, file))
			continue;	/* the file itself */
		fd = open_match(b, sb.buf, true, false);
	}
	if (fd >= 0)
		*name = sb_detach(&sb);
	sb_free(&sb);
	return fd;
}

/*
 * libdwfl asks for it when the ELF file has no .symtab, or for DWARF:
 * the .gnu_debuglink file, then DEBUGDIR/.build-id, then our debuginfod
 * client. Never libdwfl's own search: it opens whatever the names lead
 * to, and would ask debuginfod silently.
 */
static int find_debuginfo_cb(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink,
			     GElf_Word crc, char **debuginfo_file_name)
{
	struct bid *b = *userdata;
	int fd;

	(void)mod;
	(void)modname;
	(void)base;
	(void)crc;
	if (!b || !file_name)
		return -1;
	fd = find_debuglink(b, file_name, debuglink, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	return find_debug(b, false, debuginfo_file_name);
}

static void load(struct bid *b)
{
	char *name = NULL;
	void **ud;
	bool debug = false;
	unsigned int i;
	int fd = -1;

	b->loaded = true;
	b->s->loads++;
	for (i = 0; i < b->npaths && fd < 0; i++)
		fd = open_match(b, b->paths[i], true, true);
	if (fd >= 0)
		name = xstrdup(b->paths[i - 1]);
	else
		fd = from_debuginfod(b, true, true, &name);
	if (fd < 0) {
		fd = find_debug(b, true, &name);
		debug = true;
	}
	if (fd < 0)
		return;
	if (debug)
		fix_debug_segs(b);
	b->s->callbacks.find_elf = find_elf_cb;
	b->s->callbacks.find_debuginfo = find_debuginfo_cb;
	b->s->callbacks.debuginfo_path = &b->s->debuginfo_path;
	b->dwfl = dwfl_begin(&b->s->callbacks);
	if (!b->dwfl)
		goto fail;
	dwfl_report_begin(b->dwfl);
	b->mod = dwfl_report_elf(b->dwfl, b->base ? b->base : "?", name, fd,
				 0, true);
	dwfl_report_end(b->dwfl, NULL, NULL);
	if (!b->mod)
		goto fail;
	fd = -1;		/* libdwfl has it now */
	/* a debug file reported as the ELF file needs no other */
	if (!debug && dwfl_module_info(b->mod, &ud, NULL, NULL, NULL, NULL,
				       NULL, NULL))
		*ud = b;
	free(name);
	return;
fail:
	if (fd >= 0)
		close(fd);
	if (b->dwfl)
		dwfl_end(b->dwfl);
	b->dwfl = NULL;
	b->mod = NULL;
	free(name);
}

static bool off_to_vaddr(const struct bid *b, uint64_t off, uint64_t *vaddr)
{
	unsigned int i;

	for (i = 0; i < b->nsegs; i++) {
		const struct seg *g = &b->segs[i];

		if (off >= g->off && off - g->off < g->filesz) {
			*vaddr = off - g->off + g->vaddr;
			return true;
		}
	}
	return false;
}

/* @name demangled (kept by the symbolizer), *@sys the mangled one. */
static const char *demangle(struct symbolizer *s, const char *name,
			    const char **sys)
{
	char *d;
	int st = -1;
	unsigned int i;

	*sys = NULL;
	if (s->o.no_demangle || strncmp(name, "_Z", 2))
		return name;
	d = __cxa_demangle(name, NULL, NULL, &st);
	if (st || !d) {
		free(d);
		return name;
	}
	i = intern_bytes(&s->strs, d, strlen(d));
	free(d);
	*sys = name;
	return intern_str(&s->strs, i);
}

/* A DWARF function's name: its linkage name demangled, else its name. */
static const char *die_name(struct symbolizer *s, Dwarf_Die *die,
			    const char **sys)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(
					die, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(
					die, DW_AT_MIPS_linkage_name, &a));
	if (n) {
		n = demangle(s, n, sys);
		*sys = clean(s, *sys);
		return clean(s, n);
	}
	*sys = NULL;
	n = dwarf_diename(die);
	return n ? clean(s, n) : "??";
}

/*
 * --lines: the source position of @addr and the functions inlined there.
 * dwarf_getscopes() lists the scopes innermost first: each inlined
 * subroutine is at the position we have so far, and its DW_AT_call_file
 * and DW_AT_call_line are where its caller is; the last such position is
 * the real function's.
 */
static void lines(struct bid *b, uint64_t addr, struct hit *h)
{
	Dwfl_Line *l = dwfl_module_getsrc(b->mod, addr);
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Attribute a;
	Dwarf_Addr bias;
	Dwarf_Word w;
	const char *src = NULL;
	size_t nfiles = 0;
	int line = 0, n, i;

	if (l)
		src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	cu = dwfl_module_addrdie(b->mod, addr, &bias);
	n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	if (n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	for (i = 0; i < n; i++) {
		Dwarf_Die *d = &scopes[i];
		struct sym_inline *in;

		if (dwarf_tag(d) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(d) != DW_TAG_inlined_subroutine)
			continue;
		h->inl = xreallocarray(h->inl, h->ninl + 1, sizeof(*h->inl));
		in = &h->inl[h->ninl++];
		in->func = die_name(b->s, d, &in->sysname);
		in->src = clean(b->s, src);
		in->line = line;
		line = dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a),
				       &w) ? 0 : w;
		src = files && !dwarf_formudata(dwarf_attr(d, DW_AT_call_file,
							   &a), &w) ?
		      dwarf_filesrc(files, w, NULL, NULL) : NULL;
	}
	free(scopes);
	h->src = clean(b->s, src);
	h->line = line > 0 ? line : 0;
}

/*
 * dwfl_module_addrinfo() compares the address with every symbol of the
 * module, one by one: about 40 us an address in libc on this host (its
 * 3,000 symbols), most of a report over many distinct addresses.
 *
 * What it answers depends on the address only through which side of
 * some bounds it lies on: every test it makes on the address is value
 * <= addr, addr < value + size or value == addr (an absolute symbol; a
 * global label exactly at the address keeps the locals out), of a
 * symbol (its value as resolved and as st_value plus the bias) or of a
 * section (whose end address it counts as in it), also where it prefers
 * a global symbol, one that covers the address, or an assembly label
 * above every sized symbol below it in the same section. So between two
 * consecutive bounds (a symbol's value + 1 is one) it chooses the same
 * symbol, and answers its name and addr - value. The
 * index keeps the bounds (every symbol's, every section's of the file
 * and of its debug file: more than needed only splits spans finer),
 * sorted, and what the first address looked up in each span got: one
 * call a span, a binary search for every other address in it. A module
 * of more than SYMINDEX_MAX symbols has none (each address asks
 * libdwfl). test_symbolize compares the two ways.
 */
#define SYMINDEX_MAX	(1u << 20)

struct span {
	const char *name;	/* libdwfl's; NULL: no symbol */
	uint64_t value;		/* the symbol's address */
	bool known;
};

struct symindex {
	uint64_t *bounds;	/* sorted, distinct */
	struct span *spans;	/* [i]: from bounds[i - 1] to bounds[i] */
	unsigned int n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void symindex_free(struct symindex *ix)
{
	if (!ix)
		return;
	free(ix->bounds);
	free(ix->spans);
	free(ix);
}

/* Room for @n more bounds. */
static void symindex_room(struct symindex *ix, size_t *cap, size_t n)
{
	if (ix->n + n <= *cap)
		return;
	*cap = (*cap + n) * 2;
	ix->bounds = xreallocarray(ix->bounds, *cap, sizeof(*ix->bounds));
}

/*
 * Every section's start, end and end + 1 (libdwfl counts a section's
 * end address as in it unless the next one starts there), allocated or
 * not, of @elf at @bias.
 */
static void symindex_sections(struct symindex *ix, size_t *cap, Elf *elf,
			      uint64_t bias)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		symindex_room(ix, cap, 3);
		ix->bounds[ix->n++] = sh.sh_addr + bias;
		ix->bounds[ix->n++] = sh.sh_addr + bias + sh.sh_size;
		ix->bounds[ix->n++] = sh.sh_addr + bias + sh.sh_size + 1;
	}
}

static struct symindex *symindex_make(Dwfl_Module *mod)
{
	struct symindex *ix;
	GElf_Addr bias = 0;
	Elf *elf, *other = NULL;
	Dwarf_Addr obias = 0;
	unsigned int i, k;
	int nsyms = dwfl_module_getsymtab(mod);
	size_t cap;

	if (nsyms < 0 || (unsigned int)nsyms > SYMINDEX_MAX)
		return NULL;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return NULL;
	ix = xcalloc(1, sizeof(*ix));
	cap = 6 * (size_t)nsyms + 64;
	ix->bounds = xreallocarray(NULL, cap, sizeof(*ix->bounds));
	/*
	 * each symbol's value, value + 1 and end, as resolved and as
	 * st_value + bias
	 */
	for (i = 0; i < (unsigned int)nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *e = NULL;
		Dwarf_Addr b = 0;

		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &e,
					     &b))
			continue;
		symindex_room(ix, &cap, 6);
		ix->bounds[ix->n++] = addr;
		ix->bounds[ix->n++] = addr + 1;
		ix->bounds[ix->n++] = addr + sym.st_size;
		ix->bounds[ix->n++] = sym.st_value + b;
		ix->bounds[ix->n++] = sym.st_value + b + 1;
		ix->bounds[ix->n++] = sym.st_value + b + sym.st_size;
		if (e && e != elf && !other) {
			other = e;	/* the debug file's symbols */
			obias = b;
		}
	}
	symindex_sections(ix, &cap, elf, bias);
	if (other)
		symindex_sections(ix, &cap, other, obias);
	qsort(ix->bounds, ix->n, sizeof(*ix->bounds), cmp_u64);
	for (i = k = 0; i < ix->n; i++)
		if (!k || ix->bounds[i] != ix->bounds[k - 1])
			ix->bounds[k++] = ix->bounds[i];
	ix->n = k;
	ix->spans = xcalloc(k + 1, sizeof(*ix->spans));
	return ix;
}

/* The span of @addr: spans[i], i the number of bounds at or below it. */
static struct span *symindex_span(struct symindex *ix, uint64_t addr)
{
	unsigned int lo = 0, hi = ix->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->bounds[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &ix->spans[lo];
}

/* dwfl_module_addrinfo()'s name for @addr and its offset in the symbol. */
static const char *addr_name(struct bid *b, uint64_t addr, GElf_Off *symoff)
{
	struct span *sp = NULL;
	const char *name;
	GElf_Sym sym;

	if (!b->ix_tried && !b->s->o.no_index) {
		b->ix_tried = true;
		b->ix = symindex_make(b->mod);
		if (b->ix)
			b->s->spans += b->ix->n + 1;
	}
	if (b->ix) {
		sp = symindex_span(b->ix, addr);
		if (sp->known) {
			*symoff = addr - sp->value;
			return sp->name;
		}
	}
	name = dwfl_module_addrinfo(b->mod, addr, symoff, &sym, NULL, NULL,
				    NULL);
	if (sp) {
		sp->known = true;
		sp->name = name;
		sp->value = name ? addr - *symoff : 0;
	}
	return name;
}

static void lookup(struct bid *b, uint64_t off, bool ret, struct hit *h)
{
	uint64_t vaddr, addr;
	GElf_Off symoff;
	const char *name;

	if (!b->mod)
		return;
	/* a return address may end its segment: its call lies before */
	if (off_to_vaddr(b, off, &vaddr))
		addr = ret ? vaddr - 1 : vaddr;
	else if (ret && off && off_to_vaddr(b, off - 1, &vaddr))
		addr = vaddr++;
	else
		return;
	name = addr_name(b, addr, &symoff);
	if (name && *name) {
		h->func = clean(b->s, demangle(b->s, name, &h->mangled));
		h->mangled = clean(b->s, h->mangled);
		h->func_off = symoff + (vaddr - addr);
	}
	if (b->s->o.lines)
		lines(b, addr, h);
}

static unsigned int hit_slot(uint64_t off, bool ret, unsigned int mask)
{
	return hash_bytes(&off, sizeof(off), ret) & mask;
}

/* The cache slot of (@off, @ret): used, or where it goes. */
static struct hit *cached(struct bid *b, uint64_t off, bool ret)
{
	unsigned int mask, i, j, n;
	struct hit *old, *h;

	if ((b->nhits + 1) * 2 > b->nslots) {
		old = b->hits;
		n = b->nslots;
		b->nslots = n ? n * 2 : 64;
		b->hits = xcalloc(b->nslots, sizeof(*b->hits));
		mask = b->nslots - 1;
		for (j = 0; j < n; j++) {
			if (!old[j].used)
				continue;
			i = hit_slot(old[j].off, old[j].ret, mask);
			while (b->hits[i].used)
				i = (i + 1) & mask;
			b->hits[i] = old[j];
		}
		free(old);
	}
	mask = b->nslots - 1;
	for (i = hit_slot(off, ret, mask);; i = (i + 1) & mask) {
		h = &b->hits[i];
		if (!h->used || (h->off == off && h->ret == ret))
			return h;
	}
}

void symbolize(struct symbolizer *s, const unsigned char *id,
	       unsigned int len, uint64_t off, bool ret, struct sym *out)
{
	struct bid *b;
	struct hit *h;

	memset(out, 0, sizeof(*out));
	if (!len || len > STACKID_BUILD_ID_SIZE)
		return;
	b = get_bid(s, id, len);
	out->file = b->base;
	if (!b->loaded)
		load(b);
	if (!b->mod)
		return;
	h = cached(b, off, ret);
	if (!h->used) {
		h->used = true;
		h->off = off;
		h->ret = ret;
		b->nhits++;
		s->hits++;
		lookup(b, off, ret, h);
	}
	out->func = h->func;
	out->func_off = h->func_off;
	out->sysname = h->mangled;
	out->src = h->src;
	out->line = h->line;
	out->ninline = h->ninl;
	out->inl = h->inl;
}

void symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	st->loads = s->loads;
	st->bids = s->ids.n;
	st->hits = s->hits;
	st->spans = s->spans;
}

void symbolizer_free(struct symbolizer *s)
{
	unsigned int i, j;

	if (!s)
		return;
	for (i = 0; i < s->ids.n; i++) {
		struct bid *b = s->bids[i];

		for (j = 0; j < b->npaths; j++)
			free(b->paths[j]);
		free(b->paths);
		free(b->base);
		if (b->dwfl)
			dwfl_end(b->dwfl);
		free(b->segs);
		for (j = 0; j < b->nslots; j++)
			free(b->hits[j].inl);
		free(b->hits);
		symindex_free(b->ix);
		free(b);
	}
	free(s->bids);
	intern_free(&s->ids);
	intern_free(&s->strs);
	intern_free(&s->seen);
	free(s->debuginfo_path);
#ifdef HAVE_DEBUGINFOD
	if (s->dc)
		debuginfod_end(s->dc);
#endif
	free(s);
}
