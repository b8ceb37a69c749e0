// SPDX-License-Identifier: GPL-2.0
/*
 * The capture directory of continuous recording (see capdir.h).
 *
 * The directory is checked once and then reached through a descriptor
 * (the *at() calls), so that it cannot be swapped for another after the
 * check. Files are created O_EXCL | O_NOFOLLOW under a name with a random
 * part: nothing planted there is followed, truncated or overwritten.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "capdir.h"
#include "capture.h"
#include "tool.h"
#include "util.h"

int (*capdir_fsync)(int fd) = fsync;

static int sys_fail(struct capdir *d, const char *what, const char *name)
{
	fprintf(d->err, "stackid: %s %s: %s\n", what, name, strerror(errno));
	return EXIT_SYSTEM;
}

static bool ours(const char *name)
{
	size_t n = strlen(name), p = strlen(CAPDIR_PREFIX),
	       s = strlen(CAPDIR_SUFFIX);

	return n > p + s && !strncmp(name, CAPDIR_PREFIX, p) &&
	       !strcmp(name + n - s, CAPDIR_SUFFIX) && !strchr(name, '/');
}

/*
 * .stackid-*.cap.RANDOM.tmp (and .stackid-*.cap.tmp of older versions):
 * what a run that died was writing. Its final name into @final.
 */
static bool stale_tmp(const char *name, struct strbuf *final)
{
	size_t n = strlen(name), t = strlen(".tmp");
	const char *dot;

	if (name[0] != '.' || n <= t + 1 || strcmp(name + n - t, ".tmp"))
		return false;
	sb_reset(final);
	sb_add(final, name + 1, n - 1 - t);
	if (!ours(final->buf)) {
		dot = strrchr(final->buf, '.');
		if (!dot)
			return false;
		final->len = dot - final->buf;
		final->buf[final->len] = 0;
	}
	return ours(final->buf);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *path(const struct capdir *d, const char *name)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%s/%s", d->dir, name);
	return sb_detach(&sb);
}

static void push_name(struct capdir *d, char *name, uint64_t size)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->names = xreallocarray(d->names, d->cap, sizeof(char *));
		d->sizes = xreallocarray(d->sizes, d->cap, sizeof(uint64_t));
	}
	d->names[d->n] = name;
	d->sizes[d->n++] = size;
	d->closed_bytes += size;
}

/* fsync() of the directory: a rename in it is on disk after this. */
static int sync_dir(struct capdir *d)
{
	if (capdir_fsync(d->dfd) < 0 && errno != EINVAL)
		return sys_fail(d, "syncing", d->dir);
	return 0;
}

/*
 * rename @from to @to in the directory, never over an existing file
 * (a planted one, or a capture of the same microsecond).
 */
static int rename_new(struct capdir *d, const char *from, const char *to)
{
	if (!renameat2(d->dfd, from, d->dfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a file system without RENAME_NOREPLACE */
	if (!faccessat(d->dfd, to, F_OK, AT_SYMLINK_NOFOLLOW))
		return errno = EEXIST, -1;
	return renameat(d->dfd, from, d->dfd, to);
}

/*
 * The bytes of whole, valid records at the start of capture @p (0: not
 * a capture), and whether any of them is the module's.
 */
static uint64_t valid_prefix(const char *p, bool *records)
{
	struct capture *c = xmalloc(sizeof(*c));
	const struct stackid_record_hdr *h;
	uint64_t off, end = 0;
	const void *rec;

	*records = false;
	if (!capture_open(c, p)) {
		end = sizeof(struct capture_hdr);
		while (capture_next(c, &rec, &off) > 0) {
			h = rec;
			end = off + h->size;
			if (h->type < CAPTURE_REC_FIRST)
				*records = true;
		}
	}
	capture_close(c);
	free(c);
	return end;
}

/*
 * A temporary left by a run that died (or a power loss before the
 * rename was on disk): if it holds records, cut it to its whole ones and
 * give it its final name; if not, delete it. Only regular files of ours.
 */
static void recover(struct capdir *d, const char *name, const char *final)
{
	char *p = path(d, name);
	struct stat st;
	bool records;
	uint64_t keep;
	int fd;

	if (fstatat(d->dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		goto out;
	fd = openat(d->dfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
		    O_NONBLOCK);
	if (fd < 0)
		goto out;
	keep = valid_prefix(p, &records);
	if (!records) {
		if (!unlinkat(d->dfd, name, 0))
			fprintf(d->err, "stackid: %s: deleted (a temporary "
				"without records)\n", p);
	} else if ((keep == (uint64_t)st.st_size || !ftruncate(fd, keep)) &&
		   !capdir_fsync(fd) && !rename_new(d, name, final)) {
		sync_dir(d);
		fprintf(d->err, "stackid: %s: recovered as %s (%" PRIu64
			" bytes of whole records)\n", p, final, keep);
	} else {
		fprintf(d->err, "stackid: %s: left as it is: %s\n", p,
			strerror(errno));
	}
	close(fd);
out:
	free(p);
}

/*
 * The directory must be the caller's or root's, and not writable by
 * others unless sticky (then they cannot delete or rename our files).
 */
static int check_dir(struct capdir *d)
{
	struct stat st;

	if (fstat(d->dfd, &st))
		return sys_fail(d, "checking", d->dir);
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		fprintf(d->err, "stackid: %s: owned by uid %u, not by root or "
			"by this user: refused as a capture directory\n",
			d->dir, (unsigned int)st.st_uid);
		return EXIT_SYSTEM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		fprintf(d->err, "stackid: %s: writable by others and not "
			"sticky: refused as a capture directory (chmod "
			"go-w)\n", d->dir);
		return EXIT_SYSTEM;
	}
	return 0;
}

int capdir_init(struct capdir *d, const char *dir, unsigned int keep,
		uint64_t max_size, FILE *err)
{
	struct strbuf final = { 0 };
	struct dirent *e;
	struct stat st;
	char **names = NULL;
	unsigned int n = 0, i;
	DIR *dp;
	int fd, ret;

	memset(d, 0, sizeof(*d));
	d->dir = dir;
	d->keep = keep;
	d->max_size = max_size;
	d->err = err;
	d->fd = -1;
	d->dfd = -1;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return sys_fail(d, "creating", dir);
	d->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dfd < 0)
		return sys_fail(d, "opening", dir);
	ret = check_dir(d);
	if (ret)
		return ret;
	fd = openat(d->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return sys_fail(d, "opening", dir);
	}
	while ((e = readdir(dp))) {
		if (stale_tmp(e->d_name, &final)) {
			recover(d, e->d_name, final.buf);
			continue;
		}
	}
	rewinddir(dp);
	while ((e = readdir(dp))) {
		if (!ours(e->d_name))
			continue;
		names = xreallocarray(names, n + 1, sizeof(char *));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(dp);
	sb_free(&final);
	if (n)		/* qsort(NULL, 0) is undefined */
		qsort(names, n, sizeof(char *), by_name);
	for (i = 0; i < n; i++) {
		if (!fstatat(d->dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode))
			push_name(d, names[i], st.st_size);
		else
			free(names[i]);
	}
	free(names);
	return 0;
}

/* stackid-YYYYMMDDTHHMMSS.uuuuuuZ.cap of @ns */
static void final_name(struct strbuf *sb, uint64_t ns)
{
	time_t secs = ns / 1000000000;
	struct tm tm;
	char stamp[32];

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	sb_reset(sb);
	sb_addf(sb, CAPDIR_PREFIX "%s.%06uZ" CAPDIR_SUFFIX, stamp,
		(unsigned int)(ns % 1000000000 / 1000));
}

int capdir_create(struct capdir *d, uint64_t realtime_ns)
{
	struct strbuf sb = { 0 };
	uint32_t rnd;
	int i;

	for (i = 0; i < 1000; i++, realtime_ns += 1000) {
		final_name(&sb, realtime_ns);
		if (faccessat(d->dfd, sb.buf, F_OK, AT_SYMLINK_NOFOLLOW))
			break;
	}
	d->ns = realtime_ns;
	free(d->final);
	d->final = path(d, sb.buf);
	for (i = 0; i < 100; i++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (uint32_t)(realtime_ns ^ getpid()) + i;
		free(d->tmp);
		sb_reset(&sb);
		sb_addf(&sb, "%s/.%s.%08x.tmp", d->dir,
			strrchr(d->final, '/') + 1, rnd);
		d->tmp = sb_detach(&sb);
		/* the owner alone: every user's processes, paths, cgroups */
		d->fd = openat(d->dfd, strrchr(d->tmp, '/') + 1,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			       O_CLOEXEC, 0600);
		if (d->fd >= 0 || errno != EEXIST)
			break;
	}
	sb_free(&sb);
	if (d->fd < 0)
		return sys_fail(d, "creating", d->tmp);
	d->cur = 0;
	return 0;
}

/*
 * Delete the oldest closed file. One that cannot be deleted leaves the
 * list (it is not tried again) but its bytes still count.
 */
static void delete_oldest(struct capdir *d)
{
	char *p = path(d, d->names[0]);

	if (unlinkat(d->dfd, d->names[0], 0) < 0 && errno != ENOENT) {
		fprintf(d->err, "stackid: deleting %s: %s\n", p,
			strerror(errno));
		d->undeletable++;
	} else {
		d->closed_bytes -= d->sizes[0];
		d->deleted++;
	}
	free(p);
	free(d->names[0]);
	d->n--;
	memmove(d->names, d->names + 1, d->n * sizeof(char *));
	memmove(d->sizes, d->sizes + 1, d->n * sizeof(uint64_t));
}

bool capdir_room(struct capdir *d, uint64_t n)
{
	if (!d->max_size)
		return true;
	while (d->n && d->closed_bytes + d->cur + n > d->max_size)
		delete_oldest(d);
	return d->closed_bytes + d->cur + n <= d->max_size;
}

int capdir_close(struct capdir *d)
{
	const char *tmp, *final;
	struct strbuf sb = { 0 };
	int ret = 0, i;

	if (d->fd < 0)
		return 0;
	if (capdir_fsync(d->fd) < 0)
		ret = sys_fail(d, "syncing", d->tmp);
	if (close(d->fd) < 0 && !ret)
		ret = sys_fail(d, "closing", d->tmp);
	d->fd = -1;
	tmp = strrchr(d->tmp, '/') + 1;
	for (i = 0; !ret && i < 1000; i++) {
		final = strrchr(d->final, '/') + 1;
		if (!rename_new(d, tmp, final))
			break;
		if (errno != EEXIST) {
			ret = sys_fail(d, "renaming", d->tmp);
			break;
		}
		/* taken meanwhile: the next microsecond */
		d->ns += 1000;
		final_name(&sb, d->ns);
		free(d->final);
		d->final = path(d, sb.buf);
	}
	sb_free(&sb);
	if (!ret && i == 1000)
		ret = sys_fail(d, "renaming", d->tmp);
	if (!ret)
		ret = sync_dir(d);
	if (ret)
		return ret;
	push_name(d, xstrdup(strrchr(d->final, '/') + 1), d->cur);
	d->cur = 0;
	d->closed++;
	while (d->keep && d->n > d->keep)
		delete_oldest(d);
	return 0;
}

void capdir_discard(struct capdir *d)
{
	if (d->fd < 0)
		return;
	close(d->fd);
	d->fd = -1;
	unlinkat(d->dfd, strrchr(d->tmp, '/') + 1, 0);
}

void capdir_free(struct capdir *d)
{
	unsigned int i;

	/* what is still open is kept: the next start recovers it */
	if (d->fd >= 0)
		close(d->fd);
	if (d->dir && d->dfd >= 0)
		close(d->dfd);
	for (i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	free(d->sizes);
	free(d->tmp);
	free(d->final);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->dfd = -1;
}
