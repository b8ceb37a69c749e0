// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`, unwind tables: for each build-id whose path the
 * module names (STACKID_REC_BUILD_ID_PATH) for the first time, open that
 * path as the symbolizer does (open_regular(): an absolute path, no
 * "..", a regular file, not a pseudo file system), check that its GNU
 * build-id is the record's, compile its call frame information (cfi.c)
 * and load it into the module (STACKID_IOC_ADD_UNWIND), so that stacks
 * through code built without frame pointers are walked on.
 *
 * Paths are queued as records arrive and compiled between polls, for at
 * most REC_UNWIND_SLICE_NS at a time (a file is never cut: python3's
 * 7 MB take 25 ms on a host, about 0.1 s in a guest), the smallest file
 * first, so that a small program's table does not wait behind a large
 * one named just before it; a path that has waited REC_UNWIND_WAIT_NS
 * goes first (one a slice), so that a stream of small new files cannot
 * hold a large one back for ever. A path not found in the recorder's
 * root (another root's file, or a deleted one) comes after the files
 * that are. Each build-id is tried once per recording, and what came of
 * it is counted and said at the end. A module of ABI 2.0 or 2.1 takes
 * no tables: one notice, then nothing.
 *
 * The path is as the sampled process saw it: in a container (another
 * mount namespace or root directory) the recorder may find nothing
 * there, or another file. Then the path is looked up again below the
 * root of each other root there is, through one of its processes'
 * /proc/PID/root (open_regular_in(): resolved inside that root); the
 * build-id says which file it is. That needs the right to look into
 * the process (ptrace read access: root, or CAP_SYS_PTRACE for another
 * user's processes); processes that deny it are left alone.
 */
#define _GNU_SOURCE	/* O_PATH */
#include <dirent.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "record.h"
#include "tool.h"
#include "cfi.h"
#include "rec.h"
#include "symbolize.h"
#include "util.h"

/* Most other roots looked into for one path. */
#define REC_UNWIND_ROOTS_MAX	256

static void off_notice(struct rec *r)
{
	struct rec_unwind *u = &r->uw;

	if (u->off)
		return;
	u->off = true;
	fprintf(r->err, "stackid: note: the module (ABI %u.%u) takes no "
		"unwind tables: stacks end at the first frame without a "
		"frame pointer\n", r->abi >> 16, r->abi & 0xffff);
}

/* The oldest waiting path's index, if it has waited @wait_ns; else 0. */
static size_t overdue(const struct rec_unwind *u, uint64_t wait_ns)
{
	size_t i, old = 0;

	for (i = 1; i < u->nq; i++)
		if (u->q[i].seq < u->q[old].seq)
			old = i;
	return now_ns() - u->q[old].queued_ns >= wait_ns ? old : 0;
}

void rec_unwind_note(struct rec *r, const void *rec)
{
	struct rec_unwind *u = &r->uw;
	struct stackid_build_id_path p;
	struct rec_unwind_item it;
	unsigned int before;
	struct stat st;

	if (r->o->no_unwind || u->off)
		return;
	if ((r->abi & 0xffff) < 2) {
		off_notice(r);
		return;
	}
	memcpy(&p, rec, sizeof(p));
	before = u->tried.n;
	intern_bytes(&u->tried, p.build_id, p.build_id_len);
	if (u->tried.n == before)
		return;			/* once per recording */
	if (u->nq >= REC_UNWIND_QUEUE_MAX) {
		u->not_tried++;
		return;
	}
	if (u->nq == u->qcap) {
		u->qcap = u->qcap ? u->qcap * 2 : 64;
		u->q = xreallocarray(u->q, u->qcap, sizeof(*u->q));
	}
	memcpy(it.id, p.build_id, sizeof(it.id));
	it.len = p.build_id_len;
	it.path = xstrdup((const char *)rec + sizeof(p));
	/* only an order: another root's file, or none, comes last */
	it.size = it.path[0] != '/' || stat(it.path, &st) ||
		  !S_ISREG(st.st_mode) ? UINT64_MAX : (uint64_t)st.st_size;
	it.seq = u->seq++;
	it.queued_ns = now_ns();
	rec_uq_push(u, &it);
}

bool rec_unwind_pending(const struct rec *r)
{
	return r->uw.nq;
}

/*
 * The roots other than ours that processes have, one process each, at
 * most REC_UNWIND_ROOTS_MAX; listed again when a path needs them and
 * the list is older than a second.
 */
static void list_roots(struct rec_unwind *u)
{
	struct stat ns, root, self_ns, self_root;
	char p[64];
	struct dirent *e;
	DIR *d;
	size_t i;

	if (u->roots_at && now_ns() - u->roots_at < 1000000000ULL)
		return;
	u->roots_at = now_ns();
	u->nroots = 0;
	if (stat("/proc/self/ns/mnt", &self_ns) || stat("/", &self_root))
		return;
	d = opendir("/proc");
	if (!d)
		return;
	if (!u->roots)
		u->roots = xcalloc(REC_UNWIND_ROOTS_MAX, sizeof(*u->roots));
	while ((e = readdir(d)) && u->nroots < REC_UNWIND_ROOTS_MAX) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid > 0x7fffffff)
			continue;
		snprintf(p, sizeof(p), "/proc/%ld/ns/mnt", pid);
		if (stat(p, &ns))
			continue;
		snprintf(p, sizeof(p), "/proc/%ld/root", pid);
		if (stat(p, &root))
			continue;
		if (ns.st_dev == self_ns.st_dev && ns.st_ino == self_ns.st_ino &&
		    root.st_dev == self_root.st_dev &&
		    root.st_ino == self_root.st_ino)
			continue;
		for (i = 0; i < u->nroots; i++)
			if (u->roots[i].ns_dev == ns.st_dev &&
			    u->roots[i].ns_ino == ns.st_ino &&
			    u->roots[i].dev == root.st_dev &&
			    u->roots[i].ino == root.st_ino)
				break;
		if (i < u->nroots)
			continue;
		u->roots[u->nroots++] = (struct rec_root){
			.ns_dev = ns.st_dev, .ns_ino = ns.st_ino,
			.dev = root.st_dev, .ino = root.st_ino, .pid = (int)pid,
		};
	}
	closedir(d);
}

/*
 * Compile @it's file into @t: at its path, or with @pid below that
 * process's root. -ENOENT: no such regular file; -ESTALE: another
 * build-id; cfi_compile_fd_id()'s errors.
 */
static int compile(const struct rec_unwind_item *it, int pid,
		   struct cfi_table *t)
{
	char p[32];
	int fd, root, ret;

	if (pid) {
		snprintf(p, sizeof(p), "/proc/%d/root", pid);
		root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -ENOENT;
		fd = open_regular_in(root, it->path);
		close(root);
	} else {
		fd = open_regular(it->path, true);
	}
	if (fd < 0)
		return -ENOENT;
	ret = cfi_compile_fd_id(fd, it->id, it->len, t);
	close(fd);
	return ret;
}

/* Load @t as build-id @id's table, count; 0 if it was loaded. */
static int load(struct rec *r, const struct cfi_table *t, const uint8_t *id,
		uint8_t len, const char *path)
{
	struct rec_unwind *u = &r->uw;
	struct stackid_unwind_table ut = { 0 };
	int ret;

	ut.rows = (uintptr_t)t->rows;
	ut.nr_rows = t->nr_rows;
	ut.build_id_len = len;
	memcpy(ut.build_id, id, len);
	while ((ret = r->ops->ioctl(r->fd, STACKID_IOC_ADD_UNWIND, &ut)) < 0 &&
	       errno == EINTR)
		;
	if (!ret) {
		u->loaded++;
		u->rows += t->nr_rows;
		u->bytes += (uint64_t)t->nr_rows * sizeof(*t->rows);
		return 0;
	}
	if (errno == EEXIST) {
		u->exists++;
	} else if (errno == ENOSPC) {
		u->nospc++;
	} else if (errno == ENOTTY) {
		off_notice(r);
	} else {
		if (!u->other_warned)
			fprintf(r->err, "stackid: warning: ADD_UNWIND for %s: "
				"%s (counted at the end)\n", path,
				strerror(errno));
		u->other_warned = true;
		u->other++;
	}
	return -1;
}

/* One path: compile, load, count. */
static void one(struct rec *r, const struct rec_unwind_item *it)
{
	struct rec_unwind *u = &r->uw;
	struct cfi_table t;
	size_t len = strlen(it->path), i;
	bool other = false;
	int ret, ret2;

	if (len > 10 && !strcmp(it->path + len - 10, " (deleted)")) {
		u->no_file++;
		return;
	}
	ret = compile(it, 0, &t);
	if (ret == -ENOENT || ret == -ESTALE) {
		/* not ours: another root's? */
		list_roots(u);
		for (i = 0; i < u->nroots; i++) {
			ret2 = compile(it, u->roots[i].pid, &t);
			if (ret2 == -ENOENT)
				continue;
			if (ret2 == -ESTALE) {
				ret = ret2;
				continue;
			}
			ret = ret2;
			other = !ret;
			break;
		}
	}
	if (ret == -ENOENT) {
		u->no_file++;
		return;
	}
	if (ret == -ESTALE) {
		u->mismatch++;
		return;
	}
	if (ret == -ENOMEM || ret == -EIO) {
		u->other++;
		return;
	}
	if (ret) {
		u->no_cfi++;
		return;
	}
	if (!load(r, &t, it->id, it->len, it->path))
		u->other_root += other;
	cfi_table_free(&t);
}

void rec_unwind_work(struct rec *r, uint64_t slice_ns)
{
	struct rec_unwind *u = &r->uw;
	uint64_t end = now_ns() + slice_ns;
	size_t first = u->nq ? overdue(u, r->o->unwind_wait_ns ?
				       r->o->unwind_wait_ns :
				       REC_UNWIND_WAIT_NS) : 0;

	while (u->nq && !u->off) {
		struct rec_unwind_item it = rec_uq_take(u, first);

		first = 0;
		one(r, &it);
		free(it.path);
		if (now_ns() >= end)
			break;
	}
	if (u->off) {
		/* an old module: what waits is not tried */
		while (u->nq)
			free(u->q[--u->nq].path);
	}
}

/*
 * Before sampling: the tables of the system libraries that nearly every
 * process maps. Otherwise a stack through them stops there until the
 * module names their paths and their tables are compiled, the first
 * tenths of a second of a recording or more (each sample's build-ids are
 * learnt from the stream). They are found as this process maps them (on
 * the same system, the very files other processes map), those it does
 * not map in libc's directory; a container's own copies still come from
 * the stream. Each is then tried once, as a path from the stream would
 * be, and the build-id decides which file it is.
 */
static const char *const preload_names[] = {
	"libc.so.6", "ld-linux-x86-64.so.2", "libm.so.6", "libgcc_s.so.1",
	"libstdc++.so.6",
};
#define PRELOAD_MAX	(sizeof(preload_names) / sizeof(preload_names[0]))

struct preload_list {
	char *path[PRELOAD_MAX];
};

static int preload_find(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct preload_list *l = arg;
	const char *base;
	size_t i;

	(void)size;
	if (!info->dlpi_name || info->dlpi_name[0] != '/')
		return 0;
	base = strrchr(info->dlpi_name, '/') + 1;
	for (i = 0; i < PRELOAD_MAX; i++)
		if (!strcmp(base, preload_names[i]) && !l->path[i])
			l->path[i] = xstrdup(info->dlpi_name);
	return 0;
}

/* @l's missing names, in the directory of libc's path */
static void preload_beside_libc(struct preload_list *l)
{
	const char *libc = l->path[0], *slash;
	size_t i, dir;

	if (!libc)
		return;
	slash = strrchr(libc, '/');
	dir = slash - libc + 1;
	for (i = 1; i < PRELOAD_MAX; i++) {
		if (l->path[i])
			continue;
		l->path[i] = xmalloc(dir + strlen(preload_names[i]) + 1);
		memcpy(l->path[i], libc, dir);
		strcpy(l->path[i] + dir, preload_names[i]);
	}
}

void rec_unwind_preload(struct rec *r)
{
	struct rec_unwind *u = &r->uw;
	struct preload_list l = { { NULL } };
	uint64_t t0 = now_ns();
	struct cfi_table t;
	unsigned int before;
	size_t i;
	int fd;

	if (!r->o->preload_unwind || r->o->no_unwind || u->off ||
	    (r->abi & 0xffff) < 2)
		return;
	dl_iterate_phdr(preload_find, &l);
	preload_beside_libc(&l);
	for (i = 0; i < PRELOAD_MAX; i++) {
		if (!l.path[i])
			continue;
		fd = open_regular(l.path[i], false);
		if (fd >= 0 && !cfi_compile_fd(fd, &t)) {
			before = u->tried.n;
			if (t.build_id_len)
				intern_bytes(&u->tried, t.build_id,
					     t.build_id_len);
			if (u->tried.n != before &&
			    !load(r, &t, t.build_id, t.build_id_len,
				  l.path[i]))
				u->preloaded++;
			cfi_table_free(&t);
		}
		if (fd >= 0)
			close(fd);
		free(l.path[i]);
	}
	u->preload_ns = now_ns() - t0;
}

void rec_unwind_print(struct rec *r)
{
	struct rec_unwind *u = &r->uw;
	uint64_t left = u->nq + u->not_tried;

	if (r->o->no_unwind || u->off || !u->tried.n)
		return;			/* nothing to say, or said */
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " rows, %" PRIu64
		" bytes", "unwind tables", u->loaded, u->rows, u->bytes);
	if (u->preloaded)
		fprintf(r->err, "; %" PRIu64 " of the system's before "
			"sampling, in %" PRIu64 " ms", u->preloaded,
			u->preload_ns / 1000000);
	if (u->other_root)
		fprintf(r->err, "; %" PRIu64 " found in another root",
			u->other_root);
	if (u->exists)
		fprintf(r->err, "; %" PRIu64 " loaded before", u->exists);
	fprintf(r->err, ")\n");
	if (u->no_file + u->mismatch + u->no_cfi + u->nospc + u->other + left)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (no file %" PRIu64
			", build-id mismatch %" PRIu64 ", no CFI %" PRIu64
			", no room %" PRIu64 ", other %" PRIu64
			", not tried %" PRIu64 ")\n", "unwind tables not loaded",
			u->no_file + u->mismatch + u->no_cfi + u->nospc +
			u->other + left, u->no_file, u->mismatch, u->no_cfi,
			u->nospc, u->other, left);
}

void rec_unwind_free(struct rec *r)
{
	struct rec_unwind *u = &r->uw;

	while (u->nq)
		free(u->q[--u->nq].path);
	free(u->q);
	free(u->roots);
	intern_free(&u->tried);
	memset(u, 0, sizeof(*u));
}
