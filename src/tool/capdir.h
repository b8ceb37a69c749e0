/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory of capture files for continuous recording
 * (`stackid record --rotate`): files named by their start time in UTC,
 *
 *	stackid-YYYYMMDDTHHMMSS.uuuuuuZ.cap
 *
 * so that name order is time order, each written as .NAME.RANDOM.tmp
 * (created 0600, O_EXCL, never through a symbolic link) and renamed when
 * closed, never over an existing file, so that a reader (stackid push, a
 * backup) never sees a file being written; the file and then the
 * directory are synced, so that a closed capture is on disk under its
 * final name. The directory must be root's or the caller's and not
 * writable by others unless sticky. The bound (at most @keep closed
 * files, at most @max_size bytes for all of them and the open one) is
 * kept by deleting the oldest closed files, before the bytes that would
 * exceed it are written; one that cannot be deleted still counts. Files
 * of earlier runs count too. A temporary left by a run that died (or by
 * a power loss) is recovered at start: cut to its whole records and
 * renamed, or deleted if it holds no record.
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
	int dfd;		/* the directory, or -1 */
	int fd;			/* the open file, or -1 */
	char *tmp, *final;	/* its paths */
	uint64_t ns;		/* the time its final name says */
	uint64_t cur;		/* its bytes */
	uint64_t deleted;	/* files deleted to keep the bound */
	uint64_t undeletable;	/* ... that could not be: still counted */
	uint64_t closed;	/* files this run closed */
};

/* fsync(), or a test's stand-in. */
extern int (*capdir_fsync)(int fd);

/*
 * Create @dir if missing, check it, recover temporaries of a run that
 * died, list its closed files.
 */
int capdir_init(struct capdir *d, const char *dir, unsigned int keep,
		uint64_t max_size, FILE *err);
/* Open the next file, named after @realtime_ns. 0 or EXIT_SYSTEM. */
int capdir_create(struct capdir *d, uint64_t realtime_ns);
/*
 * Make room for @n more bytes in the open file by deleting the oldest
 * closed files. false if even without them the bound is exceeded.
 */
bool capdir_room(struct capdir *d, uint64_t n);
/* fsync, close and rename the open file, fsync the directory; @keep. */
int capdir_close(struct capdir *d);
/* Close and delete the open file (nothing was written to it). */
void capdir_discard(struct capdir *d);
/* Free; a file still open is closed and left for the next start. */
void capdir_free(struct capdir *d);

#endif /* STACKID_TOOL_CAPDIR_H */
