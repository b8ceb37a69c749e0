/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory of capture files for continuous recording
 * (`stackid record --rotate`): files named by their start time in UTC,
 *
 *	stackid-YYYYMMDDTHHMMSS.uuuuuuZ.cap
 *
 * so that name order is time order, each written as .NAME.tmp and renamed
 * when closed, so that a reader (stackid push, a backup) never sees a
 * file being written. The bound (at most @keep closed files, at most
 * @max_size bytes for all of them and the open one) is kept by deleting
 * the oldest closed files, before the bytes that would exceed it are
 * written. Files of earlier runs count too; temporaries of a run that
 * died are deleted at start.
 */
#ifndef STACKID_TOOL_CAPDIR_H
#define STACKID_TOOL_CAPDIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CAPDIR_PREFIX	"stackid-"
#define CAPDIR_SUFFIX	".cap"

struct capdir {
	const char *dir;
	unsigned int keep;	/* 0: no limit */
	uint64_t max_size;	/* 0: no limit */
	FILE *err;
	char **names;		/* closed files, oldest first */
	uint64_t *sizes;
	unsigned int n, cap;
	uint64_t closed_bytes;
	int fd;			/* the open file, or -1 */
	char *tmp, *final;	/* its paths */
	uint64_t cur;		/* its bytes */
	uint64_t deleted;	/* files deleted to keep the bound */
	uint64_t closed;	/* files this run closed */
};

/* Create @dir if missing, list its closed files, drop stale temporaries. */
int capdir_init(struct capdir *d, const char *dir, unsigned int keep,
		uint64_t max_size, FILE *err);
/* Open the next file, named after @realtime_ns. 0 or EXIT_SYSTEM. */
int capdir_create(struct capdir *d, uint64_t realtime_ns);
/*
 * Make room for @n more bytes in the open file by deleting the oldest
 * closed files. false if even without them the bound is exceeded.
 */
bool capdir_room(struct capdir *d, uint64_t n);
/* Close, fsync and rename the open file; then apply @keep. */
int capdir_close(struct capdir *d);
void capdir_free(struct capdir *d);

#endif /* STACKID_TOOL_CAPDIR_H */
