// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`: open /dev/stackid, check the ABI, configure, enable,
 * then poll() and read() whole records into the capture file until the
 * duration ends or SIGINT/SIGTERM, disable, drain, and print the
 * module's statistics.
 *
 * Signals: SIGINT and SIGTERM are blocked except inside ppoll(), and
 * their handler only sets a flag, so a stop request ends the wait at
 * once and is never lost between a check and the wait.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "record.h"
#include "tool.h"
#include "capture.h"
#include "recorder.h"
#include "util.h"

#define READ_BUF	(1 << 20)
#define STATUS_NS	500000000ULL	/* live status refresh */

_Static_assert(READ_BUF >= STACKID_RECORD_MAX, "read buffer holds a record");

static int sys_open(const char *path, int flags)
{
	return open(path, flags);
}

static int sys_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg);
}

const struct sysops real_sysops = {
	.open = sys_open,
	.ioctl = sys_ioctl,
	.read = read,
	.ppoll = ppoll,
	.close = close,
};

/* The one piece of global state: set by the signal handler only. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct rec {
	const struct record_opts *o;
	const struct sysops *ops;
	FILE *err;
	const char *out_name;
	int fd, out;
	unsigned char *buf;
	uint64_t records, samples, paths, bytes, stale;
	uint64_t start, last_status;
	uint32_t abi;
	bool status, status_shown, warned;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int sys_fail(struct rec *r, const char *what)
{
	fprintf(r->err, "stackid: %s: %s\n", what, strerror(errno));
	return EXIT_SYSTEM;
}

static int xioctl(struct rec *r, unsigned long req, void *arg,
		  const char *name)
{
	while (r->ops->ioctl(r->fd, req, arg) < 0) {
		if (errno != EINTR)
			return sys_fail(r, name);
	}
	return 0;
}

static int dev_open(struct rec *r)
{
	const char *dev = r->o->device ? r->o->device : STACKID_DEVICE;

	r->fd = r->ops->open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd >= 0)
		return 0;
	switch (errno) {
	case EPERM:
	case EACCES:
		fprintf(r->err, "stackid: %s: need root or CAP_PERFMON\n",
			dev);
		break;
	case EBUSY:
		fprintf(r->err, "stackid: %s: another reader has %s open\n",
			dev, dev);
		break;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		fprintf(r->err, "stackid: %s: module not loaded: "
			"modprobe stackid\n", dev);
		break;
	default:
		fprintf(r->err, "stackid: %s: %s\n", dev, strerror(errno));
	}
	return EXIT_SYSTEM;
}

static int configure(struct rec *r)
{
	struct stackid_filter flt = { .tgid = r->o->tgid };
	uint32_t ver = 0, hz = r->o->hz;
	int ret;

	ret = xioctl(r, STACKID_IOC_GET_VERSION, &ver, "GET_VERSION");
	if (ret)
		return ret;
	if (ver >> 16 != STACKID_ABI_MAJOR) {
		fprintf(r->err, "stackid: the module speaks ABI %u.%u, this "
			"stackid speaks %u.%u: install matching versions\n",
			ver >> 16, ver & 0xffff, STACKID_ABI_MAJOR,
			STACKID_ABI_MINOR);
		return EXIT_SYSTEM;
	}
	r->abi = ver;
	if (hz && r->ops->ioctl(r->fd, STACKID_IOC_SET_FREQ, &hz) < 0) {
		if (errno == EINVAL)
			fprintf(r->err, "stackid: %u Hz refused: the module "
				"takes 1..kernel.perf_event_max_sample_rate\n",
				hz);
		else
			sys_fail(r, "SET_FREQ");
		return EXIT_SYSTEM;
	}
	return xioctl(r, STACKID_IOC_SET_FILTER, &flt, "SET_FILTER");
	return 0;
}

static int open_output(struct rec *r)
{
	if (!strcmp(r->o->out, "-")) {
		r->out = STDOUT_FILENO;
		r->out_name = "standard output";
		return 0;
	}
	r->out_name = r->o->out;
	r->out = open(r->o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (r->out < 0) {
		fprintf(r->err, "stackid: %s: %s\n", r->o->out,
			strerror(errno));
		return EXIT_SYSTEM;
	}
	return 0;
}

static int write_all(struct rec *r, const void *p, size_t n)
{
	const unsigned char *b = p;
	ssize_t w;

	while (n) {
		w = write(r->out, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(r->err, "stackid: writing %s: %s\n",
				r->out_name, strerror(errno));
			return EXIT_SYSTEM;
		}
		b += w;
		n -= w;
		r->bytes += w;
	}
	return 0;
}

/* Count the records of one read(); warn once about a malformed one. */
static void count(struct rec *r, const unsigned char *p, size_t n)
{
	const struct stackid_record_hdr *h;
	const char *why = "split record";
	size_t off = 0;
	long sz;

	while (off < n) {
		sz = stackid_record_check_why(p + off, n - off, &why);
		if (sz <= 0) {
			if (!r->warned)
				fprintf(r->err, "stackid: warning: the device "
					"returned a bad record (%s); the "
					"capture will not read back\n", why);
			r->warned = true;
			return;
		}
		h = (const void *)(p + off);
		r->records++;
		if (h->type == STACKID_REC_SAMPLE)
			r->samples++;
		else if (h->type == STACKID_REC_BUILD_ID_PATH)
			r->paths++;
		off += sz;
	}
}

/*
 * Read until the device has nothing more (EAGAIN): into the capture, or
 * (@discard) nowhere, counting the records in r->stale.
 */
static int drain(struct rec *r, bool discard)
{
	ssize_t n;
	size_t off;
	long sz;
	int ret;

	for (;;) {
		n = r->ops->read(r->fd, r->buf, READ_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return sys_fail(r, "read");
		if (n == 0) {
			fprintf(r->err, "stackid: read: unexpected end of "
				"file\n");
			return EXIT_SYSTEM;
		}
		if (discard) {
			for (off = 0; off < (size_t)n; off += sz) {
				sz = stackid_record_check(r->buf + off,
							  n - off);
				if (sz <= 0)
					break;
				r->stale++;
			}
			continue;
		}
		count(r, r->buf, n);
		ret = write_all(r, r->buf, n);
		if (ret)
			return ret;
	}
}

static void show_status(struct rec *r, uint64_t now)
{
	double secs = (now - r->start) / 1e9;

	fprintf(r->err, "\rrecording: %7.1f s %10" PRIu64 " records %9.0f "
		"records/s ", secs, r->records,
		secs > 0 ? r->records / secs : 0.0);
	fflush(r->err);
	r->status_shown = true;
	r->last_status = now;
}

static void clear_status(struct rec *r)
{
	if (!r->status_shown)
		return;
	fprintf(r->err, "\r%60s\r", "");
	fflush(r->err);
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
		now = now_ns();
		if (stop_signal || (end && now >= end))
			return 0;
		if (r->status && now - r->last_status >= STATUS_NS)
			show_status(r, now);
		wait = STATUS_NS;
		if (r->status && r->last_status + STATUS_NS - now < wait)
			wait = r->last_status + STATUS_NS - now;
		if (end && end - now < wait)
			wait = end - now;
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		n = r->ops->ppoll(&pfd, 1, &ts, waitmask);
		if (n < 0 && errno != EINTR)
			return sys_fail(r, "poll");
		if (n > 0 && (pfd.revents & (POLLERR | POLLNVAL))) {
			fprintf(r->err, "stackid: poll: device error\n");
			return EXIT_SYSTEM;
		}
		if (n > 0) {
			ret = drain(r, false);
			if (ret)
				return ret;
		}
	}
}

/* Samples deferred to their task and not delivered (or dropped) yet. */
static uint64_t in_flight(const struct stackid_stats *st)
{
	if (st->nr <= STACKID_STAT_DEFERRED_DONE)
		return 0;
	return st->counters[STACKID_STAT_DEFERRED] -
	       st->counters[STACKID_STAT_DEFERRED_DONE];
}

static void print_stats(struct rec *r, const struct stackid_stats *st)
{
	uint64_t drops = 0, c;
	unsigned int i, nr = st->nr < STACKID_STAT_NR ? st->nr : STACKID_STAT_NR;
	const char *name;

	for (i = 0; i < nr; i++) {
		c = st->counters[i];
		name = stackid_stat_name(i);
		if (!name)
			continue;
		if (i >= STACKID_STAT_DROP_RING_FULL &&
		    i <= STACKID_STAT_DROP_NO_REGS)
			drops += c;
		/* samples, delivered and frames_valid always; others if set */
		if (c || i == STACKID_STAT_SAMPLES ||
		    i == STACKID_STAT_DELIVERED ||
		    i == STACKID_STAT_FRAMES_VALID)
			fprintf(r->err, "  %-24s %12" PRIu64 "\n", name, c);
	}
	if (nr > STACKID_STAT_DROP_NO_REGS) {
		uint64_t s = st->counters[STACKID_STAT_SAMPLES];
		uint64_t d = st->counters[STACKID_STAT_DELIVERED];

		uint64_t f = in_flight(st);
		bool ok = s == d + drops + f;

		fprintf(r->err, "  %-24s %12s  samples %" PRIu64 " %s "
			"delivered %" PRIu64 " + dropped %" PRIu64 "%s\n",
			"accounting", ok ? (f ? "in flight" : "ok") : "BROKEN",
			s, ok ? "==" : "!=", d, drops,
			f ? " + still in their task's context" : "");
		if (f)
			fprintf(r->err, "  %-24s %12" PRIu64 "  samples whose "
				"task has not returned to user space yet\n",
				"in flight", f);
		if (r->samples != d)
			fprintf(r->err, "  %-24s %12s  %" PRIu64 " samples "
				"read, %" PRIu64 " delivered\n", "samples read",
				"MISMATCH", r->samples, d);
	}
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " samples, %"
		PRIu64 " build-id paths)\n", "records written", r->records,
		r->samples, r->paths);
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%s)\n", "bytes written",
		r->bytes, r->out_name);
}

/* From ENABLE to DISABLE, with SIGINT/SIGTERM caught. */
static int record_enabled(struct rec *r)
{
	struct sigaction sa = { .sa_handler = on_signal }, oint, oterm, opipe;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct capture_hdr hdr;
	sigset_t block, old, wait;
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

	r->start = now_ns();
	ret = xioctl(r, STACKID_IOC_ENABLE, NULL, "ENABLE");
	if (!ret) {
		capture_hdr_init(&hdr, r->abi, r->start);
		ret = write_all(r, &hdr, sizeof(hdr));
		r->last_status = r->start;
		if (!ret)
			ret = loop(r, &wait);
		ret2 = xioctl(r, STACKID_IOC_DISABLE, NULL, "DISABLE");
		if (!ret)
			ret = ret2;
	}
	clear_status(r);

	/* a second signal is delivered here, to our handler, harmlessly */
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	sigaction(SIGPIPE, &opipe, NULL);
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
	};
	double secs;
	int ret, i;

	ret = dev_open(&r);
	if (ret)
		return ret;
	r.buf = xmalloc(READ_BUF);
	ret = configure(&r);
	if (!ret)
		ret = open_output(&r);
	/* records a previous reader left: not this capture's */
	if (!ret)
		ret = drain(&r, true);
	if (ret)
		goto out;
	if (r.stale)
		fprintf(err, "stackid: discarded %" PRIu64 " records left "
			"from before\n", r.stale);
	ret = xioctl(&r, STACKID_IOC_RESET_STATS, NULL, "RESET_STATS");
	if (ret)
		goto out;
	ret = record_enabled(&r);
	if (!ret)
		ret = drain(&r, false);
	if (!ret)
		ret = xioctl(&r, STACKID_IOC_GET_STATS, &st, "GET_STATS");
	/*
	 * Samples handed to their task's own context arrive once the task
	 * returns to user space, normally within a tick: wait up to a
	 * second for them, so that the capture is complete.
	 */
	for (i = 0; !ret && i < 50 && in_flight(&st); i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		ret = drain(&r, false);
		if (!ret)
			ret = xioctl(&r, STACKID_IOC_GET_STATS, &st,
				     "GET_STATS");
	}
	secs = (now_ns() - r.start) / 1e9;
	if (r.out >= 0 && r.out != STDOUT_FILENO && close(r.out) < 0 && !ret)
		ret = sys_fail(&r, r.out_name);
	r.out = -1;
	if (stop_signal)
		fprintf(err, "stackid: stopped by %s\n",
			stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
	if (!ret) {
		fprintf(err, "stackid: recorded %.1f s into %s\n", secs,
			r.out_name);
		print_stats(&r, &st);
	}
out:
	if (r.out >= 0 && r.out != STDOUT_FILENO)
		close(r.out);
	ops->close(r.fd);
	free(r.buf);
	return ret;
}
