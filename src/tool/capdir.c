// SPDX-License-Identifier: GPL-2.0
/*
 * The capture directory of continuous recording (see capdir.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "capdir.h"
#include "tool.h"
#include "util.h"

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
	       !strcmp(name + n - s, CAPDIR_SUFFIX);
}

/* .stackid-*.cap.tmp: what a run that died was writing */
static bool stale_tmp(const char *name)
{
	size_t n = strlen(name), s = strlen(CAPDIR_SUFFIX ".tmp");

	return name[0] == '.' && n > s + 1 &&
	       !strncmp(name + 1, CAPDIR_PREFIX, strlen(CAPDIR_PREFIX)) &&
	       !strcmp(name + n - s, CAPDIR_SUFFIX ".tmp");
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

int capdir_init(struct capdir *d, const char *dir, unsigned int keep,
		uint64_t max_size, FILE *err)
{
	struct dirent *e;
	struct stat st;
	char **names = NULL;
	unsigned int n = 0, i;
	DIR *dp;

	memset(d, 0, sizeof(*d));
	d->dir = dir;
	d->keep = keep;
	d->max_size = max_size;
	d->err = err;
	d->fd = -1;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return sys_fail(d, "creating", dir);
	dp = opendir(dir);
	if (!dp)
		return sys_fail(d, "opening", dir);
	while ((e = readdir(dp))) {
		char *p;

		if (stale_tmp(e->d_name)) {
			p = path(d, e->d_name);
			unlink(p);
			free(p);
			continue;
		}
		if (!ours(e->d_name))
			continue;
		names = xreallocarray(names, n + 1, sizeof(char *));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(char *), by_name);
	for (i = 0; i < n; i++) {
		char *p = path(d, names[i]);

		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			push_name(d, names[i], st.st_size);
		else
			free(names[i]);
		free(p);
	}
	free(names);
	return 0;
}

int capdir_create(struct capdir *d, uint64_t realtime_ns)
{
	struct strbuf sb = { 0 };
	time_t secs;
	struct tm tm;
	char stamp[32];
	int i;

	for (i = 0; i < 1000; i++, realtime_ns += 1000) {
		secs = realtime_ns / 1000000000;
		gmtime_r(&secs, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
		sb_reset(&sb);
		sb_addf(&sb, "%s/" CAPDIR_PREFIX "%s.%06uZ" CAPDIR_SUFFIX,
			d->dir, stamp,
			(unsigned int)(realtime_ns % 1000000000 / 1000));
		if (access(sb.buf, F_OK))
			break;
	}
	free(d->final);
	d->final = sb_detach(&sb);
	free(d->tmp);
	sb_adds(&sb, d->dir);
	sb_adds(&sb, "/.");
	sb_adds(&sb, strrchr(d->final, '/') + 1);
	sb_adds(&sb, ".tmp");
	d->tmp = sb_detach(&sb);
	d->fd = open(d->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (d->fd < 0)
		return sys_fail(d, "creating", d->tmp);
	d->cur = 0;
	return 0;
}

static void delete_oldest(struct capdir *d)
{
	char *p = path(d, d->names[0]);

	if (unlink(p) < 0 && errno != ENOENT)
		fprintf(d->err, "stackid: deleting %s: %s\n", p,
			strerror(errno));
	free(p);
	d->closed_bytes -= d->sizes[0];
	free(d->names[0]);
	d->n--;
	memmove(d->names, d->names + 1, d->n * sizeof(char *));
	memmove(d->sizes, d->sizes + 1, d->n * sizeof(uint64_t));
	d->deleted++;
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
	int ret = 0;

	if (d->fd < 0)
		return 0;
	if (fdatasync(d->fd) < 0)
		ret = sys_fail(d, "syncing", d->tmp);
	if (close(d->fd) < 0 && !ret)
		ret = sys_fail(d, "closing", d->tmp);
	d->fd = -1;
	if (!ret && rename(d->tmp, d->final) < 0)
		ret = sys_fail(d, "renaming", d->tmp);
	if (ret)
		return ret;
	push_name(d, xstrdup(strrchr(d->final, '/') + 1), d->cur);
	d->cur = 0;
	d->closed++;
	while (d->keep && d->n > d->keep)
		delete_oldest(d);
	return 0;
}

void capdir_free(struct capdir *d)
{
	unsigned int i;

	if (d->fd >= 0) {
		close(d->fd);
		unlink(d->tmp);
	}
	for (i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	free(d->sizes);
	free(d->tmp);
	free(d->final);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}
