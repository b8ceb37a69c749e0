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

#include "record.h"
#include "tool/tool.h"
#include "tool/recorder.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "tool/bidtab.h"
#include "tap.h"

#define FAKE_FD 1000
/* "%.*s": the first line of @s */
#define LINE(s)	((int)strcspn(s, "\n")), (s)

/* The fake device: test state, reset by fake_reset(). */
static struct fake {
	int open_errno;
	int rdwr_errno;		/* fail opens for writing only */
	int open_mode;		/* O_ACCMODE of the open that worked */
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
	/* continuous mode: paced data, counters that follow it, a watch */
	long pace_ns;		/* wait before releasing each record */
	bool live_stats;	/* samples/delivered/drops follow released */
	const char *watch;	/* directory whose bytes are watched */
	uint64_t watch_max;	/* most bytes seen in it */
	int cgroup_errno;	/* SET_CGROUP fails with it */
	int cgroup_fd;		/* SET_CGROUP's fd, -2: not called */
	bool cgroup_dir;	/* ... was an open directory then */
	size_t bursts[4];	/* set: each poll releases up to the next */
	int nbursts, burst_i;
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
	fk.cgroup_fd = -2;
}

static int fake_open(const char *path, int flags)
{
	if (strcmp(path, STACKID_DEVICE) || !(flags & O_NONBLOCK))
		return errno = EINVAL, -1;
	if (fk.open_errno)
		return errno = fk.open_errno, -1;
	if (fk.rdwr_errno && (flags & O_ACCMODE) != O_RDONLY)
		return errno = fk.rdwr_errno, -1;
	fk.open_mode = flags & O_ACCMODE;
	return FAKE_FD;
}

/*
 * Counters that follow the data: every sample released so far was
 * delivered, and one drop (ring full) for each 7 of them.
 */
static void live_stats(void)
{
	struct stackid_record_hdr h;
	uint64_t n = 0;
	size_t off;

	for (off = 0; off < fk.released; off += h.size) {
		memcpy(&h, fk.live.buf + off, sizeof(h));
		n += h.type == STACKID_REC_SAMPLE;
	}
	fk.stats[STACKID_STAT_DELIVERED] = n;
	fk.stats[STACKID_STAT_DROP_RING_FULL] = n / 7;
	fk.stats[STACKID_STAT_SAMPLES] = n + n / 7;
}

/* Bytes of the files in fk.watch, now. */
static uint64_t dir_bytes(const char *dir)
{
	char cmd[600], buf[64];
	FILE *p;
	uint64_t n = 0;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f -printf '%%s\\n' | "
		 "awk '{ s += $1 } END { print s + 0 }'", dir);
	p = popen(cmd, "r");
	if (p && fgets(buf, sizeof(buf), p))
		n = strtoull(buf, NULL, 10);
	if (p)
		pclose(p);
	return n;
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
	case STACKID_IOC_GET_FREQ:
		*(uint32_t *)arg = fk.hz ? fk.hz : 97;	/* "the module's" */
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
	case STACKID_IOC_SET_CGROUP: {
		struct stat st;

		fk.cgroup_fd = *(int *)arg;
		fk.cgroup_dir = !fstat(fk.cgroup_fd, &st) &&
				S_ISDIR(st.st_mode);
		if (fk.cgroup_errno)
			return errno = fk.cgroup_errno, -1;
		return 0;
	}
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
		/* a fresh module: it counts once enabled */
		if (!fk.enabled && !fk.disabled)
			return 0;
		if (fk.live_stats)
			live_stats();
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
	if (fk.watch && fk.polls % 8 == 0) {
		uint64_t b = dir_bytes(fk.watch);

		if (b > fk.watch_max)
			fk.watch_max = b;
	}
	if (fk.enabled && fk.nbursts) {
		if (fk.burst_i < fk.nbursts)
			fk.released = fk.bursts[fk.burst_i++];
	} else if (fk.enabled && fk.released < fk.live.len) {
		if (fk.pace_ns) {
			struct timespec p = { 0, fk.pace_ns };

			nanosleep(&p, NULL);
		}
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

	/*
	 * read access alone: read-only, and read() instead of mmap(); a
	 * device cgroup (systemd's DeviceAllow=/dev/stackid r) says EPERM
	 */
	for (i = 0; i < 2; i++) {
		fake_reset();
		fk.rdwr_errno = i ? EPERM : EACCES;
		o.out = NULL;
		o.duration_ns = 100000000;
		run(&o, &r);
		tap_ok(r.status == 0 && fk.open_mode == O_RDONLY, "open O_RDWR "
		       "refused (%s): opened O_RDONLY, exit %d",
		       i ? "EPERM" : "EACCES", r.status);
		run_free(&r);
	}
}

static void test_config_errors(void)
{
	struct record_opts o = { 0 };
	struct run r;

	fake_reset();
	fk.version = (STACKID_ABI_MAJOR + 1) << 16 | 3;
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "module speaks ABI "
						 "3.3") && !r.cap && fk.closed,
	       "ABI major 3 refused, nothing written (%.*s)", LINE(r.err));
	run_free(&r);

	fake_reset();
	fk.version = STACKID1_ABI_MAJOR << 16;
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "module speaks ABI "
						 "1.0") && !r.cap && fk.closed,
	       "ABI major 1 (an old module) refused, nothing written (%.*s)",
	       LINE(r.err));
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

/* record --cgroup: the directory's fd to SET_CGROUP, and its errors. */
static void test_cgroup_filter(void)
{
	struct record_opts o = { .duration_ns = 1000000, .cgroup = "/tmp" };
	static const struct {
		int err;
		const char *msg;
	} errs[] = {
		{ EBADF, "stackid: --cgroup /tmp: not a cgroup v2 directory "
			 "(mount -t cgroup2 none /sys/fs/cgroup)\n" },
		{ ENOTTY, "stackid: --cgroup: the module has no cgroup filter: "
			  "install a matching module\n" },
	};
	struct run r;
	size_t i;
	int k;

	fake_reset();
	run(&o, &r);
	for (k = 0; k < fk.nlog && fk.log[k] != STACKID_IOC_SET_CGROUP; k++)
		;
	tap_ok(r.status == 0 && fk.cgroup_fd >= 0 && fk.cgroup_dir &&
	       fcntl(fk.cgroup_fd, F_GETFD) < 0 && k < fk.nlog,
	       "--cgroup /tmp: SET_CGROUP with the directory's fd, which is "
	       "closed after");
	for (; k < fk.nlog && fk.log[k] != STACKID_IOC_ENABLE; k++)
		;
	tap_ok(k < fk.nlog, "--cgroup: SET_CGROUP before ENABLE");
	run_free(&r);

	fake_reset();
	o.cgroup = "/nonexistent-cgroup";
	run(&o, &r);
	tap_ok(r.status == EXIT_SYSTEM && !strcmp(r.err, "stackid: --cgroup "
		"/nonexistent-cgroup: No such file or directory\n") &&
	       fk.cgroup_fd == -2 && !fk.enabled && !fk.disabled && fk.closed,
	       "--cgroup of a missing directory: exit 2, never enabled (%.*s)",
	       LINE(r.err));
	run_free(&r);

	o.cgroup = "/tmp";
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		fake_reset();
		fk.cgroup_errno = errs[i].err;
		run(&o, &r);
		tap_ok(r.status == EXIT_SYSTEM && !strcmp(r.err, errs[i].msg) &&
		       !fk.enabled && !fk.disabled && fk.closed,
		       "SET_CGROUP fails with %s: exit 2, never enabled, "
		       "'%.*s'", strerror(errs[i].err), LINE(errs[i].msg));
		run_free(&r);
	}
}

static bool logged(const unsigned long *want, int n)
{
	return fk.nlog == n && !memcmp(fk.log, want, n * sizeof(*want));
}

static void test_record(void)
{
	static const unsigned long seq[] = {
		STACKID_IOC_GET_VERSION, STACKID_IOC_SET_FREQ,
		STACKID_IOC_GET_FREQ, STACKID_IOC_SET_FILTER,
		STACKID_IOC_GET_STATS,
		STACKID_IOC_ENABLE, STACKID_IOC_DISABLE,
		STACKID_IOC_GET_STATS,
	};
	static const unsigned char id[20] = { 9, 8, 7 };
	struct record_opts o = { .hz = 99, .tgid = 1234 };
	struct cg_frame f[2];
	struct capture_hdr h;
	struct capgen demo = { 0 }, all = { 0 };
	struct timespec ts;
	struct sigaction sa, sa0;
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
	/* as inherited: SIG_IGN under a shell's background job */
	sigaction(SIGINT, NULL, &sa0);
	run(&o, &r);

	tap_ok(r.status == 0, "record: exit 0 when stopped by SIGINT");
	tap_ok(logged(seq, ARRAY_SIZE(seq)), "ioctls: GET_VERSION, SET_FREQ, "
	       "GET_FREQ, SET_FILTER, GET_STATS (the baseline), ENABLE, "
	       "DISABLE, GET_STATS");
	tap_ok(fk.hz == 99 && fk.flt.tgid == 1234 && !fk.flt.__pad &&
	       !fk.enabled && fk.closed, "99 Hz, tgid 1234, disabled, closed");
	tap_ok(fk.open_mode == O_RDWR, "the device opened read-write (its "
	       "rings are mapped writable)");
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
	{
		struct capture_info in;
		struct capture_end e;
		size_t il = sizeof(in), el = sizeof(e);
		struct timespec rt;
		uint64_t wall;
		bool fits = r.caplen == hl + il + all.len + el;

		clock_gettime(CLOCK_REALTIME, &rt);
		wall = rt.tv_sec * 1000000000ULL + rt.tv_nsec;
		memset(&in, 0, il);
		memset(&e, 0, el);
		if (fits) {
			memcpy(&in, r.cap + hl, il);
			memcpy(&e, r.cap + hl + il + all.len, el);
		}
		tap_ok(fits && !memcmp(r.cap + hl + il, all.buf, all.len),
		       "the records exactly as read, the drained one after "
		       "DISABLE too, between INFO and END (%zu bytes)",
		       r.caplen);
		tap_ok(in.hdr.type == CAPTURE_REC_INFO && in.hdr.size == il &&
		       in.hdr.abi_major == STACKID_ABI_MAJOR &&
		       in.freq_hz == 99 && in.seq == 0 && in.tgid == 1234 &&
		       in.realtime_ns < wall &&
		       in.realtime_ns > wall - 60000000000ULL,
		       "INFO record: 99 Hz, wall-clock start, file 0, pid");
		tap_ok(e.hdr.type == CAPTURE_REC_END && e.hdr.size == el &&
		       e.nr == STACKID_STAT_NR &&
		       e.counters[STACKID_STAT_SAMPLES] == 15 &&
		       e.counters[STACKID_STAT_DELIVERED] == 9 &&
		       e.counters[STACKID_STAT_DROP_RING_FULL] == 4 &&
		       e.end_ns >= h.start_ns,
		       "END record: close time, the run's counters");
	}
	/* two samples and the build-id record they need */
	tap_ok(strstr(r.err, "discarded 3 records left from before") &&
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
	       !strstr(r.err, "frames_ip_not_resolved"),
	       "statistics: samples, delivered, the nonzero drops and ip "
	       "reasons only");
	tap_ok(strstr(r.err, "accounting") && strstr(r.err, " ok  samples 15 "
						     "== delivered 9 + "
						     "dropped 6"),
	       "accounting identity checked");
	/* the demo's 12, its 7 build-id records, the late sample and its 1 */
	tap_ok(strstr(r.err, "records written") &&
	       strstr(r.err, "   21  (9 samples, 3 build-id paths, 8 build-id "
		      "indices)") &&
	       !strstr(r.err, "MISMATCH"),
	       "records written counted, all delivered samples read");
	tap_ok(!strchr(r.err, '\r'), "no status line when stderr is no tty");
	sigaction(SIGINT, NULL, &sa);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	tap_ok(sa.sa_handler == sa0.sa_handler &&
	       !sigismember(&mask, SIGINT) &&
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
	tap_ok(!fk.hz && fk.nlog > 2 && fk.log[1] == STACKID_IOC_GET_FREQ &&
	       fk.log[2] == STACKID_IOC_SET_FILTER, "no -F: no SET_FREQ");
	tap_ok(strstr(r.err, "BROKEN  samples 5 != delivered 4 + dropped 0")
	       && strstr(r.err, "MISMATCH  0 samples read, 4 delivered"),
	       "accounting mismatch, samples read != delivered reported");
	{
		struct capture_info in = { 0 };

		if (r.caplen > sizeof(struct capture_hdr) + sizeof(in))
			memcpy(&in, r.cap + sizeof(struct capture_hdr),
			       sizeof(in));
		tap_ok(r.caplen == sizeof(struct capture_hdr) + sizeof(in) +
		       sizeof(struct capture_end) && in.freq_hz == 97,
		       "no records: header, INFO (the module's 97 Hz), END");
	}
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
	struct cg_frame f = cg_ip(1, STACKID_IP_NO_VMA);
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

/* One file of a continuous recording, as the test reads it. */
struct cfile {
	char name[256];
	uint64_t size, samples, seq, run_id, counters[STACKID_STAT_NR];
	bool info, end, clean, paths_ok;
};

/*
 * Read @path: INFO, END, samples, and every build-id defined (its ring's
 * table) and named (a path record) before use: each file reads alone.
 */
static void read_cfile(const char *path, struct cfile *cf)
{
	struct capture *c = malloc(sizeof(*c));
	unsigned char named[8][20] = { { 0 } };
	unsigned int nnamed = 0, i, j;
	const struct stackid_record_hdr *h;
	struct bidtab bids = { 0 };
	const void *rec;
	uint64_t off;
	int r;

	cf->paths_ok = true;
	r = capture_open(c, path) ? -1 : 1;
	while (r > 0 && (r = capture_next(c, &rec, &off)) > 0) {
		h = rec;
		if (h->type == CAPTURE_REC_INFO) {
			const struct capture_info *in = rec;

			cf->info = true;
			cf->seq = in->seq;
			cf->run_id = in->run_id;
		} else if (h->type == CAPTURE_REC_END) {
			const struct capture_end *e = rec;

			cf->end = true;
			memcpy(cf->counters, e->counters,
			       sizeof(cf->counters));
		} else if (h->type == STACKID_REC_BUILD_ID_PATH &&
			   nnamed < 8) {
			memcpy(named[nnamed++], ((const struct
				stackid_build_id_path *)rec)->build_id, 20);
		} else if (bidtab_take(&bids, h)) {
			continue;
		} else if (h->type == STACKID_REC_SAMPLE) {
			const struct stackid_sample *s = rec;

			cf->samples++;
			for (i = 0; i < s->nr_frames; i++) {
				const struct bidtab_entry *e;

				if (s->frames[i].status != STACKID_FRAME_VALID)
					continue;
				e = bidtab_get(&bids, s->ring,
					       s->frames[i].bid);
				for (j = 0; e && j < nnamed; j++)
					if (!memcmp(named[j], e->id, 20))
						break;
				if (!e || j == nnamed)
					cf->paths_ok = false;
			}
		}
	}
	bidtab_free(&bids);
	cf->clean = r == 0;
	capture_close(c);
	free(c);
}

static int list_dir(const char *dir, struct cfile *cf, int max, int *tmps)
{
	char cmd[600], line[256], path[800];
	struct stat st;
	FILE *p;
	int n = 0;

	*tmps = 0;
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | LC_ALL=C sort", dir);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '.') {
			(*tmps)++;
			continue;
		}
		if (n == max)
			break;
		memset(&cf[n], 0, sizeof(cf[n]));
		snprintf(cf[n].name, sizeof(cf[n].name), "%s", line);
		snprintf(path, sizeof(path), "%s/%s", dir, line);
		if (!stat(path, &st))
			cf[n].size = st.st_size;
		read_cfile(path, &cf[n]);
		n++;
	}
	if (p)
		pclose(p);
	return n;
}

/* 300 samples over two build-ids named once, paced over about 1 s. */
static void rotate_data(void)
{
	static const unsigned char a[20] = { 0xaa, 1 }, b[20] = { 0xbb, 2 };
	struct cg_frame f[2] = { cg_valid(a, 20, 0x100),
				      cg_valid(b, 20, 0x200) };
	int i;

	fake_reset();
	cg_path(&fk.live, a, 20, "/usr/lib/liba.so");
	cg_path(&fk.live, b, 20, "/usr/bin/b");
	for (i = 0; i < 300; i++)
		cg_sample(&fk.live, 1000 + i, i % 2, 10, 10 + i % 3, "rot",
			  STACKID_SF_USER, 2, f);
	fk.pace_ns = 3000000;
	fk.live_stats = true;
}

static void test_rotate(void)
{
	char dir[] = "/tmp/stackid-rot.XXXXXX", rm[600];
	struct record_opts o = {
		.duration_ns = 1300000000, .rotate_ns = 100000000,
	};
	static struct cfile cf[64];
	uint64_t samples = 0, sum[STACKID_STAT_NR] = { 0 }, total = 0, d;
	bool info = true, seqs = true, clean = true, paths = true;
	int n, i, tmps, later;
	struct run r;

	if (!tap_ok(mkdtemp(dir) != NULL, "continuous: temporary directory"))
		return;
	rotate_data();
	o.dir = dir;
	o.out = capfile;
	run(&o, &r);
	n = list_dir(dir, cf, 64, &tmps);
	tap_ok(r.status == 0 && n >= 6 && n <= 16 && !tmps,
	       "--rotate 0.1 for 1.3 s: exit 0, %d files, no temporary left",
	       n);
	for (i = 0; i < n; i++) {
		samples += cf[i].samples;
		for (int k = 0; k < STACKID_STAT_NR; k++)
			sum[k] += cf[i].counters[k];
		info &= cf[i].info && cf[i].end &&
			cf[i].run_id == cf[0].run_id;
		seqs &= cf[i].seq == (uint64_t)i;
		clean &= cf[i].clean;
		paths &= cf[i].paths_ok;
		total += cf[i].size;
	}
	tap_ok(clean && info && seqs, "every file reads back clean, with "
	       "INFO (same run, files numbered 0..%d in name order) and END",
	       n - 1);
	tap_ok(samples == 300, "no sample lost at %d rotations: %" PRIu64
	       " of 300 samples in the files", n - 1, samples);
	d = sum[STACKID_STAT_DROP_RING_FULL];
	tap_ok(sum[STACKID_STAT_SAMPLES] == 300 + 300 / 7 &&
	       sum[STACKID_STAT_DELIVERED] == 300 && d == 300 / 7 &&
	       sum[STACKID_STAT_SAMPLES] == sum[STACKID_STAT_DELIVERED] + d,
	       "END deltas add up across files: samples %" PRIu64
	       " == delivered %" PRIu64 " + dropped %" PRIu64,
	       sum[STACKID_STAT_SAMPLES], sum[STACKID_STAT_DELIVERED], d);
	for (i = 1, later = 0; i < n; i++)
		later += cf[i].samples > 0;
	tap_ok(paths && later >= 2,
	       "each file names the build-ids it uses (path records "
	       "written again in every file)");
	tap_ok(strstr(r.err, "files written") &&
	       strstr(r.err, "accounting") && strstr(r.err, " ok "),
	       "statistics: files written, accounting ok");
	run_free(&r);

	/* --keep 3, on top of the files already there */
	rotate_data();
	o.keep = 3;
	run(&o, &r);
	{
		static struct cfile k[64];
		int m = list_dir(dir, k, 64, &tmps);

		tap_ok(r.status == 0 && m == 3 && !tmps &&
		       strcmp(k[0].name, cf[n - 1].name) > 0 &&
		       strstr(r.err, "files deleted"),
		       "--keep 3: the 3 newest files stay (%d), older runs' "
		       "files count too", m);
	}
	run_free(&r);

	/* --max-size: never exceeded, watched while recording */
	snprintf(rm, sizeof(rm), "rm -f '%s'/*", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
	rotate_data();
	o.keep = 0;
	o.max_size = 12000;
	fk.watch = dir;
	run(&o, &r);
	n = list_dir(dir, cf, 64, &tmps);
	total = 0;
	for (i = 0; i < n; i++)
		total += cf[i].size;
	tap_ok(r.status == 0 && fk.watch_max > 0 &&
	       fk.watch_max <= o.max_size && total <= o.max_size &&
	       strstr(r.err, "files deleted"),
	       "--max-size 12000: at most %" PRIu64 " bytes seen while "
	       "recording, %" PRIu64 " at the end, oldest files deleted",
	       fk.watch_max, total);
	tap_ok(n > 0 && cf[n - 1].clean && cf[n - 1].samples &&
	       cf[n - 1].paths_ok, "the newest file is whole and names "
	       "its build-ids");
	run_free(&r);

	/* the status line: on when asked, with drops and files */
	rotate_data();
	o.max_size = 0;
	o.duration_ns = 700000000;
	o.status = 1;
	run(&o, &r);
	tap_ok(r.status == 0 && strstr(r.err, "\rrecording:") &&
	       strstr(r.err, " drops") && strstr(r.err, " files"),
	       "status line: records, rate, drops, files");
	run_free(&r);
	snprintf(rm, sizeof(rm), "%s'%s'", getenv("KEEPDIR") ? "ls -la " : "rm -rf ", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

/*
 * Report @path alone (text, no symbols): its status; *@samples, and how
 * many of them name their cgroup and all their kernel frames.
 */
static int report_file(const char *path, int *samples, int *named)
{
	struct report_opts ro = { .format = FORMAT_TEXT };
	struct capture *c = malloc(sizeof(*c));
	char *out = NULL, *err = NULL, *p;
	size_t olen, elen;
	FILE *fo = open_memstream(&out, &olen);
	FILE *fe = open_memstream(&err, &elen);
	int st;

	st = capture_open(c, path);
	if (!st)
		st = report_run(c, &ro, fo, fe);
	capture_close(c);
	free(c);
	fclose(fo);
	fclose(fe);
	*samples = *named = 0;
	for (p = out; p && (p = strstr(p, " krot ")); p++) {
		const char *eol = strchr(p, '\n');

		(*samples)++;
		if ((!strncmp(eol - 7, " /svc/a", 7) ||
		     !strncmp(eol - 7, " /svc/b", 7)) &&
		    !strncmp(eol, "\n\text4_file_read_iter+0x40 [ext4]\n"
			     "\tvfs_read+0x1a [kernel]\n\t", 58))
			(*named)++;
	}
	if (st || *err)
		printf("# %s: %d: %s\n", path, st, err);
	free(out);
	free(err);
	return st;
}

/*
 * Continuous mode with kernel frames and cgroups: the module writes a
 * cgroup's record and a ring's symbol records once, so the recorder
 * writes them again at the start of every file (recorder.c): each file
 * names, alone, every kernel function and cgroup its samples use.
 */
static void test_rotate_kernel(void)
{
	static const unsigned char a[20] = { 0xaa, 1 };
	char dir[] = "/tmp/stackid-krot.XXXXXX", rm[600], path[600];
	struct record_opts o = {
		.duration_ns = 1000000000, .rotate_ns = 100000000,
	};
	struct cg_frame f[3] = {
		cg_kernel("ext4_file_read_iter", "ext4", 0x40),
		cg_kernel("vfs_read", NULL, 0x1a),
		cg_valid(a, 20, 0x100),
	};
	static struct cfile cf[64];
	int n, i, tmps, samples = 0, named = 0, later = 0, bad = 0;
	struct run r;

	if (!tap_ok(mkdtemp(dir) != NULL, "continuous, kernel: temporary "
		    "directory"))
		return;
	fake_reset();
	cg_path(&fk.live, a, 20, "/usr/bin/krot");
	cg_cgroup(&fk.live, 5, "/svc/a");
	cg_cgroup(&fk.live, 6, "/svc/b");
	for (i = 0; i < 200; i++)
		cg_sample_k(&fk.live, 1000 + i, i % 2, 10, 10, "krot",
			    STACKID_SF_KERNEL, 3, f, 2, 5 + i / 100);
	fk.pace_ns = 3000000;
	o.dir = dir;
	o.out = capfile;
	run(&o, &r);
	n = list_dir(dir, cf, 64, &tmps);
	for (i = 0; i < n; i++) {
		int s, k;

		snprintf(path, sizeof(path), "%s/%.255s", dir, cf[i].name);
		if (report_file(path, &s, &k))
			bad++;
		samples += s;
		named += k;
		later += i > 0 && s > 0;
	}
	tap_ok(r.status == 0 && n >= 4 && !bad && samples == 200,
	       "--rotate 0.1, kernel frames and cgroups: %d files, each "
	       "reports alone (%d failed), %d of 200 samples", n, bad,
	       samples);
	tap_ok(named == 200 && later >= 2,
	       "each file names its samples' cgroups and kernel functions "
	       "(%d of 200 samples; %d later files with samples)", named,
	       later);
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

/*
 * A read that fills the file under --max-size starts the next file: the
 * tables written first in it must be those the read's records found, not
 * those they leave (an epoch in the read empties a ring's table, and its
 * indexes are given again to other functions).
 */
static void test_rotate_epoch(void)
{
	char dir[] = "/tmp/stackid-kep.XXXXXX", rm[600], path[600];
	struct record_opts o = {
		.duration_ns = 300000000, .rotate_ns = 10000000000ULL,
	};
	struct stackid_epoch e = {
		.hdr = { sizeof(e), STACKID_REC_EPOCH, STACKID_ABI_MAJOR },
	};
	struct cg_frame k = cg_kernel("vfs_read", NULL, 0x1a);
	struct capgen g2 = { 0 };
	static struct cfile cf[8];
	size_t chunk2;
	int n, tmps, st = -1, s = 0, named = 0;
	struct run r;
	char *out = NULL;

	if (!tap_ok(mkdtemp(dir) != NULL, "epoch at a rotation: temporary "
		    "directory"))
		return;
	fake_reset();
	cg_sample_k(&fk.live, 1000, 0, 10, 10, "krot", STACKID_SF_KERNEL, 1,
		    &k, 1, 0);
	fk.bursts[0] = fk.live.len;
	/* one read: a sample of the old table, the epoch, the new table */
	cg_sample_k(&fk.live, 1001, 0, 10, 10, "krot", STACKID_SF_KERNEL, 1,
		    &k, 1, 0);
	memcpy(cg_room(&fk.live, sizeof(e)), &e, sizeof(e));
	g2.abi = 2;
	k = cg_kernel("other_func", NULL, 0x5);
	cg_sample_k(&g2, 1002, 0, 10, 10, "krot", STACKID_SF_KERNEL, 1, &k,
		    1, 0);
	memcpy(cg_room(&fk.live, g2.len), g2.buf, g2.len);
	cg_free(&g2);
	fk.bursts[1] = fk.live.len;
	fk.nbursts = 2;
	chunk2 = fk.bursts[1] - fk.bursts[0];
	/* room for a new file with the tables and the read, not for both */
	o.max_size = sizeof(struct capture_hdr) + sizeof(struct capture_info) +
		     sizeof(struct stackid_epoch) +
		     stackid_ksym_record_size(8, 0) + chunk2 +
		     sizeof(struct capture_end) + 8;
	o.dir = dir;
	o.out = capfile;
	run(&o, &r);
	n = list_dir(dir, cf, 8, &tmps);
	if (n > 0) {
		snprintf(path, sizeof(path), "%s/%.255s", dir, cf[n - 1].name);
		st = report_file(path, &s, &named);
		{
			struct report_opts ro = { .format = FORMAT_FOLDED };
			struct capture *c = malloc(sizeof(*c));
			size_t olen;
			FILE *fo = open_memstream(&out, &olen);
			FILE *fe = fopen("/dev/null", "w");

			if (!capture_open(c, path))
				report_run(c, &ro, fo, fe);
			capture_close(c);
			free(c);
			fclose(fo);
			fclose(fe);
		}
	}
	if (!tap_ok(r.status == 0 && n >= 1 && st == 0 && s == 2 && out &&
		    !strcmp(out, "krot;other_func_[k] 1\n"
			    "krot;vfs_read_[k] 1\n"),
		    "a read with an epoch starts a file: its first sample "
		    "still names vfs_read (%d files, the last: exit %d, %d "
		    "samples)", n, st, s))
		printf("# folded:\n%s", out ? out : "");
	free(out);
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

int main(void)
{
	int fd = mkstemp(capfile);

	if (fd >= 0)
		close(fd);
	test_open_errors();
	test_config_errors();
	test_cgroup_filter();
	test_record();
	test_duration();
	test_io_errors();
	test_rotate();
	test_rotate_kernel();
	test_rotate_epoch();
	unlink(capfile);
	fake_reset();
	return tap_done();
}
