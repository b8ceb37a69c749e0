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
#include "recorder.h"
#include "util.h"

#define READ_BUF	(1 << 20)
#define STATUS_NS	500000000ULL	/* live status refresh */

_Static_assert(READ_BUF >= STACKID_RECORD_MAX, "read buffer holds a record");

struct stackid_ring;

struct rec {
	const struct record_opts *o;
	const struct sysops *ops;
	FILE *err;
	const char *out_name;
	int fd, out;
	unsigned char *buf;
	size_t readlen;		/* bytes asked of each read() */
	uint64_t records, samples, paths, nbids, bytes, stale;
	uint64_t start, last_status;
	uint32_t abi, hz, seq;
	uint64_t run_id, drops;
	struct stackid_stats prev;	/* counters at the last END record */
	struct stackid_stats base;	/* counters before ENABLE */
	bool status, status_shown, warned;
	/* continuous mode */
	bool rotating;
	struct capdir cd;
	uint64_t next_rotate, file_records, lost;
	struct intern seen;	/* path records, whole */
	struct strbuf replay;	/* ... in order, for each new file */
	struct bidtab bids;	/* the rings' build-id tables */
	/* the rings, mapped; nrings 0: read() */
	struct stackid_ring *rings;
	unsigned int nrings;
	size_t map_len;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

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

/* rec_stats.c */
void rec_show_status(struct rec *r, uint64_t now);
void rec_clear_status(struct rec *r);
/*
 * Samples of this recording deferred to their task and not delivered (or
 * dropped) yet: how many more are in flight than at @base.
 */
int64_t rec_in_flight(const struct stackid_stats *st,
		      const struct stackid_stats *base);
/* The counters' change over the recording. */
void rec_print_stats(struct rec *r, const struct stackid_stats *st);

#endif /* STACKID_TOOL_REC_H */
