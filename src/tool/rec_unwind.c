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
 * most REC_UNWIND_SLICE_NS at a time (a file is never cut: one takes
 * about 0.1 s for 7 MB of python3); each build-id is tried once per
 * recording, and what came of it is counted and said at the end. A
 * module of ABI 2.0 or 2.1 takes no tables: one notice, then nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "tool.h"
#include "cfi.h"
#include "rec.h"
#include "symbolize.h"
#include "util.h"

/* Most paths waiting at once; more are counted as not tried. */
#define REC_UNWIND_QUEUE_MAX	4096

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

void rec_unwind_note(struct rec *r, const void *rec)
{
	struct rec_unwind *u = &r->uw;
	struct stackid_build_id_path p;
	struct rec_unwind_item *it;
	unsigned int before;

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
	if (u->nq - u->qhead >= REC_UNWIND_QUEUE_MAX) {
		u->not_tried++;
		return;
	}
	if (u->nq == u->qcap) {
		/* room from the head first */
		if (u->qhead) {
			memmove(u->q, u->q + u->qhead,
				(u->nq - u->qhead) * sizeof(*u->q));
			u->nq -= u->qhead;
			u->qhead = 0;
		}
		if (u->nq == u->qcap) {
			u->qcap = u->qcap ? u->qcap * 2 : 64;
			u->q = xreallocarray(u->q, u->qcap, sizeof(*u->q));
		}
	}
	it = &u->q[u->nq++];
	memcpy(it->id, p.build_id, sizeof(it->id));
	it->len = p.build_id_len;
	it->path = xstrdup((const char *)rec + sizeof(p));
}

bool rec_unwind_pending(const struct rec *r)
{
	return r->uw.qhead < r->uw.nq;
}

/* One path: compile, load, count. */
static void one(struct rec *r, const struct rec_unwind_item *it)
{
	struct rec_unwind *u = &r->uw;
	struct stackid_unwind_table ut = { 0 };
	struct cfi_table t;
	size_t len = strlen(it->path);
	int fd, ret;

	if (len > 10 && !strcmp(it->path + len - 10, " (deleted)")) {
		u->no_file++;
		return;
	}
	fd = open_regular(it->path, true);
	if (fd < 0) {
		u->no_file++;
		return;
	}
	ret = cfi_compile_fd_id(fd, it->id, it->len, &t);
	close(fd);
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
	ut.rows = (uintptr_t)t.rows;
	ut.nr_rows = t.nr_rows;
	ut.build_id_len = it->len;
	memcpy(ut.build_id, it->id, it->len);
	while ((ret = r->ops->ioctl(r->fd, STACKID_IOC_ADD_UNWIND, &ut)) < 0 &&
	       errno == EINTR)
		;
	if (!ret) {
		u->loaded++;
		u->rows += t.nr_rows;
		u->bytes += (uint64_t)t.nr_rows * sizeof(*t.rows);
	} else if (errno == EEXIST) {
		u->exists++;
	} else if (errno == ENOSPC) {
		u->nospc++;
	} else if (errno == ENOTTY) {
		off_notice(r);
	} else {
		if (!u->other_warned)
			fprintf(r->err, "stackid: warning: ADD_UNWIND for %s: "
				"%s (counted at the end)\n", it->path,
				strerror(errno));
		u->other_warned = true;
		u->other++;
	}
	cfi_table_free(&t);
}

void rec_unwind_work(struct rec *r, uint64_t slice_ns)
{
	struct rec_unwind *u = &r->uw;
	uint64_t end = now_ns() + slice_ns;

	while (u->qhead < u->nq && !u->off) {
		struct rec_unwind_item *it = &u->q[u->qhead++];

		one(r, it);
		free(it->path);
		it->path = NULL;
		if (now_ns() >= end)
			break;
	}
	if (u->off) {
		/* an old module: what waits is not tried */
		for (; u->qhead < u->nq; u->qhead++)
			free(u->q[u->qhead].path);
	}
	if (u->qhead == u->nq)
		u->qhead = u->nq = 0;
}

void rec_unwind_print(struct rec *r)
{
	struct rec_unwind *u = &r->uw;
	uint64_t left = u->nq - u->qhead + u->not_tried;

	if (r->o->no_unwind || u->off || !u->tried.n)
		return;			/* nothing to say, or said */
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " rows, %" PRIu64
		" bytes", "unwind tables", u->loaded, u->rows, u->bytes);
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

	for (; u->qhead < u->nq; u->qhead++)
		free(u->q[u->qhead].path);
	free(u->q);
	intern_free(&u->tried);
	memset(u, 0, sizeof(*u));
}
