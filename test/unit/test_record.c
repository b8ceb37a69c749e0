// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of `stackid record` (src/tool/recorder.c) against a
 * fake /dev/stackid behind struct sysops: error messages, the ioctl
 * sequence, the capture written (header + the records exactly as read),
 * stale records, SIGINT, the duration, statistics and the status line.
 *
 * Output is TAP; the exit status is non-zero when a test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tool/tool.h"
#include "tool/recorder.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "tap.h"

#define FAKE_FD 1000
/* "%.*s": the first line of @s */
#define LINE(s)	((int)strcspn(s, "\n")), (s)

/* The fake device: test state, reset by fake_reset(). */
static struct fake {
	int open_errno;
	int read_errno;		/* after the live data: fail reads */
	uint32_t version;
	uint32_t max_hz;
	uint32_t hz;
	struct stackid_filter flt;
	bool enabled, disabled;
	unsigned long log[32];	/* ioctl requests, in order */
	int nlog;
	struct capgen stale, live, late;	/* record bytes, no header */
	size_t stale_pos, live_pos, late_pos, released;
	size_t chunk;		/* most bytes per read */
	int polls, sigint_at;	/* raise SIGINT in ppoll number sigint_at */
	uint64_t stats[STACKID_STAT_NR];
	bool closed;
} fk;

static void fake_reset(void)
{
	cg_free(&fk.stale);
	cg_free(&fk.live);
	cg_free(&fk.late);
	memset(&fk, 0, sizeof(fk));
	fk.version = STACKID_ABI_VERSION;
	fk.max_hz = 100000;
	fk.chunk = 1 << 20;
}

static int fake_open(const char *path, int flags)
{
	if (strcmp(path, STACKID_DEVICE) || !(flags & O_NONBLOCK))
		return errno = EINVAL, -1;
	if (fk.open_errno)
		return errno = fk.open_errno, -1;
	return FAKE_FD;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	if (fd != FAKE_FD)
		return errno = EBADF, -1;
	if (fk.nlog < 32)
		fk.log[fk.nlog++] = req;
	switch (req) {
	case STACKID_IOC_GET_VERSION:
		*(uint32_t *)arg = fk.version;
		return 0;
	case STACKID_IOC_SET_FREQ:
		if (!*(uint32_t *)arg || *(uint32_t *)arg > fk.max_hz)
			return errno = EINVAL, -1;
		fk.hz = *(uint32_t *)arg;
		return 0;
	case STACKID_IOC_SET_FILTER:
		fk.flt = *(struct stackid_filter *)arg;
		return 0;
	case STACKID_IOC_RESET_STATS:
		return 0;
	case STACKID_IOC_ENABLE:
		fk.enabled = true;
		return 0;
	case STACKID_IOC_DISABLE:
		fk.enabled = false;
		fk.disabled = true;
		fk.released = fk.live.len;
		return 0;
	case STACKID_IOC_GET_STATS: {
		struct stackid_stats *st = arg;

		if (st->cpu != STACKID_ALL_CPUS)
			return errno = EINVAL, -1;
		st->nr = STACKID_STAT_NR;
		memset(st->counters, 0, sizeof(st->counters));
		memcpy(st->counters, fk.stats, sizeof(fk.stats));
		return 0;
	}
	default:
		return errno = ENOTTY, -1;
	}
}

/* Whole records from @g at *@pos, up to @lim, at most @len bytes. */
static ssize_t take(struct capgen *g, size_t *pos, size_t lim, void *buf,
		    size_t len)
{
	size_t n = 0;
	struct stackid_record_hdr h;

	if (len > fk.chunk)
		len = fk.chunk;
	while (*pos + n < lim) {
		memcpy(&h, g->buf + *pos + n, sizeof(h));
		if (n + h.size > len)
			break;
		n += h.size;
	}
	if (!n && *pos < lim)
		return errno = EINVAL, -1;	/* buffer too small */
	if (!n)
		return errno = EAGAIN, -1;
	memcpy(buf, g->buf + *pos, n);
	*pos += n;
	return n;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	if (fd != FAKE_FD)
		return errno = EBADF, -1;
	if (fk.stale_pos < fk.stale.len)
		return take(&fk.stale, &fk.stale_pos, fk.stale.len, buf, len);
	if (fk.live_pos < fk.released)
		return take(&fk.live, &fk.live_pos, fk.released, buf, len);
	if (fk.disabled && fk.late_pos < fk.late.len)
		return take(&fk.late, &fk.late_pos, fk.late.len, buf, len);
	if (fk.read_errno && fk.live_pos == fk.live.len)
		return errno = fk.read_errno, -1;
	return errno = EAGAIN, -1;
}

/* Each poll releases one more record of the live data. */
static int fake_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t,
		      const sigset_t *mask)
{
	struct timespec nap = { 0, 1000000 };
	struct stackid_record_hdr h;
	sigset_t old;

	if (n != 1 || fds[0].fd != FAKE_FD || !(fds[0].events & POLLIN) ||
	    !t || t->tv_sec > 1 || !mask)
		abort();
	fk.polls++;
	fds[0].revents = 0;
	if (fk.sigint_at && fk.polls == fk.sigint_at) {
		sigprocmask(SIG_SETMASK, mask, &old);
		raise(SIGINT);		/* delivered here, or not at all */
		sigprocmask(SIG_SETMASK, &old, NULL);
		return errno = EINTR, -1;
	}
	if (fk.enabled && fk.released < fk.live.len) {
		memcpy(&h, fk.live.buf + fk.released, sizeof(h));
		fk.released += h.size;
	}
	if (fk.live_pos < fk.released || (fk.read_errno &&
					  fk.live_pos == fk.live.len)) {
		fds[0].revents = POLLIN;
		return 1;
	}
	if (t->tv_sec == 0 && t->tv_nsec < nap.tv_nsec)
		nap = *t;
	nanosleep(&nap, NULL);
	return 0;
}

static int fake_close(int fd)
{
	if (fd != FAKE_FD)
		abort();
	fk.closed = true;
	return 0;
}

static const struct sysops fake_ops = {
	.open = fake_open,
	.ioctl = fake_ioctl,
	.read = fake_read,
	.ppoll = fake_ppoll,
	.close = fake_close,
};

struct run {
	int status;
	char *err;
	unsigned char *cap;
	size_t caplen;
	double secs;
};

static char capfile[] = "/tmp/stackid-rec.XXXXXX";

static void run(struct record_opts *o, struct run *r)
{
	struct timespec a, b;
	size_t elen;
	FILE *err = open_memstream(&r->err, &elen);
	FILE *f;

	unlink(capfile);
	if (!o->out)
		o->out = capfile;
	clock_gettime(CLOCK_MONOTONIC, &a);
	r->status = record_run(o, &fake_ops, err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fclose(err);
	r->secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	r->cap = NULL;
	r->caplen = 0;
	f = fopen(o->out, "r");
	if (f) {
		r->cap = malloc(1 << 20);
		r->caplen = fread(r->cap, 1, 1 << 20, f);
		fclose(f);
	}
}

static void run_free(struct run *r)
{
	free(r->err);
	free(r->cap);
	memset(r, 0, sizeof(*r));
}

static void test_open_errors(void)
{
	static const struct {
		int err;
		const char *msg;
	} cases[] = {
		{ EPERM, "stackid: /dev/stackid: need root or CAP_PERFMON\n" },
		{ EACCES, "stackid: /dev/stackid: need root or CAP_PERFMON\n" },
		{ EBUSY, "stackid: /dev/stackid: another reader has "
			 "/dev/stackid open\n" },
		{ ENOENT, "stackid: /dev/stackid: module not loaded: "
			  "modprobe stackid\n" },
		{ EIO, "stackid: /dev/stackid: Input/output error\n" },
	};
	struct record_opts o = { 0 };
	struct run r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fake_reset();
		fk.open_errno = cases[i].err;
		o.out = NULL;
		run(&o, &r);
		tap_ok(r.status == EXIT_SYSTEM && !strcmp(r.err, cases[i].msg)
		       && !r.cap, "open fails with %s: exit 2, '%.*s', no "
		       "capture file", strerror(cases[i].err),
		       (int)strlen(cases[i].msg) - 1, cases[i].msg);
		run_free(&r);
	}
}

static void test_config_errors(void)
{
	struct record_opts o = { 0 };
	struct run r;

	fake_reset();
	fk.version = 2 << 16 | 3;
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "module speaks ABI "
						 "2.3") && !r.cap && fk.closed,
	       "ABI major 2 refused, nothing written (%.*s)", LINE(r.err));
	run_free(&r);

	fake_reset();
	fk.version = STACKID_ABI_VERSION + 7;
	fk.live = (struct capgen){ 0 };
	o.duration_ns = 1000000;
	o.out = NULL;
	run(&o, &r);
	tap_ok(r.status == 0, "a newer minor ABI is fine");
	run_free(&r);

	fake_reset();
	o.hz = 200000;
	o.out = NULL;
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "200000 Hz refused")
	       && !r.cap, "SET_FREQ refused: exit 2 (%.*s)", LINE(r.err));
	run_free(&r);
}

static bool logged(const unsigned long *want, int n)
{
	return fk.nlog == n && !memcmp(fk.log, want, n * sizeof(*want));
}

static void test_record(void)
{
	static const unsigned long seq[] = {
		STACKID_IOC_GET_VERSION, STACKID_IOC_SET_FREQ,
		STACKID_IOC_SET_FILTER, STACKID_IOC_RESET_STATS,
		STACKID_IOC_ENABLE, STACKID_IOC_DISABLE,
		STACKID_IOC_GET_STATS,
	};
	static const unsigned char id[20] = { 9, 8, 7 };
	struct record_opts o = { .hz = 99, .tgid = 1234 };
	struct stackid_frame f[2];
	struct capture_hdr h;
	struct capgen demo = { 0 }, all = { 0 };
	struct timespec ts;
	struct sigaction sa;
	sigset_t mask;
	uint64_t now;
	struct run r;
	size_t hl = sizeof(h);
	struct report_opts ro = { .format = FORMAT_FOLDED };
	struct capture *c;
	FILE *dn;
	int st;

	fake_reset();
	/* two stale records, the demo's records live, one after DISABLE */
	f[0] = cg_valid(id, 20, 0x10);
	f[1] = cg_ip(0x20, STACKID_IP_NO_VMA);
	cg_sample(&fk.stale, 1, 0, 1, 1, "old", 0, 2, f);
	cg_sample(&fk.stale, 2, 0, 1, 1, "old", 0, 1, f);
	cg_demo(&demo);
	cg_room(&fk.live, demo.len - hl);
	memcpy(fk.live.buf, demo.buf + hl, demo.len - hl);
	cg_sample(&fk.late, 5, 0, 1, 1, "late", STACKID_SF_USER, 2, f);
	fk.chunk = 300;		/* several reads per poll */
	fk.sigint_at = 30;
	fk.stats[STACKID_STAT_SAMPLES] = 15;
	fk.stats[STACKID_STAT_DELIVERED] = 9;
	fk.stats[STACKID_STAT_DROP_RING_FULL] = 4;
	fk.stats[STACKID_STAT_DROP_NO_MM] = 2;
	fk.stats[STACKID_STAT_FRAMES_VALID] = 11;
	fk.stats[STACKID_STAT_PATHS] = 3;
	fk.stats[STACKID_STAT_IP_FIRST + STACKID_IP_NO_VMA] = 3;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	run(&o, &r);

	tap_ok(r.status == 0, "record: exit 0 when stopped by SIGINT");
	tap_ok(logged(seq, ARRAY_SIZE(seq)), "ioctls: GET_VERSION, SET_FREQ, "
	       "SET_FILTER, RESET_STATS, ENABLE, DISABLE, GET_STATS");
	tap_ok(fk.hz == 99 && fk.flt.tgid == 1234 && !fk.flt.__pad &&
	       !fk.enabled && fk.closed, "99 Hz, tgid 1234, disabled, closed");
	memset(&h, 0, sizeof(h));
	if (r.caplen >= hl)
		memcpy(&h, r.cap, hl);
	tap_ok(r.caplen >= hl && !memcmp(h.magic, "STACKIDC", 8) &&
	       h.version == 1 && h.abi_version == STACKID_ABI_VERSION &&
	       h.hdr_size == 32 && !h.reserved && h.start_ns >= now &&
	       h.start_ns < now + 10000000000ULL,
	       "capture header: magic, version 1, ABI, start time, size 32");
	cg_room(&all, fk.live.len + fk.late.len);
	memcpy(all.buf, fk.live.buf, fk.live.len);
	memcpy(all.buf + fk.live.len, fk.late.buf, fk.late.len);
	tap_ok(r.caplen == hl + all.len && !memcmp(r.cap + hl, all.buf,
						   all.len),
	       "the records exactly as read, the drained one after DISABLE "
	       "too (%zu bytes)", r.caplen);
	tap_ok(strstr(r.err, "discarded 2 records left from before") &&
	       !memmem(r.cap, r.caplen, "old", 3),
	       "stale records discarded");
	tap_ok(strstr(r.err, "stopped by SIGINT") != NULL, "SIGINT noticed");
	tap_ok(strstr(r.err, "  samples ") && strstr(r.err, "  delivered ") &&
	       strstr(r.err, "  dropped_ring_full ") &&
	       strstr(r.err, "  dropped_no_mm ") &&
	       !strstr(r.err, "dropped_nested") &&
	       strstr(r.err, "  frames_valid ") &&
	       strstr(r.err, "  frames_ip_no_vma ") &&
	       strstr(r.err, "  paths ") && !strstr(r.err, "paths_dropped") &&
	       !strstr(r.err, "frames_ip_mm_busy"),
	       "statistics: samples, delivered, the nonzero drops and ip "
	       "reasons only");
	tap_ok(strstr(r.err, "accounting") && strstr(r.err, " ok  samples 15 "
						     "== delivered 9 + "
						     "dropped 6"),
	       "accounting identity checked");
	tap_ok(strstr(r.err, "records written") &&
	       strstr(r.err, "   13  (9 samples, 3 build-id paths)") &&
	       !strstr(r.err, "MISMATCH"),
	       "records written counted, all delivered samples read");
	tap_ok(!strchr(r.err, '\r'), "no status line when stderr is no tty");
	sigaction(SIGINT, NULL, &sa);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	tap_ok(sa.sa_handler == SIG_DFL && !sigismember(&mask, SIGINT) &&
	       !sigismember(&mask, SIGTERM),
	       "signal handlers and mask restored");
	c = malloc(sizeof(*c));
	dn = fopen("/dev/null", "w");
	st = capture_open_mem(c, r.cap, r.caplen, "rec");
	if (!st)
		st = report_run(c, &ro, dn, stderr);
	fclose(dn);
	capture_close(c);
	free(c);
	tap_ok(st == 0, "the capture reads back clean");
	cg_free(&demo);
	cg_free(&all);
	run_free(&r);
}

static void test_duration(void)
{
	struct record_opts o = { .duration_ns = 300000000, .status = 1 };
	struct run r;

	fake_reset();
	fk.stats[STACKID_STAT_SAMPLES] = 5;
	fk.stats[STACKID_STAT_DELIVERED] = 4;
	run(&o, &r);
	tap_ok(r.status == 0 && r.secs >= 0.29 && r.secs < 2,
	       "-d 0.3: stops after %.2f s", r.secs);
	tap_ok(!fk.hz && fk.nlog && fk.log[1] == STACKID_IOC_SET_FILTER,
	       "no -F: no SET_FREQ");
	tap_ok(strstr(r.err, "BROKEN  samples 5 != delivered 4 + dropped 0")
	       && strstr(r.err, "MISMATCH  0 samples read, 4 delivered"),
	       "accounting mismatch, samples read != delivered reported");
	tap_ok(r.caplen == sizeof(struct capture_hdr),
	       "no records: the header alone");
	run_free(&r);

	fake_reset();
	o.duration_ns = 1200000000;
	o.out = NULL;
	run(&o, &r);
	tap_ok(r.status == 0 && strstr(r.err, "\rrecording:") &&
	       strstr(r.err, "records/s"), "status line with \\r when asked");
	run_free(&r);
}

static void test_io_errors(void)
{
	struct record_opts o = { .duration_ns = 2000000000 };
	struct stackid_frame f = cg_ip(1, STACKID_IP_NO_VMA);
	struct run r;

	fake_reset();
	cg_sample(&fk.live, 1, 0, 1, 1, "x", 0, 1, &f);
	fk.read_errno = EIO;
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "stackid: read: "
						 "Input/output error") &&
	       !fk.enabled && fk.closed && r.secs < 1.5,
	       "read error: exit 2, disabled, closed (%.*s)", LINE(r.err));
	run_free(&r);

	fake_reset();
	o.out = "/nonexistent/dir/x.cap";
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "/nonexistent/dir/"
						 "x.cap: No such file") &&
	       !fk.enabled && fk.closed,
	       "output cannot be created: exit 2, never enabled");
	run_free(&r);
}

int main(void)
{
	int fd = mkstemp(capfile);

	if (fd >= 0)
		close(fd);
	test_open_errors();
	test_config_errors();
	test_record();
	test_duration();
	test_io_errors();
	unlink(capfile);
	fake_reset();
	return tap_done();
}
