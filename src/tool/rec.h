/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `stackid record`, inside: the state of one recording and what its parts
 * give each other.
 *
 *   recorder.c    record_run(): the order of things, the poll loop,
 *                 signals
 *   rec_device.c  the device: open, ioctls, rings, draining them
 *   rec_file.c    the capture: header, INFO, END, records written within
 *                 the bound, continuous mode's files
 *   rec_stats.c   the status line and the statistics at the end
 *   rec_unwind.c  unwind tables for the files the module names
 */
#ifndef STACKID_TOOL_REC_H
#define STACKID_TOOL_REC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <stackid.h>
#include "bidtab.h"
#include "capdir.h"
#include "capture.h"
#include "deltas.h"
#include "recorder.h"
#include "util.h"

#define READ_BUF	(1 << 20)
#define STATUS_NS	500000000ULL	/* live status refresh */

_Static_assert(READ_BUF >= STACKID_RECORD_MAX, "read buffer holds a record");

struct stackid_ring;

/*
 * The least --max-size: a file's header, INFO, END and SKIPPED records
 * and the largest record. (A sample whose table, path and cgroup records
 * do not fit with it in an empty file is lost, and counted.)
 */
#define REC_MAX_SIZE_MIN	(sizeof(struct capture_hdr) + \
				 sizeof(struct capture_info) + \
				 sizeof(struct capture_end) + \
				 sizeof(struct capture_skipped) + \
				 STACKID_RECORD_MAX)

/* Path and cgroup records kept for continuous mode's files, at most. */
#define REPLAY_KEEP_MAX	(64u << 20)

/* What continuous mode's files need to read alone (rec_replay.c). */
struct replay {
	struct bidtab bids;	/* the rings' tables as the stream has them */
	uint32_t *gen;		/* by ring (65536): epochs seen */
	struct intern seen;	/* path and cgroup records kept, whole */
	struct intern keys;	/* 'b' + build-id, 'c' + cgroup id */
	struct strbuf *recs;	/* by keys' index: their records */
	unsigned int nrecs;
	uint64_t kept;		/* bytes in recs */
	uint64_t not_kept;	/* records not kept: REPLAY_KEEP_MAX */
	/* the open file */
	struct intern fdef;	/* table indexes it defines, this epoch */
	struct intern fkeys;	/* build-ids and cgroups it names */
};

/* A new file: it holds nothing yet. */
void replay_file_start(struct replay *rp);
/*
 * What the record @rec needs before it in the open file, appended to
 * @pre (records of abi_major @major); with @mark, they count as written.
 */
void replay_need(struct replay *rp, const void *rec, struct strbuf *pre,
		 bool mark, uint16_t major);
/* Take in the checked record @rec, @written into the open file or not. */
void replay_take(struct replay *rp, const void *rec, bool written);
void replay_free(struct replay *rp);

/* Unwind tables for the build-ids the module names (rec_unwind.c). */
#define REC_UNWIND_SLICE_NS	50000000ULL	/* between polls, at most */
/* Most paths waiting at once; more are counted as not tried. */
#define REC_UNWIND_QUEUE_MAX	4096
/* A path waiting longer is compiled next, whatever its size. */
#define REC_UNWIND_WAIT_NS	1000000000ULL

struct rec_unwind_item {
	uint8_t id[STACKID_BUILD_ID_SIZE];
	uint8_t len;
	char *path;
	uint64_t size;		/* of the file at path, as queued; or ~0 */
	uint64_t seq;		/* order of arrival */
	uint64_t queued_ns;	/* when */
};

/* A root other than the recorder's: one process that has it. */
struct rec_root {
	dev_t ns_dev, dev;	/* its mount namespace, its root directory */
	ino_t ns_ino, ino;
	int pid;
};

struct rec_unwind {
	bool off;		/* the module takes none: said once */
	bool other_warned;
	/* other roots, as last listed (at most once a second) */
	struct rec_root *roots;
	size_t nroots;
	uint64_t roots_at;
	struct intern tried;	/* build-ids, once each */
	/* waiting paths: a min-heap by (size, seq) */
	struct rec_unwind_item *q;
	size_t nq, qcap;
	uint64_t seq;		/* paths queued so far */
	/* tables loaded, their rows and bytes; not loaded, by reason */
	uint64_t loaded, rows, bytes, exists;
	uint64_t preloaded;	/* of loaded: before sampling started */
	uint64_t preload_ns;	/* the time that took */
	uint64_t other_root;	/* of loaded: found through another root */
	uint64_t no_file, mismatch, no_cfi, nospc, other, not_tried;
};

/*
 * The queue of waiting paths is a min-heap: the smallest file first, then
 * by arrival.
 */
static inline bool rec_uq_before(const struct rec_unwind_item *x,
				 const struct rec_unwind_item *y)
{
	return x->size != y->size ? x->size < y->size : x->seq < y->seq;
}

/* Add @it; the caller has made room for it (qcap > nq). */
static inline void rec_uq_push(struct rec_unwind *u,
			       const struct rec_unwind_item *it)
{
	size_t i = u->nq++, up;

	while (i && rec_uq_before(it, &u->q[up = (i - 1) / 2])) {
		u->q[i] = u->q[up];
		i = up;
	}
	u->q[i] = *it;
}

/* Take the item at @i out of the heap. */
static inline struct rec_unwind_item rec_uq_take(struct rec_unwind *u,
						 size_t i)
{
	struct rec_unwind_item out = u->q[i], last = u->q[--u->nq];
	size_t c, up;

	if (i == u->nq)
		return out;
	/* @last fills the hole: up while it goes before its parent... */
	while (i && rec_uq_before(&last, &u->q[up = (i - 1) / 2])) {
		u->q[i] = u->q[up];
		i = up;
	}
	/* ...else down while a child goes before it */
	while ((c = 2 * i + 1) < u->nq) {
		if (c + 1 < u->nq && rec_uq_before(&u->q[c + 1], &u->q[c]))
			c++;
		if (!rec_uq_before(&u->q[c], &last))
			break;
		u->q[i] = u->q[c];
		i = c;
	}
	u->q[i] = last;
	return out;
}

struct rec {
	const struct record_opts *o;
	const struct sysops *ops;
	FILE *err;
	const char *out_name;
	int fd, out;
	unsigned char *buf;
	size_t readlen;		/* bytes asked of each read() */
	unsigned int eios;	/* read()s in a row that failed with EIO */
	uint64_t records, samples, paths, nbids, bytes, stale;
	uint64_t start, last_status;
	uint32_t abi, hz, seq;
	uint64_t run_id, drops;
	struct stackid_stats prev;	/* counters at the last END record */
	struct stackid_stats base;	/* counters before ENABLE */
	bool status, status_shown, skip_warned;
	/* the open file: bytes written, of which whole records */
	uint64_t fbytes, fgood;
	struct strbuf pend;	/* whole records not written yet */
	struct strbuf pre;	/* what one record needs before it */
	/* data skipped: bytes, times (of which the module's, bytes unknown) */
	uint64_t skipped, skips, skips_module;
	/* continuous mode */
	bool rotating;
	struct capdir cd;
	uint64_t next_rotate, file_records, lost;
	struct replay rp;
	/* each ring's previous sample, and whether the file holds it */
	struct deltas deltas;
	/* delta samples that could not be rebuilt (not written) */
	uint64_t deltas_lost;
	bool delta_warned;
	/* the rings, mapped; nrings 0: read() */
	struct stackid_ring *rings;
	unsigned int nrings;
	size_t map_len;
	struct rec_unwind uw;
};

static inline uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* rec_device.c */
int rec_sys_fail(struct rec *r, const char *what);
int rec_xioctl(struct rec *r, unsigned long req, void *arg, const char *name);
int rec_dev_open(struct rec *r);
int rec_configure(struct rec *r);
bool rec_map_rings(struct rec *r);
void rec_unmap_rings(struct rec *r);
/*
 * Read until the device has nothing more (EAGAIN): into the capture, or
 * (@discard) nowhere, counting the records in r->stale.
 */
int rec_drain(struct rec *r, bool discard);
/*
 * Into the capture, what the device holds now, not more: each mapped
 * ring up to its head as read at the start, or at most
 * REC_DRAIN_READS_MAX read()s. The recording loop's (on a ready device
 * and before a rotation), which must come back to check for a stop even
 * when the device never runs dry.
 */
#define REC_DRAIN_READS_MAX	8
int rec_drain_some(struct rec *r);

/* rec_file.c */
int rec_open_output(struct rec *r);
int rec_write_all(struct rec *r, const void *p, size_t n);
/* Header, INFO and (continuous mode) what a new file starts with. */
int rec_begin_file(struct rec *r, uint64_t start, uint64_t wall);
/* END with the counters' delta since the last END; close (continuous). */
int rec_end_file(struct rec *r, const struct stackid_stats *st);
/* Continuous mode: close this file and start the next, now. */
int rec_next_file(struct rec *r);
/* Records read from the device, into the capture within the bound. */
int rec_emit(struct rec *r, const unsigned char *p, size_t n);
/* Count the records of @n bytes as stale. */
void rec_count_stale(struct rec *r, const unsigned char *p, size_t n);
/*
 * @bytes of ring @ring (CAPTURE_SKIP_NO_RING: not known) were skipped,
 * @why: counted, warned about once, and said in the capture.
 */
int rec_skipped(struct rec *r, uint32_t ring, uint64_t bytes, uint32_t flags,
		const char *why);
/*
 * After an error: make the open file a capture of what was written
 * whole (END if it fits), close it and (continuous mode) give it its
 * final name, and say so.
 */
void rec_keep_on_error(struct rec *r);
void rec_file_free(struct rec *r);

/* rec_unwind.c */
/* A checked STACKID_REC_BUILD_ID_PATH record: queue its file, once. */
void rec_unwind_note(struct rec *r, const void *rec);
bool rec_unwind_pending(const struct rec *r);
/* Compile and load queued files for about @slice_ns. */
void rec_unwind_work(struct rec *r, uint64_t slice_ns);
void rec_unwind_preload(struct rec *r);
/* The statistics' lines about them. */
void rec_unwind_print(struct rec *r);
void rec_unwind_free(struct rec *r);

/* rec_stats.c */
void rec_show_status(struct rec *r, uint64_t now);
void rec_clear_status(struct rec *r);
/*
 * Samples of this recording deferred to their task and not delivered (or
 * dropped) yet: how many more are in flight than at @base.
 */
int64_t rec_in_flight(const struct stackid_stats *st,
		      const struct stackid_stats *base);
int64_t rec_own_in_flight(const struct stackid_stats *st,
			  const struct stackid_stats *base);
uint64_t rec_progress(const struct stackid_stats *st);
/* The counters' change over the recording. */
void rec_print_stats(struct rec *r, const struct stackid_stats *st);

#endif /* STACKID_TOOL_REC_H */
