/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `stackid push`: captures, symbolized here, as pprof to a Grafana
 * Pyroscope server's /ingest, with retries, and a bounded spool on disk
 * for what the server could not take while it was down.
 */
#ifndef STACKID_TOOL_PUSH_H
#define STACKID_TOOL_PUSH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

struct push_opts {
	const char *url;		/* server base URL */
	const char *name;		/* application name */
	const char **labels;		/* "k=v" each */
	unsigned int nlabels;
	unsigned int retries;		/* more tries after the first */
	uint64_t backoff_ms;		/* first wait; doubles, up to 30 s */
	uint64_t timeout_ms;		/* per request */
	const char *spool;		/* spool directory, or NULL */
	uint64_t spool_max;		/* its bound in bytes */
	struct report_opts ro;		/* how captures are symbolized */
};

struct push_stats {
	uint64_t sent, from_spool, retries, spooled, dropped, rejected,
		 failed;
};

struct pusher;

/* NULL (and a message) if libcurl cannot start or the spool is unusable. */
struct pusher *pusher_new(const struct push_opts *o, FILE *err);
/*
 * Push one capture: 0 when sent or spooled, EXIT_DATA for a bad capture,
 * EXIT_SYSTEM when the server refused it or it could not be spooled.
 */
int pusher_capture(struct pusher *p, const char *path);
/* Send what the spool holds, oldest first, while the server takes it. */
void pusher_flush(struct pusher *p);
const struct push_stats *pusher_stats(const struct pusher *p);
void pusher_free(struct pusher *p);

#endif /* STACKID_TOOL_PUSH_H */
