// SPDX-License-Identifier: GPL-2.0
/*
 * elfdeps: which files a dynamically linked program needs at run time,
 * read from its ELF headers alone. It never executes the program or its
 * interpreter (ldd does both), so it works for programs the host cannot
 * run: 32-bit ones on a kernel without IA-32 emulation, another
 * architecture's, a guest's.
 *
 *   elfdeps [--root DIR] FILE...
 *
 * For each FILE, and transitively for every library found, it follows
 * what the dynamic loader does: PT_INTERP names the interpreter; each
 * DT_NEEDED name is searched in DT_RPATH (of the object and of those that
 * loaded it, only when the object has no DT_RUNPATH), then DT_RUNPATH,
 * then the directories of /etc/ld.so.conf (its include lines followed),
 * then the loader's built-in directories for the object's class;
 * $ORIGIN, $LIB and $PLATFORM are expanded, and a candidate is taken only
 * if it is an ELF of the same class and machine (the loader skips the
 * others, e.g. a 64-bit libc when a 32-bit one is wanted).
 *
 * A FILE that is not ELF (a script) is skipped.
 *
 * DIR (default: none) is the root the programs will run in: a path is
 * looked up under DIR first, then on the host. Output: one line per file
 * that exists only on the host, as an absolute path, for the caller to
 * copy to the same place under DIR. Files already under DIR are followed
 * but not printed. Exit status: 0, or 1 if a needed library or an
 * interpreter was not found (named on stderr), 2 on a usage or read error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES	1024
#define MAX_DIRS	256

static const char *root = "";
static char *conf_dirs[MAX_DIRS];
static int nconf;
static int status;

/* Every file seen, as the path the loader would use (no root prefix). */
static char *seen[MAX_FILES];
static int nseen;

static const char *const dirs64[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL
};
static const char *const dirs32[] = {
	"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu",
	"/lib32", "/usr/lib32", "/lib", "/usr/lib", NULL
};

struct obj {
	int cls;		/* ELFCLASS32 / ELFCLASS64 */
	int machine;
	char interp[PATH_MAX];
	char *needed[64];
	int nneeded;
	char *rpath, *runpath;	/* colon-separated, unexpanded */
};

static void *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		perror("elfdeps");
		exit(2);
	}
	return p;
}

/* @path under the root if it exists there, else on the host; or NULL. */
static const char *locate(const char *path, char *buf, bool *in_root)
{
	if (*root) {
		if (snprintf(buf, PATH_MAX, "%s%s", root, path) >= PATH_MAX)
			return NULL;
		if (access(buf, F_OK) == 0) {
			*in_root = true;
			return buf;
		}
	}
	*in_root = false;
	return access(path, F_OK) == 0 ? path : NULL;
}

/*
 * Read @file's class, machine, interpreter and dynamic section. Returns
 * 0, or -1 if it is not an ELF file (silently: the caller decides).
 */
static int read_obj(const char *file, struct obj *o)
{
	size_t nphdr, i;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int fd, ret = -1;
	Elf *e;

	memset(o, 0, sizeof(*o));
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		goto out;
	o->cls = gelf_getclass(e);
	o->machine = eh.e_machine;
	if (elf_getphdrnum(e, &nphdr))
		goto out;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		ssize_t n;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz >= sizeof(o->interp))
			goto out;
		n = pread(fd, o->interp, ph.p_filesz, ph.p_offset);
		if (n != (ssize_t)ph.p_filesz)
			goto out;
		o->interp[ph.p_filesz - 1] = 0;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (k = 0; d && k < sh.sh_size / (sh.sh_entsize ?: 1); k++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, k, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED &&
			    o->nneeded < (int)(sizeof(o->needed) /
					       sizeof(o->needed[0])))
				o->needed[o->nneeded++] = xstrdup(s);
			else if (dyn.d_tag == DT_RPATH)
				o->rpath = xstrdup(s);
			else if (dyn.d_tag == DT_RUNPATH)
				o->runpath = xstrdup(s);
		}
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static void free_obj(struct obj *o)
{
	int i;

	for (i = 0; i < o->nneeded; i++)
		free(o->needed[i]);
	free(o->rpath);
	free(o->runpath);
}

/* Is @path an ELF of @cls and @machine? */
static bool compatible(const char *path, int cls, int machine)
{
	struct obj o;
	bool ok;

	if (read_obj(path, &o))
		return false;
	ok = o.cls == cls && o.machine == machine;
	free_obj(&o);
	return ok;
}

/* Expand $ORIGIN ($origin: the loading object's directory), $LIB... */
static void expand(const char *in, const char *origin, int cls, char *out)
{
	size_t n = 0;

	while (*in && n < PATH_MAX - 1) {
		const char *rep = NULL;
		size_t skip = 0;

		if (!strncmp(in, "$ORIGIN", 7)) {
			rep = origin, skip = 7;
		} else if (!strncmp(in, "${ORIGIN}", 9)) {
			rep = origin, skip = 9;
		} else if (!strncmp(in, "$LIB", 4)) {
			rep = cls == ELFCLASS64 ? "lib/x86_64-linux-gnu" :
						  "lib/i386-linux-gnu";
			skip = 4;
		} else if (!strncmp(in, "$PLATFORM", 9)) {
			rep = cls == ELFCLASS64 ? "x86_64" : "i686";
			skip = 9;
		}
		if (rep) {
			n += snprintf(out + n, PATH_MAX - n, "%s", rep);
			in += skip;
		} else {
			out[n++] = *in++;
		}
	}
	out[n < PATH_MAX ? n : PATH_MAX - 1] = 0;
}

static void visit(const char *path, const char *host_or_root_path,
		  bool in_root, const char *chain_rpath);

/* Search @name in the colon-separated @dirs; true when found. */
static bool try_dirs(const char *dirs, const char *origin, int cls,
		     int machine, const char *name, const char *chain_rpath)
{
	char *copy, *save, *d, buf[PATH_MAX], path[PATH_MAX], ex[PATH_MAX];
	bool found = false, in_root;
	const char *where;

	if (!dirs)
		return false;
	copy = xstrdup(dirs);
	for (d = strtok_r(copy, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		expand(d, origin, cls, ex);
		if (!*ex)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", ex, name) >=
		    (int)sizeof(path))
			continue;
		where = locate(path, buf, &in_root);
		if (where && compatible(where, cls, machine)) {
			visit(path, where, in_root, chain_rpath);
			found = true;
		}
	}
	free(copy);
	return found;
}

static bool try_list(const char *const *list, int n, int cls, int machine,
		     const char *name)
{
	char buf[PATH_MAX], path[PATH_MAX];
	const char *where;
	bool in_root;
	int i;

	for (i = 0; n < 0 ? list[i] != NULL : i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", list[i], name) >=
		    (int)sizeof(path))
			continue;
		where = locate(path, buf, &in_root);
		if (where && compatible(where, cls, machine)) {
			visit(path, where, in_root, NULL);
			return true;
		}
	}
	return false;
}

/*
 * Follow @path (the loader's view), readable at @file. @chain_rpath: the
 * DT_RPATHs of the objects that loaded it, which apply to it too when it
 * has no DT_RUNPATH.
 */
static void visit(const char *path, const char *file, bool in_root,
		  const char *chain_rpath)
{
	char origin[PATH_MAX], rp[4 * PATH_MAX], buf[PATH_MAX];
	const char *where;
	struct obj o;
	bool r;
	int i;

	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i], path))
			return;
	if (nseen == MAX_FILES) {
		fprintf(stderr, "elfdeps: more than %d files\n", MAX_FILES);
		exit(2);
	}
	seen[nseen++] = xstrdup(path);
	if (!in_root)
		printf("%s\n", path);
	if (read_obj(file, &o))
		return;		/* not ELF (e.g. a script): nothing to follow */
	snprintf(origin, sizeof(origin), "%s", path);
	snprintf(origin, sizeof(origin), "%s", dirname(origin));
	if (o.interp[0]) {
		where = locate(o.interp, buf, &r);
		if (!where) {
			fprintf(stderr, "elfdeps: %s: interpreter %s not found\n",
				path, o.interp);
			status = 1;
		} else {
			visit(o.interp, where, r, NULL);
		}
	}
	snprintf(rp, sizeof(rp), "%s%s%s", o.rpath ? o.rpath : "",
		 o.rpath && chain_rpath ? ":" : "",
		 chain_rpath ? chain_rpath : "");
	for (i = 0; i < o.nneeded; i++) {
		const char *name = o.needed[i];
		bool found;

		if (strchr(name, '/')) {
			where = locate(name, buf, &r);
			found = where != NULL;
			if (found)
				visit(name, where, r, NULL);
		} else {
			found = (!o.runpath &&
				 try_dirs(rp, origin, o.cls, o.machine, name,
					  rp)) ||
				try_dirs(o.runpath, origin, o.cls, o.machine,
					 name, NULL) ||
				try_list((const char *const *)conf_dirs, nconf,
					 o.cls, o.machine, name) ||
				try_list(o.cls == ELFCLASS64 ? dirs64 : dirs32,
					 -1, o.cls, o.machine, name);
		}
		if (!found) {
			fprintf(stderr, "elfdeps: %s: %s not found\n", path,
				name);
			status = 1;
		}
	}
	free_obj(&o);
}

/* The directories of an ld.so.conf file, following "include GLOB". */
static void read_conf(const char *file, int depth)
{
	char line[PATH_MAX], *p, *e;
	FILE *f;

	if (depth > 8 || !(f = fopen(file, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		if ((e = strchr(p, '#')))
			*e = 0;
		p[strcspn(p, "\r\n")] = 0;
		for (e = p + strlen(p); e > p && (e[-1] == ' ' ||
						  e[-1] == '\t'); e--)
			*--e = 0;
		if (!*p)
			continue;
		if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
			glob_t g;
			size_t k;

			p += 8;
			p += strspn(p, " \t");
			if (glob(p, 0, NULL, &g) == 0) {
				for (k = 0; k < g.gl_pathc; k++)
					read_conf(g.gl_pathv[k], depth + 1);
				globfree(&g);
			}
		} else if (*p == '/' && nconf < MAX_DIRS) {
			conf_dirs[nconf++] = xstrdup(p);
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--root")) {
		root = argv[2];
		i = 3;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: elfdeps [--root DIR] FILE...\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "elfdeps: libelf: %s\n", elf_errmsg(-1));
		return 2;
	}
	read_conf("/etc/ld.so.conf", 0);
	for (; i < argc; i++) {
		size_t rl = strlen(root);
		const char *path = argv[i];
		struct obj o;

		if (read_obj(argv[i], &o)) {
			/* a script: what runs it is the caller's business */
			if (access(argv[i], R_OK))
				perror(argv[i]);
			continue;
		}
		free_obj(&o);
		/*
		 * The programs are where the caller put them; under the root,
		 * the loader sees them (and their $ORIGIN) without its prefix.
		 */
		if (rl && !strncmp(path, root, rl) && path[rl] == '/')
			path += rl;
		visit(path, argv[i], true, NULL);
	}
	return status;
}
