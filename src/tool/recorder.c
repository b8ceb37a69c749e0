// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`: open /dev/stackid, check the ABI, configure, map the
 * per-CPU rings, enable, then poll() and copy whole records out of the
 * rings (read() where they cannot be mapped) into the capture file, in
 * blocks of up to 1 MiB, until the duration ends or SIGINT/SIGTERM,
 * disable, drain until the counters stand still, and print the module's
 * statistics: the change of each counter over the recording (RESET_STATS
 * is not used: it is refused while a sample of an earlier recording
 * still waits for its task).
 *
 * Signals: SIGINT and SIGTERM are blocked except inside ppoll(), and
 * their handler only sets a flag, so a stop request ends the wait at
 * once and is never lost between a check and the wait. ppoll() delivers
 * one only when it would wait: a recorder whose rings are always ready
 * (it cannot keep up) also takes a pending one, each time round.
 *
 * Every capture starts with an INFO record (wall clock, frequency, run
 * id, file number) and ends with an END record (close time, the
 * statistics counters accumulated while it was written).
 *
 * Continuous mode (--rotate, --dir): the same loop, and at each interval
 * the device is drained into the open file, which is then closed with
 * its END record and renamed (capdir.c); the next one starts at once, so
 * no record falls between two files, and the counters' deltas of all
 * files add up to the run's totals. Each file holds, before each sample,
 * the table, path and cgroup records that sample needs and the file does
 * not hold yet (rec_replay.c): each file decodes and symbolizes alone.
 * The disk bound is kept before each record is written (capdir_room()),
 * those records included; when even deleting every older file is not
 * enough, the open file is closed early, and a record that does not fit
 * an empty file either is counted as lost.
 *
 * Each file the module names by a path record gets its unwind table
 * loaded into the module, between polls (rec_unwind.c; --no-unwind-tables:
 * not).
 *
 * Nothing is lost silently: ring data that is not records (a reader
 * wrote into its mapping) is skipped up to the kernel's head, a record
 * that fails its check is skipped, both counted and marked in the
 * capture, and recording goes on. An error stops the recording, and the
 * file being written is kept as a capture of what was written whole.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "tool.h"
#include "capdir.h"
#include "rec.h"
#include "util.h"

/* The one piece of global state: set by the signal handler only. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * A stop request that ppoll() left pending: it delivers a signal only
 * when no ring is ready. A recorder that cannot keep up (a slow disk, a
 * starved CPU) always finds one ready, and would never stop.
 */
static void take_pending_stop(void)
{
	static const struct timespec zero;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &zero);
	if (sig > 0)
		stop_signal = sig;
}

/* Poll and read until the end of the duration or a stop signal. */
static int loop(struct rec *r, const sigset_t *waitmask)
{
	uint64_t end = r->o->duration_ns ? r->start + r->o->duration_ns : 0;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	uint64_t now, wait;
	struct timespec ts;
	int n, ret;

	for (;;) {
		bool busy = false;

		now = now_ns();
		if (!stop_signal)
			take_pending_stop();
		if (stop_signal || (end && now >= end))
			return 0;
		if (rec_unwind_pending(r)) {
			rec_unwind_work(r, REC_UNWIND_SLICE_NS);
			busy = rec_unwind_pending(r);
			now = now_ns();
		}
		if (r->status && now - r->last_status >= STATUS_NS)
			rec_show_status(r, now);
		wait = STATUS_NS;
		if (r->status && r->last_status + STATUS_NS - now < wait)
			wait = r->last_status + STATUS_NS - now;
		if (end && end - now < wait)
			wait = end - now;
		if (r->rotating && now >= r->next_rotate) {
			/* what is left goes into the next file */
			ret = rec_drain_some(r);
			if (!ret)
				ret = rec_next_file(r);
			if (ret)
				return ret;
			r->next_rotate += r->o->rotate_ns;
			if (r->next_rotate <= now)	/* we fell behind */
				r->next_rotate = now + r->o->rotate_ns;
			continue;
		}
		if (r->rotating && r->next_rotate - now < wait)
			wait = r->next_rotate - now;
		if (busy)
			wait = 0;	/* more files: look at the rings only */
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		n = r->ops->ppoll(&pfd, 1, &ts, waitmask);
		if (n < 0 && errno != EINTR)
			return rec_sys_fail(r, "poll");
		if (n > 0 && (pfd.revents & (POLLERR | POLLNVAL))) {
			fprintf(r->err, "stackid: poll: device error\n");
			return EXIT_SYSTEM;
		}
		if (n > 0) {
			ret = rec_drain_some(r);
			if (ret)
				return ret;
		}
	}
}

/* From ENABLE to DISABLE, with SIGINT/SIGTERM caught. */
static int record_enabled(struct rec *r)
{
	struct sigaction sa = { .sa_handler = on_signal }, oint, oterm, opipe;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t block, old, wait;
	uint64_t wall;
	int ret, ret2;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	wait = old;
	sigdelset(&wait, SIGINT);
	sigdelset(&wait, SIGTERM);
	stop_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	sigaction(SIGPIPE, &ign, &opipe);	/* EPIPE instead */

	/* a stop asked meanwhile waits, blocked, for the loop's first look */
	rec_unwind_preload(r);
	r->start = now_ns();
	wall = realtime_ns();
	r->run_id = wall ^ (uint64_t)getpid() << 40;
	r->next_rotate = r->start + r->o->rotate_ns;
	ret = rec_xioctl(r, STACKID_IOC_ENABLE, NULL, "ENABLE");
	if (!ret) {
		ret = rec_begin_file(r, r->start, wall);
		r->last_status = r->start;
		if (!ret)
			ret = loop(r, &wait);
		ret2 = rec_xioctl(r, STACKID_IOC_DISABLE, NULL, "DISABLE");
		if (!ret)
			ret = ret2;
	}
	rec_clear_status(r);

	/* a second signal is delivered here, to our handler, harmlessly */
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	sigaction(SIGPIPE, &opipe, NULL);
	return ret;
}

/*
 * After DISABLE: drain until the counters stand still, into @st. The
 * module counts a sample as delivered after it publishes it (on x86,
 * the only architecture it builds for, stores are seen in order), so a
 * drain that follows a GET_STATS reads every sample that GET_STATS
 * counted; when the GET_STATS after that drain shows no progress at all
 * (rec_progress(): no sample delivered, finished or dropped since), the
 * capture holds exactly the delivered samples. One drain before one
 * GET_STATS misses a sample that a task delivers between them. After
 * DISABLE only samples already handed to their tasks can still arrive,
 * at most the deferral slots' worth, so the passes that see progress
 * end; PASSES_MAX only bounds a module that misbehaves. Samples still in
 * their task's context arrive once the task returns to user space,
 * normally within a tick: waited for up to a second, so that the
 * capture is complete; those still in flight then are reported as such.
 */
#define PASSES_MAX	1000
#define SLEEPS_MAX	50

static int drain_final(struct rec *r, struct stackid_stats *st)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	unsigned int passes = 0, sleeps = 0;
	uint64_t was;
	int ret;

	ret = rec_xioctl(r, STACKID_IOC_GET_STATS, st, "GET_STATS");
	while (!ret) {
		was = rec_progress(st);
		ret = rec_drain(r, false);
		if (!ret)
			ret = rec_xioctl(r, STACKID_IOC_GET_STATS, st,
					 "GET_STATS");
		if (ret || ++passes >= PASSES_MAX)
			break;
		if (rec_progress(st) != was)
			continue;	/* something arrived: drain again */
		if (rec_own_in_flight(st, &r->base) <= 0 ||
		    ++sleeps > SLEEPS_MAX)
			break;
		nanosleep(&ts, NULL);
	}
	return ret;
}

int record_run(const struct record_opts *o, const struct sysops *ops,
	       FILE *err)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	struct rec r = {
		.o = o,
		.ops = ops,
		.err = err,
		.fd = -1,
		.out = -1,
		.status = o->status < 0 ? isatty(fileno(err)) : o->status,
		.rotating = o->dir != NULL,
		.readlen = READ_BUF,
		.cd = { .fd = -1, .dfd = -1 },
	};
	double secs;
	int ret;

	if (o->dir && o->max_size && o->max_size < REC_MAX_SIZE_MIN) {
		fprintf(err, "stackid: --max-size %" PRIu64 " is too small: a "
			"file needs %zu bytes for its header, its INFO and END "
			"records and the largest record\n", o->max_size,
			(size_t)REC_MAX_SIZE_MIN);
		return EXIT_USAGE;
	}
	ret = rec_dev_open(&r);
	if (ret)
		return ret;
	r.buf = xmalloc(READ_BUF);
	/* small reads under a small disk bound, so that a chunk fits */
	if (o->max_size && o->max_size / 8 < r.readlen)
		r.readlen = o->max_size / 8 > STACKID_RECORD_MAX ?
			    o->max_size / 8 : STACKID_RECORD_MAX;
	ret = rec_configure(&r);
	if (!ret)
		ret = rec_open_output(&r);
	if (!ret)
		rec_map_rings(&r);
	/* records a previous reader left: not this capture's */
	if (!ret)
		ret = rec_drain(&r, true);
	if (ret)
		goto out;
	if (r.stale)
		fprintf(err, "stackid: discarded %" PRIu64 " records left "
			"from before\n", r.stale);
	/* the counters now: everything printed is the change from here */
	r.prev.cpu = STACKID_ALL_CPUS;
	ret = rec_xioctl(&r, STACKID_IOC_GET_STATS, &r.prev, "GET_STATS");
	if (ret)
		goto out;
	r.base = r.prev;
	ret = record_enabled(&r);
	if (!ret)
		ret = drain_final(&r, &st);
	if (!ret)
		ret = rec_end_file(&r, &st);
	if (ret)
		rec_keep_on_error(&r);
	secs = (now_ns() - r.start) / 1e9;
	if (r.out >= 0 && r.out != STDOUT_FILENO && !r.rotating &&
	    close(r.out) < 0 && !ret)
		ret = rec_sys_fail(&r, r.out_name);
	r.out = -1;
	if (stop_signal)
		fprintf(err, "stackid: stopped by %s\n",
			stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
	if (!ret) {
		fprintf(err, "stackid: recorded %.1f s into %s\n", secs,
			r.out_name);
		rec_print_stats(&r, &st);
		rec_unwind_print(&r);
	}
out:
	rec_unmap_rings(&r);
	if (r.out >= 0 && r.out != STDOUT_FILENO && !r.rotating)
		close(r.out);
	capdir_free(&r.cd);
	rec_file_free(&r);
	rec_unwind_free(&r);
	ops->close(r.fd);
	free(r.buf);
	return ret;
}
