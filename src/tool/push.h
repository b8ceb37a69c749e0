/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `stackid push`: captures, symbolized here, as pprof to a Grafana
 * Pyroscope server's /ingest, with retries, and a bounded spool on disk
 * for what the server could not take while it was down.
 */
#ifndef STACKID_TOOL_PUSH_H
#define STACKID_TOOL_PUSH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

struct push_opts {
	const char *url;		/* server base URL */
	const char *name;		/* application name */
	const char **labels;		/* "k=v" each */
	unsigned int nlabels;
	unsigned int series_labels;	/* PPROF_L_*: sample labels */
	uint64_t step_s;		/* one profile per STEP s (>= 1) */
	const char *userpwd;		/* "user:password" (basic), or NULL */
	unsigned int retries;		/* more tries after the first */
	uint64_t backoff_ms;		/* first wait; doubles, up to 30 s */
	uint64_t timeout_ms;		/* per request */
	const char *spool;		/* spool directory, or NULL */
	uint64_t spool_max;		/* its bound in bytes */
	volatile sig_atomic_t *stop;	/* set: end waits and transfers */
	uint64_t sym_keep_ns;		/* symbols kept; 0: 10 minutes */
	struct report_opts ro;		/* how captures are symbolized */
};

struct push_stats {
	uint64_t sent, from_spool, retries, spooled, dropped, rejected,
		 failed, left;
	uint64_t symbol_reads;	/* build-ids looked up in files */
};

struct pusher;

/* NULL (and a message) if libcurl cannot start or the spool is unusable. */
struct pusher *pusher_new(const struct push_opts *o, FILE *err);
/*
 * Push one capture (one profile per step of it): 0 when each was sent or
 * spooled, EXIT_DATA for a bad capture, EXIT_SYSTEM when the server
 * refused one or one could not be spooled; PUSH_STOPPED when a signal
 * (opts.stop) came while the capture was read: none of it was sent or
 * spooled, it is to be pushed again.
 */
#define PUSH_STOPPED	(-1)
int pusher_capture(struct pusher *p, const char *path);
/*
 * Send what the spool holds, oldest first; each item on its own: one the
 * server refuses (4xx) is dropped and counted, one it cannot take now
 * (429, 5xx) stays, and the next is tried. Stops when the server cannot
 * be reached. Also lets symbols kept from earlier captures go once they
 * are 10 minutes old (push.c).
 */
void pusher_flush(struct pusher *p);
/* The counts; left: what the spool holds now. */
const struct push_stats *pusher_stats(struct pusher *p);
void pusher_free(struct pusher *p);

/*
 * What Pyroscope takes: an application name of [A-Za-z0-9_.-]; a label
 * K=V with K of [A-Za-z_][A-Za-z0-9_]*, not reserved (a leading "__",
 * service_name, app_name, pyroscope_spy, and the sample labels chosen in
 * @series), V valid UTF-8, not empty, without control characters or
 * , { } = " \. NULL if good, else why not.
 */
const char *push_check_name(const char *name);
const char *push_check_label(const char *kv, unsigned int series);

/* @n bytes of a server's answer, for a terminal: every control character,
 * C1 included, and every byte that is not valid UTF-8 as '?'. */
void push_clean_reply(struct strbuf *sb, const char *s, size_t n);

#endif /* STACKID_TOOL_PUSH_H */
