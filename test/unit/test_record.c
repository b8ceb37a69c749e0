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
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sched.h>

#include "record.h"
#include "tool/tool.h"
#include "tool/recorder.h"
#include "tool/rec.h"
#include "tool/capdir.h"
#include "tool/report.h"
#include "report/capgen.h"
#include "tool/bidtab.h"
#include "tool/deltas.h"
#include "delta.h"
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
	uint32_t format;	/* STACKID_IOC_SET_FORMAT's */
	uint32_t max_hz;
	uint32_t hz;
	struct stackid_filter flt;
	struct stackid_wakeup wake;	/* STACKID_IOC_SET_WAKEUP's */
	bool enabled, disabled;
	unsigned long log[32];	/* ioctl requests, in order */
	int nlog;
	struct capgen stale, live, late;	/* record bytes, no header */
	size_t stale_pos, live_pos, late_pos, released;
	size_t chunk;		/* most bytes per read */
	int polls, sigint_at;	/* raise SIGINT in ppoll number sigint_at */
	/*
	 * from ppoll number busy_at on, say "ready" at once, as a ring
	 * that never drains below its watermark does, and (then) leave a
	 * SIGTERM pending, as ppoll() does when it has something ready
	 */
	int busy_at;
	/*
	 * read() never runs dry while enabled (the live data, again and
	 * again, as a producer faster than the reader), and leaves a
	 * SIGTERM pending in read number endless_at; 2,000 reads after it,
	 * it gives up (EAGAIN), so that a recorder that never looks up
	 * still ends
	 */
	int endless_at, reads, sigterm_read;
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
	size_t eio_at;		/* read() fails once with EIO here (+1) */
	bool eio_done;
	/* a mapped ring (fake_ring_ops): ring 0 of one, fed by ppoll */
	struct stackid_ring_ctl *ctl;
	unsigned char *rdata;
	size_t ring_pos;	/* bytes of live put in the ring */
	size_t garbage_at;	/* put 48 bytes of garbage here (+1) */
	bool garbage_done;
	/* STACKID_IOC_ADD_UNWIND: tables taken, the last one's build-id */
	int unwind_calls, unwind_errno;
	int unwind_early;	/* of them, before the first ENABLE */
	uint32_t unwind_rows;
	bool unwind_sorted;
	unsigned char unwind_id[20];
	unsigned char unwind_order[16][20];	/* of the tables, as loaded */
	uint8_t unwind_id_len;
	/* late's one sample, deferred to its task, is delivered just before
	 * GET_STATS number late_at after DISABLE: readable, counted
	 * delivered and finished from then on */
	int late_at, stats_after;
	bool late_out;
} fk;

#define FAKE_RING_SIZE	(1 << 16)

static void fake_reset(void)
{
	cg_free(&fk.stale);
	cg_free(&fk.live);
	cg_free(&fk.late);
	free(fk.ctl);
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

/*
 * The mapped ring: live records released so far go in while they fit,
 * published by head; garbage_at puts 48 bytes that are no record (a
 * header of size 5) there instead, alone, as a reader writing into its
 * mapping would leave them.
 */
static void ring_feed(void)
{
	struct stackid_record_hdr h;
	uint64_t head;
	size_t i;

	if (!fk.ctl)
		return;
	head = fk.ctl->head;
	if (fk.garbage_at && !fk.garbage_done &&
	    fk.ring_pos == fk.garbage_at - 1 && fk.ring_pos < fk.released) {
		if (FAKE_RING_SIZE - (head - fk.ctl->tail) < 48)
			return;
		for (i = 0; i < 48; i++)
			fk.rdata[(head + i) % FAKE_RING_SIZE] = 0xa5;
		memcpy(&h, &(struct stackid_record_hdr){ 5, 1, 2 }, sizeof(h));
		memcpy(fk.rdata + head % FAKE_RING_SIZE, &h, sizeof(h));
		__atomic_store_n(&fk.ctl->head, head + 48, __ATOMIC_RELEASE);
		fk.garbage_done = true;
		return;
	}
	while (fk.ring_pos < fk.released) {
		memcpy(&h, fk.live.buf + fk.ring_pos, sizeof(h));
		if (FAKE_RING_SIZE - (head - fk.ctl->tail) < h.size)
			break;
		for (i = 0; i < h.size; i++)
			fk.rdata[(head + i) % FAKE_RING_SIZE] =
				fk.live.buf[fk.ring_pos + i];
		head += h.size;
		fk.ring_pos += h.size;
		if (fk.garbage_at && !fk.garbage_done &&
		    fk.ring_pos == fk.garbage_at - 1)
			break;
	}
	__atomic_store_n(&fk.ctl->head, head, __ATOMIC_RELEASE);
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
	case STACKID_IOC_SET_FORMAT:
		if ((fk.version & 0xffff) < 4)
			return errno = ENOTTY, -1;
		if (*(uint32_t *)arg & ~STACKID_FORMAT_ALL)
			return errno = EINVAL, -1;
		fk.format = *(uint32_t *)arg;
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
	case STACKID_IOC_SET_WAKEUP:
		fk.wake = *(struct stackid_wakeup *)arg;
		if (fk.wake.period_ms > 10000)
			return errno = EINVAL, -1;
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
	case STACKID_IOC_ADD_UNWIND: {
		const struct stackid_unwind_table *u = arg;
		const struct stackid_unwind_row *rw =
			(const void *)(uintptr_t)u->rows;
		uint32_t i;

		if ((fk.version & 0xffff) < 2)
			return errno = ENOTTY, -1;
		fk.unwind_calls++;
		fk.unwind_early += !fk.enabled && !fk.disabled;
		if (fk.unwind_errno)
			return errno = fk.unwind_errno, -1;
		fk.unwind_rows = u->nr_rows;
		fk.unwind_sorted = u->nr_rows >= 1 && !u->__pad[0] &&
				   !u->__pad2;
		for (i = 1; i < u->nr_rows; i++)
			if (rw[i].start <= rw[i - 1].start)
				fk.unwind_sorted = false;
		memcpy(fk.unwind_id, u->build_id, sizeof(fk.unwind_id));
		fk.unwind_id_len = u->build_id_len;
		if (fk.unwind_calls <= 16)
			memcpy(fk.unwind_order[fk.unwind_calls - 1],
			       u->build_id, sizeof(fk.unwind_order[0]));
		return 0;
	}
	case STACKID_IOC_ENABLE:
		fk.enabled = true;
		if (fk.endless_at)
			fk.released = fk.live.len;
		return 0;
	case STACKID_IOC_DISABLE:
		fk.enabled = false;
		fk.disabled = true;
		fk.released = fk.live.len;
		ring_feed();
		ring_feed();
		ring_feed();	/* past garbage */
		return 0;
	case STACKID_IOC_GET_RING_INFO: {
		struct stackid_ring_info *ri = arg;

		if (!fk.ctl)
			return errno = ENOTTY, -1;
		memset(ri, 0, sizeof(*ri));
		ri->nr_rings = 1;
		ri->data_size = FAKE_RING_SIZE;
		ri->page_size = 4096;
		return 0;
	}
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
		if (fk.late_at && fk.disabled &&
		    ++fk.stats_after == fk.late_at) {
			fk.late_out = true;
			fk.stats[STACKID_STAT_DELIVERED]++;
			fk.stats[STACKID_STAT_DEFERRED_DONE]++;
		}
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
	if (fk.endless_at) {
		if (++fk.reads == fk.endless_at) {
			raise(SIGTERM);	/* blocked outside ppoll: pending */
			fk.sigterm_read = fk.reads;
		}
		if (fk.sigterm_read && fk.reads - fk.sigterm_read > 2000)
			return errno = EAGAIN, -1;
		if (fk.enabled && !fk.disabled && fk.live_pos == fk.live.len)
			fk.live_pos = 0;
	}
	if (fk.eio_at && !fk.eio_done && fk.live_pos == fk.eio_at - 1 &&
	    fk.live_pos < fk.released) {
		fk.eio_done = true;
		return errno = EIO, -1;
	}
	if (fk.stale_pos < fk.stale.len)
		return take(&fk.stale, &fk.stale_pos, fk.stale.len, buf, len);
	if (fk.live_pos < fk.released)
		return take(&fk.live, &fk.live_pos, fk.released, buf, len);
	if (fk.disabled && (!fk.late_at || fk.late_out) &&
	    fk.late_pos < fk.late.len)
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
	if (fk.busy_at && fk.polls >= fk.busy_at) {
		if (fk.polls == fk.busy_at)
			raise(SIGTERM);	/* blocked outside ppoll: pending */
		fds[0].revents = POLLIN;
		return 1;
	}
	if (fk.endless_at && fk.enabled) {
		fds[0].revents = POLLIN;
		return 1;
	}
	if (fk.sigint_at && fk.polls == fk.sigint_at) {
		sigprocmask(SIG_SETMASK, mask, &old);
		raise(SIGINT);		/* delivered here, or not at all */
		sigprocmask(SIG_SETMASK, &old, NULL);
		return errno = EINTR, -1;
	}
	if (fk.watch) {
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
	if (fk.ctl) {
		ring_feed();
		if (__atomic_load_n(&fk.ctl->head, __ATOMIC_ACQUIRE) !=
		    fk.ctl->tail) {
			fds[0].revents = POLLIN;
			return 1;
		}
	} else if (fk.live_pos < fk.released || (fk.read_errno &&
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

static void *fake_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	(void)addr;
	if (fd != FAKE_FD || !fk.ctl || len != 4096 + FAKE_RING_SIZE ||
	    prot != (PROT_READ | PROT_WRITE) || !(flags & MAP_SHARED))
		return errno = EINVAL, MAP_FAILED;
	if (off)
		return errno = ENXIO, MAP_FAILED;
	return fk.ctl;
}

static int fake_munmap(void *addr, size_t len)
{
	(void)addr;
	(void)len;
	return 0;
}

/* The same device with one ring that can be mapped. */
static const struct sysops fake_ring_ops = {
	.open = fake_open,
	.ioctl = fake_ioctl,
	.read = fake_read,
	.ppoll = fake_ppoll,
	.close = fake_close,
	.mmap = fake_mmap,
	.munmap = fake_munmap,
};

static void fake_ring(void)
{
	fk.ctl = aligned_alloc(4096, 4096 + FAKE_RING_SIZE);
	memset(fk.ctl, 0, 4096 + FAKE_RING_SIZE);
	fk.ctl->data_size = FAKE_RING_SIZE;
	fk.ctl->data_offset = 4096;
	fk.rdata = (unsigned char *)fk.ctl + 4096;
}

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
	r->status = record_run(o, fk.ctl ? &fake_ring_ops : &fake_ops, err);
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
		STACKID_IOC_GET_VERSION, STACKID_IOC_SET_FORMAT,
		STACKID_IOC_SET_FREQ,
		STACKID_IOC_GET_FREQ, STACKID_IOC_SET_FILTER,
		STACKID_IOC_SET_WAKEUP, STACKID_IOC_GET_STATS,
		STACKID_IOC_ENABLE, STACKID_IOC_DISABLE,
		STACKID_IOC_GET_STATS, STACKID_IOC_GET_STATS,
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
	/*
	 * ABI 2.3's drop, counted outside the first drops' range: a sample
	 * an earlier recording took (not in this one's samples), finished
	 * in its task during this one
	 */
	fk.stats[STACKID_STAT_DROP_STALE] = 1;
	fk.stats[STACKID_STAT_DEFERRED_DONE] = 1;
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
	       "GET_FREQ, SET_FILTER, SET_WAKEUP, GET_STATS (the baseline), "
	       "ENABLE, DISABLE, GET_STATS, drain, GET_STATS (nothing more "
	       "came)");
	tap_ok(!fk.wake.watermark && fk.wake.period_ms == 1000,
	       "woken at the module's watermark or once a second (%u, %u)",
	       fk.wake.watermark, fk.wake.period_ms);
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
	       strstr(r.err, "  dropped_stale ") &&
	       !strstr(r.err, "dropped_nested") &&
	       strstr(r.err, "  frames_valid ") &&
	       strstr(r.err, "  frames_ip_no_vma ") &&
	       strstr(r.err, "  paths ") && !strstr(r.err, "paths_dropped") &&
	       !strstr(r.err, "frames_ip_not_resolved"),
	       "statistics: samples, delivered, the nonzero drops and ip "
	       "reasons only");
	tap_ok(strstr(r.err, "accounting") && strstr(r.err, " ok  samples 15 "
						     "== delivered 9 + "
						     "dropped 7 - finished "
						     "from an earlier "
						     "recording"),
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
	tap_ok(!fk.hz && fk.nlog > 3 && fk.log[2] == STACKID_IOC_GET_FREQ &&
	       fk.log[3] == STACKID_IOC_SET_FILTER, "no -F: no SET_FREQ");
	tap_ok(fk.log[1] == STACKID_IOC_SET_FORMAT &&
	       fk.format == (STACKID_FORMAT_PACKED | STACKID_FORMAT_DELTA),
	       "ABI 2.6: packed frames and delta samples asked for");
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

/*
 * A task delivers its deferred sample after DISABLE, between the
 * recorder's drain and its GET_STATS (seen in the soak: 52997 samples
 * read, 53006 delivered): the recorder drains again until the counters
 * stand still, and the capture holds every delivered sample. At the
 * first GET_STATS after DISABLE (the old recorder's only one), at the
 * second, and after a wait, with a sample of an earlier recording
 * finished meanwhile (dropped as stale), which must not make this
 * recording's own sample look finished.
 */
static void late_case(int at, bool stale, const char *what)
{
	static const unsigned char id[20] = { 3, 1, 4 };
	struct record_opts o = { .duration_ns = 200000000 };
	struct cg_frame f = cg_valid(id, 20, 0x40);
	struct run r;
	int i;

	fake_reset();
	for (i = 0; i < 3; i++)
		cg_sample(&fk.live, 10 + i, 0, 1, 1, "live", STACKID_SF_USER,
			  1, &f);
	cg_sample(&fk.late, 20, 0, 1, 1, "lateone",
		  STACKID_SF_USER | STACKID_SF_DEFERRED, 1, &f);
	fk.late_at = at;
	fk.stats[STACKID_STAT_SAMPLES] = 4;
	fk.stats[STACKID_STAT_DELIVERED] = 3;
	fk.stats[STACKID_STAT_DEFERRED] = 1;
	if (stale) {
		fk.stats[STACKID_STAT_DROP_STALE] = 1;
		fk.stats[STACKID_STAT_DEFERRED_DONE] = 1;
	}
	run(&o, &r);
	tap_ok(r.status == 0 && fk.late_out &&
	       strstr(r.err, stale ? " ok  samples 4 == delivered 4 + "
				     "dropped 1 - finished from an earlier" :
				     " ok  samples 4 == delivered 4 + "
				     "dropped 0") &&
	       strstr(r.err, "(4 samples,") && !strstr(r.err, "MISMATCH") &&
	       memmem(r.cap, r.caplen, "lateone", 7),
	       "a deferred sample delivered %s: drained too, 4 read, 4 "
	       "delivered", what);
	if (!strstr(r.err, " ok  samples 4 ") || strstr(r.err, "MISMATCH"))
		fprintf(stderr, "%s", r.err);
	run_free(&r);
}

static void test_late_delivery(void)
{
	late_case(1, false, "between the drain after DISABLE and the "
		  "GET_STATS after it");
	late_case(2, false, "after the first GET_STATS that follows "
		  "DISABLE");
	late_case(4, true, "after a wait, an earlier recording's sample "
		  "finished as stale meanwhile");
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

static void rotate_data(void);

/* CAPTURE_REC_SKIPPED records of @cap: how many, and their bytes. */
static int skip_records(const unsigned char *cap, size_t len,
			uint64_t *bytes, uint32_t *ring, uint32_t *flags)
{
	struct capture *c = malloc(sizeof(*c));
	const void *rec;
	uint64_t off;
	int n = 0;

	*bytes = 0;
	if (!capture_open_mem(c, cap, len, "rec"))
		while (capture_next(c, &rec, &off) > 0) {
			const struct capture_skipped *k = rec;

			if (k->hdr.type != CAPTURE_REC_SKIPPED)
				continue;
			n++;
			*bytes += k->bytes;
			*ring = k->ring;
			*flags = k->flags;
		}
	capture_close(c);
	free(c);
	return n;
}

/* The capture in @r reads back clean (report, folded). */
static bool reads_back(const struct run *r)
{
	struct report_opts ro = { .format = FORMAT_FOLDED };
	struct capture *c = malloc(sizeof(*c));
	FILE *dn = fopen("/dev/null", "w");
	int st = capture_open_mem(c, r->cap, r->caplen, "rec");

	if (!st)
		st = report_run(c, &ro, dn, dn);
	fclose(dn);
	capture_close(c);
	free(c);
	return st == 0;
}

/* 40 samples of one frame each, on ring 0. */
static void forty_samples(void)
{
	static const unsigned char id[20] = { 0x40 };
	struct cg_frame f = cg_valid(id, 20, 0x100);
	int i;

	cg_path(&fk.live, id, 20, "/usr/bin/forty");
	for (i = 0; i < 40; i++)
		cg_sample(&fk.live, 1000 + i, 0, 10, 10, "forty",
			  STACKID_SF_USER, 1, &f);
}

/*
 * SIGTERM while the rings are always ready (a recorder that cannot keep
 * up): ppoll() never delivers it, yet it stops the recording at the next
 * turn, not at the end of -d.
 */
static void test_stop_busy(void)
{
	struct record_opts o = { .duration_ns = 5000000000ULL };
	struct run r;

	fake_reset();
	forty_samples();
	fk.busy_at = 60;	/* after the 41 records */
	run(&o, &r);
	tap_ok(r.status == 0 && strstr(r.err, "stopped by SIGTERM") &&
	       strstr(r.err, "(40 samples,") && fk.polls <= fk.busy_at + 1 &&
	       r.secs < 4, "SIGTERM with the rings always ready: stopped "
	       "after poll %d (SIGTERM at %d), in %.2f s of -d 5, every "
	       "sample kept", fk.polls, fk.busy_at, r.secs);
	run_free(&r);
}

/*
 * The same through read() (a device whose rings could not be mapped):
 * the loop reads a bounded number of blocks a turn, so the stop is
 * taken within a turn even when read() never runs dry; with @rotating,
 * also when every turn rotates (a rotation drains before it opens the
 * next file, and what is left goes into the next file).
 */
static void test_stop_endless_read(bool rotating)
{
	char dir[] = "/tmp/stackid-rot.XXXXXX", rm[600];
	struct record_opts o = { .duration_ns = 5000000000ULL };
	const char *p;
	long samples = -1;
	struct run r;
	int after;

	if (rotating) {
		if (!tap_ok(mkdtemp(dir) != NULL, "endless read, rotating: "
			    "temporary directory"))
			return;
		o.rotate_ns = 1000;
		o.dir = dir;
		o.out = capfile;
	}
	fake_reset();
	forty_samples();
	fk.endless_at = 50;
	run(&o, &r);
	after = fk.sigterm_read ? fk.reads - fk.sigterm_read : -1;
	if (rotating) {
		tap_ok(r.status == 0 && strstr(r.err, "stopped by SIGTERM") &&
		       after >= 0 && after <= REC_DRAIN_READS_MAX + 1 &&
		       r.secs < 4, "... and with a rotation every turn: "
		       "stopped %d reads after it, in %.2f s, exit %d", after,
		       r.secs, r.status);
		run_free(&r);
		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		if (system(rm))
			printf("# %s failed\n", rm);
		return;
	}
	p = strstr(r.err, "records written");
	if (p && (p = strchr(p, '(')))
		samples = strtol(p + 1, NULL, 10);
	tap_ok(r.status == 0 && strstr(r.err, "stopped by SIGTERM") &&
	       after >= 0 && after <= REC_DRAIN_READS_MAX + 1 && r.secs < 4 &&
	       samples >= 40 * (fk.endless_at - 1) && samples % 40 == 0,
	       "SIGTERM while read() never runs dry: stopped %d reads after "
	       "it (at most %d a turn), in %.2f s of -d 5, %ld samples (40 "
	       "a read), exit %d", after, REC_DRAIN_READS_MAX, r.secs,
	       samples, r.status);
	run_free(&r);
}

/*
 * After DISABLE the last drain still reads until the device is dry,
 * however many reads that takes: here 41, a record each.
 */
static void test_final_drain_whole(void)
{
	struct record_opts o = { .duration_ns = 5000000000ULL };
	struct stackid_record_hdr h;
	size_t off;
	struct run r;

	fake_reset();
	forty_samples();
	/* take(): one whole record a read, the largest */
	fk.chunk = 0;
	for (off = 0; off < fk.live.len; off += h.size) {
		memcpy(&h, fk.live.buf + off, sizeof(h));
		if (h.size > fk.chunk)
			fk.chunk = h.size;
	}
	fk.sigint_at = 1;	/* stop at once: all is read after DISABLE */
	run(&o, &r);
	tap_ok(r.status == 0 && strstr(r.err, "(40 samples,") &&
	       fk.live_pos == fk.live.len, "stopped before any read: the "
	       "last drain reads all 41 records, one a read, %d more than a "
	       "turn's %d (exit %d)", 41 - REC_DRAIN_READS_MAX,
	       REC_DRAIN_READS_MAX, r.status);
	run_free(&r);
}

/*
 * Data that is not records (issue 18: a reader wrote into its mapping),
 * and records that fail their check: skipped, counted, said in the
 * capture, and the recording goes on.
 */
static void test_skip(void)
{
	struct record_opts o = { .duration_ns = 60000000000ULL };
	struct cg_frame bad = cg_ip(0x10, STACKID_IP_NO_VMA);
	uint64_t bytes;
	uint32_t ring = 0, flags = 0;
	size_t at;
	int n;
	struct run r;

	/* a mapped ring: 48 bytes of garbage after the 10th record */
	fake_reset();
	fake_ring();
	forty_samples();
	{
		struct stackid_record_hdr h;
		size_t off = 0;
		int k;

		for (k = 0; k < 10; k++) {
			memcpy(&h, fk.live.buf + off, sizeof(h));
			off += h.size;
		}
		fk.garbage_at = off + 1;
	}
	fk.sigint_at = 100;
	run(&o, &r);
	n = skip_records(r.cap, r.caplen, &bytes, &ring, &flags);
	tap_ok(r.status == 0 && strstr(r.err, "(40 samples,") &&
	       strstr(r.err, "ring 0: ring data that is not a record: 48 "
		      "bytes skipped; recording goes on") &&
	       strstr(r.err, "  bytes skipped                      48  (1 "
		      "times"), "a mapped ring with 48 bytes that are no "
	       "record: skipped to the head, all 40 samples recorded, "
	       "exit %d", r.status);
	tap_ok(n == 1 && bytes == 48 && ring == 0 && !flags && reads_back(&r),
	       "... said in the capture (a SKIPPED record: ring 0, 48 "
	       "bytes), which reads back clean");
	run_free(&r);

	/* read(): EIO once, the module having skipped such data */
	fake_reset();
	forty_samples();
	{
		struct stackid_record_hdr h;

		memcpy(&h, fk.live.buf, sizeof(h));
		fk.eio_at = h.size + 1;
	}
	fk.sigint_at = 100;
	run(&o, &r);
	n = skip_records(r.cap, r.caplen, &bytes, &ring, &flags);
	tap_ok(r.status == 0 && strstr(r.err, "(40 samples,") &&
	       strstr(r.err, "the module skipped the data; recording goes "
		      "on") && n == 1 && !bytes &&
	       ring == CAPTURE_SKIP_NO_RING &&
	       flags == CAPTURE_SKIP_BY_MODULE && reads_back(&r),
	       "read() fails once with EIO: counted, marked in the capture, "
	       "recording goes on (exit %d)", r.status);
	run_free(&r);

	/* a sample whose frame status is nonsense, among good ones */
	fake_reset();
	forty_samples();
	at = cg_sample(&fk.live, 2000, 0, 10, 10, "bad", 0, 1, &bad);
	fk.live.buf[at + sizeof(struct stackid_sample) +
		    offsetof(struct stackid_frame, status)] = 77;
	forty_samples();
	fk.sigint_at = 200;
	run(&o, &r);
	n = skip_records(r.cap, r.caplen, &bytes, &ring, &flags);
	tap_ok(r.status == 0 && strstr(r.err, "(80 samples,") && n == 1 &&
	       bytes == sizeof(struct stackid_sample) +
			sizeof(struct stackid_frame) &&
	       strstr(r.err, "bad frame status") && reads_back(&r),
	       "a record that fails its check is skipped alone (%" PRIu64
	       " bytes), the 80 others kept, the capture reads back",
	       bytes);
	run_free(&r);
}

/* -o and rotated captures: 0600 whatever the umask. */
static void test_modes(void)
{
	char dir[] = "/tmp/stackid-mode.XXXXXX", path[600], rm[600];
	struct record_opts o = { .duration_ns = 1000000 };
	struct stat st;
	mode_t old = umask(0);
	struct run r;
	DIR *dp;
	struct dirent *e;
	bool all = true;
	int n = 0, fd;

	fake_reset();
	run(&o, &r);
	tap_ok(r.status == 0 && !stat(capfile, &st) &&
	       (st.st_mode & 0777) == 0600, "-o: the capture is 0600 under "
	       "umask 0 (%o)", st.st_mode & 0777);
	run_free(&r);
	unlink(capfile);
	fd = open(capfile, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	chmod(capfile, 0644);
	fake_reset();
	run(&o, &r);
	tap_ok(r.status == 0 && !stat(capfile, &st) &&
	       (st.st_mode & 0777) == 0600, "-o over an existing 0644 file "
	       "of ours: made 0600 (%o)", st.st_mode & 0777);
	run_free(&r);
	if (mkdtemp(dir)) {
		rotate_data();
		o.dir = dir;
		o.rotate_ns = 100000000;
		o.duration_ns = 300000000;
		run(&o, &r);
		dp = opendir(dir);
		while (dp && (e = readdir(dp))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			all &= !stat(path, &st) && (st.st_mode & 0777) == 0600;
			n++;
		}
		if (dp)
			closedir(dp);
		tap_ok(r.status == 0 && n > 0 && all, "--rotate: %d files, "
		       "all 0600 under umask 0", n);
		run_free(&r);
		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		if (system(rm))
			printf("# %s failed\n", rm);
	}
	umask(old);
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

/* No disk in a test of timing (test_capdir's spy checks the fsyncs). */
static int nop_fsync(int fd)
{
	(void)fd;
	return 0;
}

/* The "files written" count in a recording's statistics, or -1. */
static long files_written(const char *err)
{
	const char *p = err ? strstr(err, "files written") : NULL;
	long v;

	return p && sscanf(p + strlen("files written"), "%ld", &v) == 1 ?
	       v : -1;
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
	/*
	 * The recorder rotates in its one thread, between reads: an fsync
	 * that a busy disk holds for a good part of a second makes it
	 * rotate late ("we fell behind") and write fewer files than the
	 * time asks for. Beside a build that writes, the rotations here
	 * (1 in 8 runs) made too few files for --keep's check. This is
	 * about when files rotate, not about what reaches the disk.
	 */
	capdir_fsync = nop_fsync;
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
		long w = files_written(r.err);
		/*
		 * the 3 newest of both runs' files: this run's (which name
		 * after the last run's), or, if this one wrote fewer than 3,
		 * the last run's newest ones first
		 */
		bool newest = w >= 3 ? strcmp(k[0].name, cf[n - 1].name) > 0 :
			      w >= 0 && n >= 3 - w &&
			      !strcmp(k[0].name, cf[n - (3 - w)].name);

		tap_ok(r.status == 0 && m == 3 && !tmps && newest &&
		       strstr(r.err, "files deleted"),
		       "--keep 3: the 3 newest files stay (%d; this run "
		       "wrote %ld), older runs' files count too", m, w);
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

	/*
	 * the status line: on when asked, with drops and files; refreshed
	 * every 0.5 s, so 1.5 s leaves room for a recorder that a busy host
	 * did not run for most of a second
	 */
	rotate_data();
	o.max_size = 0;
	o.duration_ns = 1500000000;
	o.status = 1;
	run(&o, &r);
	tap_ok(r.status == 0 && strstr(r.err, "\rrecording:") &&
	       strstr(r.err, " drops") && strstr(r.err, " files"),
	       "status line: records, rate, drops, files");
	run_free(&r);
	snprintf(rm, sizeof(rm), "%s'%s'", getenv("KEEPDIR") ? "ls -la " : "rm -rf ", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
	capdir_fsync = fsync;
}

/* A raw record into @g. */
static void raw(struct capgen *g, const void *rec)
{
	const struct stackid_record_hdr *h = rec;

	memcpy(cg_room(g, h->size), rec, h->size);
}

/*
 * Whether every sample of capture file @p reads alone: each valid frame's
 * index defined in its ring and its build-id named by a path record of
 * the file. *@samples counted.
 */
static bool reads_alone(const char *p, uint64_t *samples)
{
	struct capture *c = malloc(sizeof(*c));
	struct bidtab bids = { 0 };
	struct intern named = { 0 };
	const struct stackid_record_hdr *h;
	const void *rec;
	uint64_t off;
	bool ok = true;
	int st;
	unsigned int i;

	*samples = 0;
	st = capture_open(c, p) ? -1 : 1;
	while (st > 0 && (st = capture_next(c, &rec, &off)) > 0) {
		h = rec;
		if (h->type == STACKID_REC_BUILD_ID_PATH) {
			const struct stackid_build_id_path *bp = rec;

			intern_bytes(&named, bp->build_id, bp->build_id_len);
		} else if (bidtab_take(&bids, h)) {
			continue;
		} else if (h->type == STACKID_REC_SAMPLE) {
			const struct stackid_sample *s = rec;

			(*samples)++;
			for (i = 0; i < s->nr_frames; i++) {
				const struct bidtab_entry *e;

				if (s->frames[i].status != STACKID_FRAME_VALID)
					continue;
				e = bidtab_get(&bids, s->ring,
					       s->frames[i].bid);
				if (!e || intern_find(&named, e->id,
						      e->len) < 0)
					ok = false;
			}
		}
	}
	bidtab_free(&bids);
	intern_free(&named);
	capture_close(c);
	free(c);
	return ok && st == 0;
}

/*
 * --max-size against the tables of many rings (issue 19, 6): 8 rings of
 * 250 build-ids each, all named, then 400 samples over them, under a
 * 64 KiB bound. A file holds what its samples need, within the bound.
 */
static void test_max_size_replay(void)
{
	char dir[] = "/tmp/stackid-msz.XXXXXX", rm[600], path[600];
	struct record_opts o = {
		.duration_ns = 60000000000ULL, .rotate_ns = 60000000000ULL,
		.max_size = 65536,
	};
	static struct cfile cf[64];
	uint64_t samples, in_files = 0, biggest = 0;
	unsigned int ring, i;
	bool alone = true;
	int n, tmps, k;
	struct run r;

	if (!tap_ok(mkdtemp(dir) != NULL, "--max-size replay: temporary "
		    "directory"))
		return;
	fake_reset();
	fk.live.abi = 2;
	for (ring = 0; ring < 8; ring++) {
		struct stackid_epoch e = {
			.hdr = { sizeof(e), STACKID_REC_EPOCH,
				 STACKID_ABI_MAJOR },
			.ring = ring,
		};

		raw(&fk.live, &e);
		for (i = 1; i <= 250; i++) {
			struct stackid_build_id b = {
				.hdr = { sizeof(b), STACKID_REC_BUILD_ID,
					 STACKID_ABI_MAJOR },
				.ring = ring, .index = i, .build_id_len = 20,
				.build_id = { 0xb0, ring, i, i >> 8 },
			};
			char name[64];

			raw(&fk.live, &b);
			snprintf(name, sizeof(name), "/usr/lib/lib%u-%u.so",
				 ring, i);
			cg_path(&fk.live, b.build_id, 20, name);
		}
	}
	for (i = 0; i < 400; i++) {
		struct {
			struct stackid_sample s;
			struct stackid_frame f[2];
		} x = {
			.s = {
				.hdr = { sizeof(x), STACKID_REC_SAMPLE,
					 STACKID_ABI_MAJOR },
				.flags = STACKID_SF_USER, .cpu = i % 8,
				.tgid = 10, .tid = 10, .time_ns = 1000 + i,
				.comm = "msz", .nr_frames = 2, .ring = i % 8,
			},
			.f = {
				{ .addr = 0x10, .bid = 1 + (i * 7) % 250,
				  .status = STACKID_FRAME_VALID },
				{ .addr = 0x20, .bid = 1 + (i * 13) % 250,
				  .status = STACKID_FRAME_VALID },
			},
		};

		raw(&fk.live, &x);
	}
	fk.bursts[0] = fk.live.len;
	fk.nbursts = 1;
	fk.sigint_at = 20;
	o.dir = dir;
	fk.watch = dir;
	run(&o, &r);
	n = list_dir(dir, cf, 64, &tmps);
	for (k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "%s/%.255s", dir, cf[k].name);
		alone &= reads_alone(path, &samples);
		in_files += samples;
		if (cf[k].size > biggest)
			biggest = cf[k].size;
	}
	tap_ok(r.status == 0 && strstr(r.err, "(400 samples,") &&
	       !strstr(r.err, "records lost") && n > 0 && in_files > 0 &&
	       biggest <= o.max_size && fk.watch_max <= o.max_size,
	       "--max-size 64K, 8 rings x 250 build-ids: all 400 samples "
	       "written, none lost, %d files of at most %" PRIu64 " bytes "
	       "(%" PRIu64 " samples in those kept)", n, biggest, in_files);
	tap_ok(alone && n > 0, "each file kept names and defines every "
	       "build-id its samples use, and reads clean");
	run_free(&r);

	/* a bound that cannot hold a file's own records: refused */
	fake_reset();
	o.max_size = REC_MAX_SIZE_MIN - 8;
	run(&o, &r);
	tap_ok(r.status == EXIT_USAGE && strstr(r.err, "is too small") &&
	       !fk.enabled && !fk.nlog, "--max-size below %zu: refused at "
	       "start (%.*s)", (size_t)REC_MAX_SIZE_MIN, LINE(r.err));
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

/*
 * Delta samples (ABI 2.6) under rotation: 2 rings of samples written as
 * the module writes them (src/delta.h: deep stacks that share callers,
 * another process now and then), into files of at most 16 KiB. Every
 * file reads alone: a delta sample whose ring's previous sample is in an
 * earlier file is written whole, and each sample comes back exactly.
 * With @bad, a record that fails its check comes after sample 300: the
 * deltas after it cannot be rebuilt until their ring's next whole
 * sample, so they are skipped and counted, never given wrong frames.
 */
#define DELTA_SAMPLES	600
#define DELTA_DEPTH	40

static void delta_stack(unsigned int i, struct stackid_sample *s, uint64_t *f)
{
	unsigned int k, n = DELTA_DEPTH - (i % 5);
	struct stackid_frame fr = { .status = STACKID_FRAME_VALID };

	memset(s, 0, sizeof(*s));
	s->hdr.size = sizeof(*s) + n * sizeof(uint64_t);
	s->hdr.type = STACKID_REC_SAMPLE_PACKED;
	s->hdr.abi_major = STACKID_ABI_MAJOR;
	s->flags = STACKID_SF_USER;
	s->ring = s->cpu = i % 2;
	s->tgid = 10 + (i / 50) % 3;
	s->tid = s->tgid + i % 4;
	s->time_ns = 1000 + i;
	memcpy(s->comm, "delta", 6);
	s->nr_frames = n;
	for (k = 0; k < n; k++) {
		/* the innermost few vary, the callers do not */
		fr.bid = 1 + (k < 3 ? (i * 7 + k) % 20 : k % 20);
		fr.addr = 0x100 + (k < 3 ? i % 13 : 0) + 16 * k;
		f[k] = stackid_frame_pack(&fr);
	}
}

/* Whether file @p reads alone and its samples are delta_stack()'s. */
static bool delta_file(const char *p, uint64_t *samples, uint64_t *deltas)
{
	struct capture *c = malloc(sizeof(*c));
	struct deltas d = { 0 };
	uint64_t want[DELTA_DEPTH];
	struct stackid_sample ws;
	const struct stackid_sample *s;
	const char *why;
	const void *rec, *full;
	uint64_t off;
	bool ok = true;
	int st;

	st = capture_open(c, p) ? -1 : 1;
	while (st > 0 && (st = capture_next(c, &rec, &off)) > 0) {
		if (((const struct stackid_record_hdr *)rec)->type >=
		    CAPTURE_REC_FIRST)
			continue;
		*deltas += ((const struct stackid_record_hdr *)rec)->type ==
			   STACKID_REC_SAMPLE_DELTA;
		full = deltas_take(&d, rec, &why);
		if (!full) {
			printf("# %s at %" PRIu64 ": %s\n", p, off, why);
			ok = false;
			continue;
		}
		s = full;
		if (s->hdr.type != STACKID_REC_SAMPLE_PACKED)
			continue;
		(*samples)++;
		if (s->time_ns < 1000 ||
		    s->time_ns >= 1000 + (uint64_t)DELTA_SAMPLES) {
			ok = false;
			continue;
		}
		delta_stack(s->time_ns - 1000, &ws, want);
		if (memcmp(s, &ws, sizeof(ws)) ||
		    memcmp(s + 1, want, s->nr_frames * sizeof(uint64_t))) {
			printf("# %s at %" PRIu64 ": sample %" PRIu64
			       " differs\n", p, off,
			       (uint64_t)s->time_ns - 1000);
			ok = false;
		}
	}
	deltas_free(&d);
	capture_close(c);
	free(c);
	return ok && st == 0;
}

/* Each file of a delta case, checked as it is closed (capdir_fsync). */
static struct {
	uint64_t samples, deltas;
	int files;
	bool alone;
} dspy;

static int delta_fsync(int fd)
{
	struct stat st;
	char p[64];

	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		dspy.alone &= delta_file(p, &dspy.samples, &dspy.deltas);
		dspy.files++;
	}
	return fsync(fd);
}

static void delta_case(bool bad)
{
	char dir[] = "/tmp/stackid-delta.XXXXXX", rm[600], path[600];
	struct record_opts o = {
		.duration_ns = 60000000000ULL, .rotate_ns = 60000000000ULL,
		.max_size = 16384,
	};
	static struct stackid_delta_base base[2];
	static struct cfile cf[64];
	uint64_t samples = 0, deltas = 0, written = 0, f[DELTA_DEPTH];
	static unsigned char rec[DELTAS_SAMPLE_MAX];
	struct stackid_sample_delta dh;
	struct stackid_sample s;
	unsigned int ring, i;
	bool alone = true;
	int n, tmps, k, same, files;
	struct run r;

	if (!tap_ok(mkdtemp(dir) != NULL, "delta: temporary directory"))
		return;
	fake_reset();
	fk.live.abi = 2;
	for (ring = 0; ring < 2; ring++) {
		struct stackid_epoch e = {
			.hdr = { sizeof(e), STACKID_REC_EPOCH,
				 STACKID_ABI_MAJOR },
			.ring = ring,
		};

		raw(&fk.live, &e);
		stackid_delta_forget(&base[ring]);
		for (i = 1; i <= 20; i++) {
			struct stackid_build_id b = {
				.hdr = { sizeof(b), STACKID_REC_BUILD_ID,
					 STACKID_ABI_MAJOR },
				.ring = ring, .index = i, .build_id_len = 20,
				.build_id = { 0xde, ring, i },
			};
			char name[64];

			raw(&fk.live, &b);
			snprintf(name, sizeof(name), "/usr/lib/d%u-%u.so",
				 ring, i);
			cg_path(&fk.live, b.build_id, 20, name);
		}
	}
	for (i = 0; i < DELTA_SAMPLES; i++) {
		delta_stack(i, &s, f);
		same = stackid_delta_same(&base[s.ring], &s, f);
		if (same < 0) {
			memcpy(rec, &s, sizeof(s));
			memcpy(rec + sizeof(s), f, s.hdr.size - sizeof(s));
		} else {
			stackid_delta_hdr(&dh, &s, same);
			memcpy(rec, &dh, sizeof(dh));
			memcpy(rec + sizeof(dh), f, dh.hdr.size - sizeof(dh));
		}
		raw(&fk.live, rec);
		stackid_delta_take(&base[s.ring], &s, f, same >= 0);
		if (bad && i == 300) {
			struct stackid_build_id b = {
				.hdr = { sizeof(b), STACKID_REC_BUILD_ID,
					 STACKID_ABI_MAJOR },
				.build_id_len = 20,	/* index 0: bad */
			};

			raw(&fk.live, &b);
		}
	}
	fk.bursts[0] = fk.live.len;
	fk.nbursts = 1;
	fk.sigint_at = 20;
	o.dir = dir;
	fk.watch = dir;
	memset(&dspy, 0, sizeof(dspy));
	dspy.alone = true;
	capdir_fsync = delta_fsync;
	run(&o, &r);
	capdir_fsync = fsync;
	n = list_dir(dir, cf, 64, &tmps);
	for (k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "%s/%.255s", dir, cf[k].name);
		alone &= delta_file(path, &samples, &deltas);
	}
	if (sscanf(strchr(strstr(r.err, "records written") ?: "", '(') ?: "",
		   "(%" SCNu64 " samples", &written) != 1)
		written = 0;
	if (sscanf(strstr(r.err, "files written") ?: "",
		   "files written %d", &files) != 1)
		files = 0;
	if (!bad) {
		tap_ok(r.status == 0 && written == DELTA_SAMPLES &&
		       !strstr(r.err, "records lost") && files > 4 &&
		       dspy.files == files && dspy.alone &&
		       dspy.samples == DELTA_SAMPLES &&
		       dspy.deltas > DELTA_SAMPLES / 2 &&
		       dspy.deltas < DELTA_SAMPLES,
		       "delta samples: all %" PRIu64 " written, into %d files "
		       "under a 16 KiB bound; in the %d checked as each was "
		       "closed, %" PRIu64 " samples come back exactly, %" PRIu64
		       " of them written as deltas", written, files,
		       dspy.files, dspy.samples, dspy.deltas);
	} else {
		uint64_t lost = 0;

		if (sscanf(strstr(r.err, "\n  samples lost") ?: "",
			   " samples lost %" SCNu64, &lost) != 1)
			lost = 0;
		tap_ok(r.status == 0 && strstr(r.err, "bytes skipped") &&
		       written < DELTA_SAMPLES &&
		       written + lost == DELTA_SAMPLES &&
		       strstr(r.err, " 600 samples read,") &&
		       written + 2 * STACKID_DELTA_RUN_MAX + 2 >=
		       DELTA_SAMPLES && dspy.alone &&
		       dspy.samples == written,
		       "a bad record among delta samples: %" PRIu64 " of %d "
		       "written, %" PRIu64 " deltas that lost the sample "
		       "before them counted as lost; %" PRIu64 " come back "
		       "exactly", written, DELTA_SAMPLES, lost, dspy.samples);
	}
	tap_ok(alone && n > 0, "delta%s: every file reads alone, without a "
	       "delta whose sample before it is elsewhere", bad ? " after a "
	       "bad record" : "");
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

static void test_delta(void)
{
	struct record_opts o = { .duration_ns = 100000000 };
	struct run r;

	delta_case(false);
	delta_case(true);
	fake_reset();
	fk.version = STACKID_ABI_MAJOR << 16 | 5;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.format == STACKID_FORMAT_PACKED,
	       "ABI 2.5: packed frames asked for, no delta samples (%#x)",
	       fk.format);
	run_free(&r);
}

/*
 * An error in continuous mode (issue 19, 7): a file size limit stands
 * for a full disk. The file being written is kept as a capture of its
 * whole records, under its final name, and named; exit 2.
 */
static void test_rotate_error(void)
{
	char dir[] = "/tmp/stackid-err.XXXXXX", rm[600], path[600];
	struct record_opts o = {
		.duration_ns = 60000000000ULL, .rotate_ns = 60000000000ULL,
	};
	struct rlimit rl, old;
	static struct cfile cf[8];
	uint64_t samples = 0;
	int n, tmps;
	struct run r;

	if (!tap_ok(mkdtemp(dir) != NULL, "error: temporary directory"))
		return;
	rotate_data();
	fk.pace_ns = 0;
	fk.sigint_at = 1000;
	o.dir = dir;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	rl = old;
	rl.rlim_cur = 8000;
	setrlimit(RLIMIT_FSIZE, &rl);
	run(&o, &r);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	n = list_dir(dir, cf, 8, &tmps);
	if (n == 1) {
		snprintf(path, sizeof(path), "%s/%.255s", dir, cf[0].name);
		reads_alone(path, &samples);
	}
	tap_ok(r.status == EXIT_SYSTEM && strstr(r.err, "File too large") &&
	       n == 1 && !tmps && cf[0].clean && cf[0].info &&
	       samples > 10 && cf[0].size <= 8000 &&
	       strstr(r.err, cf[0].name) && strstr(r.err, "is kept"),
	       "a write fails (file size limit): exit 2, the file kept as "
	       "a capture of its whole records (%d file, %" PRIu64 " samples, "
	       "%" PRIu64 " bytes; END if it fits: %s), named", n, samples,
	       n ? cf[0].size : 0, cf[0].end ? "yes" : "no");
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		printf("# %s failed\n", rm);
}

/* fsync()s seen by capdir: of a directory or a file, and when. */
static struct {
	const char *final;	/* set: whether it exists at each fsync */
	int n, file_before, dir_after, order_bad;
} fsyncs;

static int spy_fsync(int fd)
{
	struct stat st;
	bool exists;

	if (fstat(fd, &st))
		return -1;
	exists = fsyncs.final && !access(fsyncs.final, F_OK);
	fsyncs.n++;
	if (S_ISDIR(st.st_mode) && exists)
		fsyncs.dir_after++;
	else if (S_ISREG(st.st_mode) && !exists)
		fsyncs.file_before++;
	else
		fsyncs.order_bad++;
	return fsync(fd);
}

static size_t file_size(const char *p)
{
	struct stat st;

	return stat(p, &st) ? 0 : st.st_size;
}

/* A file of @n bytes (or @data) at @dir/@name. */
static void put_file(const char *dir, const char *name, const void *data,
		     size_t n)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		return;
	if (data)
		fwrite(data, 1, n, f);
	else
		while (n--)
			fputc('x', f);
	fclose(f);
}

/*
 * The capture directory (issue 19, 8, 11, 14): its owner and mode, a
 * planted symbolic link, syncs after rename, a temporary left by a run
 * that died, and a file that cannot be deleted.
 */
static void test_capdir(void)
{
	char dir[] = "/tmp/stackid-cd.XXXXXX", rm[600], p[600], q[600];
	static const char secret[] = "not to be overwritten";
	struct capdir d;
	struct run r;
	char *err = NULL, buf[64] = "";
	size_t elen, hl = sizeof(struct capture_hdr);
	FILE *fe;
	int ret, fd;

	if (!tap_ok(mkdtemp(dir) != NULL, "capdir: temporary directory"))
		return;
	fe = open_memstream(&err, &elen);

	/* a symbolic link planted under the temporary's name */
	snprintf(q, sizeof(q), "%s.target", dir);
	put_file("/tmp", strrchr(q, '/') + 1, secret, sizeof(secret));
	snprintf(p, sizeof(p), "%s/.stackid-20240101T000000.000000Z.cap.tmp",
		 dir);
	ret = capdir_init(&d, dir, 0, 0, fe);
	if (symlink(q, p))
		printf("# symlink: %s\n", strerror(errno));
	if (!ret)
		ret = capdir_create(&d, 1704067200000000000ULL);
	if (!ret && write(d.fd, "captured", 8) != 8)
		ret = -1;
	if (!ret)
		ret = capdir_close(&d);
	capdir_free(&d);
	fd = open(q, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = 0;
		close(fd);
	}
	tap_ok(ret == 0 && !strcmp(buf, secret), "a symbolic link planted "
	       "where the temporary would be: not followed, its target "
	       "intact ('%s')", buf);
	unlink(q);
	unlink(p);

	/* the directory: others' or writable by others, refused */
	chmod(dir, 0777);
	ret = capdir_init(&d, dir, 0, 0, fe);
	capdir_free(&d);
	chmod(dir, 01777);
	tap_ok(ret == EXIT_SYSTEM && capdir_init(&d, dir, 0, 0, fe) == 0,
	       "a directory writable by others: refused; sticky: accepted");
	capdir_free(&d);
	chmod(dir, 0700);
	if (!chown(dir, 4242, 4242)) {
		ret = capdir_init(&d, dir, 0, 0, fe);
		capdir_free(&d);
		tap_ok(ret == EXIT_SYSTEM, "a directory of another user "
		       "(uid 4242): refused");
		if (chown(dir, geteuid(), getegid()))
			printf("# chown back failed\n");
	} else {
		tap_ok(1, "# SKIP chown: %s", strerror(errno));
	}

	/* the file, then the directory after the rename */
	memset(&fsyncs, 0, sizeof(fsyncs));
	capdir_fsync = spy_fsync;
	ret = capdir_init(&d, dir, 0, 0, fe);
	if (!ret)
		ret = capdir_create(&d, 1704067201000000000ULL);
	fsyncs.final = d.final;
	if (!ret && write(d.fd, "captured", 8) != 8)
		ret = -1;
	if (!ret)
		ret = capdir_close(&d);
	capdir_fsync = fsync;
	tap_ok(ret == 0 && fsyncs.file_before == 1 && fsyncs.dir_after == 1 &&
	       !fsyncs.order_bad, "close: the file synced before the rename, "
	       "the directory after it");
	capdir_free(&d);
	snprintf(rm, sizeof(rm), "rm -rf '%s'/* '%s'/.s*", dir, dir);
	if (system(rm))
		printf("# %s failed\n", rm);

	/*
	 * temporaries of a run that died: a whole capture, one cut in a
	 * record, one with no record
	 */
	fake_reset();
	forty_samples();
	fk.sigint_at = 100;
	{
		struct record_opts o = { .duration_ns = 60000000000ULL };

		run(&o, &r);
	}
	put_file(dir, ".stackid-20240101T000002.000000Z.cap.tmp", r.cap,
		 r.caplen);
	put_file(dir, ".stackid-20240101T000003.000000Z.cap.1234abcd.tmp",
		 r.cap, r.caplen - sizeof(struct capture_end) - 100);
	put_file(dir, ".stackid-20240101T000004.000000Z.cap.5678abcd.tmp",
		 r.cap, hl + 40);
	ret = capdir_init(&d, dir, 0, 0, fe);
	capdir_free(&d);
	{
		uint64_t s2 = 0, s3 = 0;
		bool a2, a3;
		char p3[600];

		snprintf(p, sizeof(p), "%s/stackid-20240101T000002.000000Z.cap",
			 dir);
		snprintf(p3, sizeof(p3),
			 "%s/stackid-20240101T000003.000000Z.cap", dir);
		a2 = reads_alone(p, &s2);
		a3 = reads_alone(p3, &s3);
		tap_ok(ret == 0 && file_size(p) == r.caplen && a2 && s2 == 40,
		       "a whole capture left as a temporary: recovered under "
		       "its final name, not deleted (%" PRIu64 " samples)",
		       s2);
		tap_ok(a3 && s3 > 30 && s3 < 40 &&
		       file_size(p3) <= r.caplen - sizeof(struct capture_end) -
					 100,
		       "one cut inside a record: its whole records kept "
		       "(%" PRIu64 " samples), and it reads clean", s3);
		snprintf(p, sizeof(p), "%s/stackid-20240101T000004.000000Z.cap",
			 dir);
		snprintf(q, sizeof(q),
			 "%s/.stackid-20240101T000004.000000Z.cap.5678abcd.tmp",
			 dir);
		tap_ok(access(p, F_OK) && access(q, F_OK),
		       "one with no record: deleted");
	}
	run_free(&r);
	snprintf(rm, sizeof(rm), "rm -rf '%s'/* '%s'/.s*", dir, dir);
	if (system(rm))
		printf("# %s failed\n", rm);

	/* the oldest file cannot be deleted: its bytes still count */
	put_file(dir, "stackid-20240101T000005.000000Z.cap", NULL, 1000);
	put_file(dir, "stackid-20240101T000006.000000Z.cap", NULL, 1000);
	ret = capdir_init(&d, dir, 0, 2500, fe);
	snprintf(p, sizeof(p), "%s/stackid-20240101T000005.000000Z.cap", dir);
	snprintf(q, sizeof(q), "%s/stackid-20240101T000006.000000Z.cap", dir);
	unlink(p);
	mkdir(p, 0700);		/* unlink() now fails: EISDIR */
	put_file(p, "x", NULL, 1);
	{
		bool room = !ret && capdir_room(&d, 1000);

		tap_ok(room && d.closed_bytes == 1000 && d.deleted == 1 &&
		       d.undeletable == 1 && access(q, F_OK),
		       "an oldest file that cannot be deleted still counts: "
		       "the next one is deleted for room (%" PRIu64
		       " bytes counted, %" PRIu64 " deleted)", d.closed_bytes,
		       d.deleted);
	}
	capdir_free(&d);
	fclose(fe);
	if (getenv("VERBOSE"))
		printf("# %s", err);
	free(err);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
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
		.duration_ns = 1500000000, .rotate_ns = 100000000,
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
	/*
	 * 200 samples over 1.2 s, files of 0.1 s: about 12 with samples on
	 * a quiet host. One later file with samples is what the check needs
	 * (it names alone what the first file named); a host busy enough to
	 * leave the recorder unrun for most of a second still makes that.
	 */
	fk.pace_ns = 6000000;
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
	tap_ok(r.status == 0 && n >= 2 && !bad && samples == 200,
	       "--rotate 0.1, kernel frames and cgroups: %d files, each "
	       "reports alone (%d failed), %d of 200 samples", n, bad,
	       samples);
	tap_ok(named == 200 && later >= 1,
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
	int n, tmps, st = -1, s = 0, named = 0;
	struct run r;
	char *out = NULL;

	if (!tap_ok(mkdtemp(dir) != NULL, "epoch at a rotation: temporary "
		    "directory"))
		return;
	fake_reset();
	cg_sample_k(&fk.live, 1000, 0, 10, 10, "krot", STACKID_SF_KERNEL, 1,
		    &k, 1, 0);
	/*
	 * then a path record that fills the first file to 8 bytes short of
	 * the bound (the least there is), so that the next sample starts
	 * the next file
	 */
	o.max_size = REC_MAX_SIZE_MIN;
	{
		static const unsigned char id[20] = { 0xee };
		size_t want = (o.max_size - sizeof(struct capture_end) -
			       sizeof(struct capture_hdr) -
			       sizeof(struct capture_info) - fk.live.len - 8) &
			      ~(size_t)7;
		size_t len = want - sizeof(struct stackid_build_id_path) - 1;
		char *fill = malloc(len + 1);

		memset(fill, 'f', len);
		fill[0] = '/';
		fill[len] = 0;
		cg_path(&fk.live, id, 20, fill);
		free(fill);
	}
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

/* The build-id of @path, as stackid unwind-table says it (hex). */
static size_t bid_of(const char *path, unsigned char *id)
{
	char cmd[600], hex[64];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s/stackid unwind-table '%s' | "
		 "sed -n 's/^build-id //p'", BUILD, path);
	p = popen(cmd, "r");
	if (p && fgets(hex, sizeof(hex), p))
		for (n = 0; n < 20 && sscanf(hex + 2 * n, "%2hhx", &id[n]) == 1;
		     n++)
			;
	if (p)
		pclose(p);
	return n;
}

/*
 * The recorder's queue of paths (a min-heap by size, then arrival), by
 * itself: random adds and takes from the top or from anywhere (a path
 * that waited too long), with sizes that repeat; after each, every
 * item goes after its parent; every path added is taken once; what is
 * left comes out in order.
 */
static void test_unwind_queue(void)
{
	enum { OPS = 40000, CAP = 300 };
	static unsigned char taken[OPS];
	struct rec_unwind u = { 0 };
	struct rec_unwind_item it = { 0 }, prev;
	unsigned int seed = 7;
	size_t k, i, pushed = 0, bad = 0, twice = 0, mid = 0;
	int op;

	u.q = calloc(CAP, sizeof(*u.q));
	u.qcap = CAP;
	for (op = 0; op < OPS && u.q; op++) {
		if (!u.nq || (u.nq < CAP && rand_r(&seed) % 2)) {
			it.size = rand_r(&seed) % 8;
			it.seq = pushed++;
			rec_uq_push(&u, &it);
		} else {
			i = rand_r(&seed) % 3 ? 0 : rand_r(&seed) % u.nq;
			mid += i > 0;
			prev = u.q[i];
			it = rec_uq_take(&u, i);
			bad += it.seq != prev.seq;
			twice += taken[it.seq]++ > 0;
		}
		for (k = 1; k < u.nq; k++)
			bad += rec_uq_before(&u.q[k], &u.q[(k - 1) / 2]);
	}
	for (k = 0; u.q && u.nq; k++) {
		it = rec_uq_take(&u, 0);
		twice += taken[it.seq]++ > 0;
		bad += k && rec_uq_before(&it, &prev);
		prev = it;
	}
	for (k = 0; k < pushed; k++)
		bad += taken[k] != 1;
	tap_ok(u.q && !bad && !twice && pushed > OPS / 3 && mid > 1000,
	       "record: the unwind queue, %zu paths added and taken (%zu "
	       "from inside the heap): %zu out of order or lost, %zu twice",
	       pushed, mid, bad, twice);
	free(u.q);
}

/*
 * Record what was put into fk.live, and a sample of @f, all in one read;
 * stop after @polls polls (each one after a slice of unwind work while
 * paths wait, at once when none does).
 */
static void run_one_read(struct record_opts *o, struct run *r,
			 const struct cg_frame *f, int polls)
{
	cg_sample(&fk.live, 1000, 0, 10, 10, "x", STACKID_SF_USER, 1, f);
	fk.bursts[0] = fk.live.len;
	fk.nbursts = 1;
	fk.sigint_at = polls;
	run(o, r);
}

/*
 * Unwind tables: the file of each path record is compiled and loaded,
 * once per build-id, only if its build-id is the record's; counted.
 */
static void test_unwind(void)
{
	static const char *const exe = BUILD "/stackid";
	unsigned char id[20], other[20];
	struct cg_frame f;
	struct record_opts o = { .duration_ns = 60000000000ULL };
	size_t n = bid_of(exe, id);
	struct run r;

	if (!tap_ok(n == 20, "build/stackid has a 20-byte build-id"))
		return;
	memcpy(other, id, 20);
	other[0] ^= 1;
	fake_reset();
	f = cg_valid(id, 20, 0x100);
	cg_path(&fk.live, id, 20, exe);
	cg_path(&fk.live, id, 20, exe);		/* again: not tried again */
	cg_path(&fk.live, other, 20, exe);	/* not its build-id */
	cg_path(&fk.live, (const unsigned char *)"\7\7", 2, "/nonexistent/x");
	cg_path(&fk.live, (const unsigned char *)"\7\10", 2, "relative/x");
	cg_sample(&fk.live, 1000, 0, 10, 10, "x", STACKID_SF_USER, 1, &f);
	fk.sigint_at = 40;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.unwind_calls == 1 && fk.unwind_sorted &&
	       fk.unwind_rows > 100 && fk.unwind_id_len == 20 &&
	       !memcmp(fk.unwind_id, id, 20) &&
	       strstr(r.err, "  unwind tables                       1  (") &&
	       strstr(r.err, "  unwind tables not loaded            3  (no file "
		      "2, build-id mismatch 1, no CFI 0, no room 0, other 0, "
		      "not tried 0)"),
	       "record: the table of a path's file loaded once, a file of "
	       "another build-id and missing or relative paths not; "
	       "counted (%u rows) '%.*s'", fk.unwind_rows, LINE(strstr(r.err,
	       "  unwind") ? strstr(r.err, "  unwind") : r.err));
	run_free(&r);

	/*
	 * The system's libraries, loaded before sampling: this process maps
	 * libc and the dynamic loader at least; libc's path record from the
	 * stream then loads nothing more.
	 */
	{
		static const char *const libc = "/lib/x86_64-linux-gnu/libc.so.6";
		unsigned char cid[20];
		char want[64];
		int pre;

		if (bid_of(libc, cid) != 20) {
			printf("ok %d - # SKIP no %s\n", ++tap_n, libc);
		} else {
			fake_reset();
			cg_path(&fk.live, cid, 20, libc);
			cg_sample(&fk.live, 1000, 0, 10, 10, "x",
				  STACKID_SF_USER, 1, &f);
			fk.sigint_at = 20;
			o.preload_unwind = true;
			run(&o, &r);
			pre = fk.unwind_calls;
			snprintf(want, sizeof(want), "; %d of the system's "
				 "before sampling, in ", pre);
			tap_ok(r.status == 0 && pre >= 2 &&
			       fk.unwind_early == pre && strstr(r.err, want),
			       "record: %d tables of the system's libraries "
			       "loaded before ENABLE, libc's path not again "
			       "'%.*s'", pre, LINE(strstr(r.err, "  unwind") ?
			       strstr(r.err, "  unwind") : r.err));
			run_free(&r);

			fake_reset();
			o.no_unwind = true;
			fk.sigint_at = 20;
			run(&o, &r);
			tap_ok(r.status == 0 && !fk.unwind_calls,
			       "--no-unwind-tables: none before sampling "
			       "either");
			run_free(&r);
			o.no_unwind = false;
			o.preload_unwind = false;

			/*
			 * Named together, the smaller file's table first;
			 * but one that has waited long enough goes first
			 * whatever its size (here 1 ns: the oldest).
			 */
			{
				struct stat sl, se;
				bool exe_small = !stat(libc, &sl) &&
						 !stat(exe, &se) &&
						 se.st_size < sl.st_size;
				const unsigned char *big = exe_small ? cid : id;
				const unsigned char *small = exe_small ? id : cid;
				const char *bigp = exe_small ? libc : exe;
				const char *smallp = exe_small ? exe : libc;
				uint64_t w;

				for (w = 0; w < 2; w++) {
					fake_reset();
					cg_path(&fk.live, big, 20, bigp);
					cg_path(&fk.live, small, 20, smallp);
					/* w: 1 ns, else never */
					o.unwind_wait_ns = w ? w : UINT64_MAX;
					run_one_read(&o, &r, &f, 2000);
					tap_ok(r.status == 0 &&
					       fk.unwind_calls == 2 &&
					       !memcmp(fk.unwind_order[0],
						       w ? big : small, 20) &&
					       !memcmp(fk.unwind_order[1],
						       w ? small : big, 20),
					       w ? "record: a path that has "
					       "waited long enough goes first, "
					       "whatever its size (%s before %s)"
					       : "record: of two paths named "
					       "together, the smaller file's "
					       "table first (%s before %s)",
					       w ? bigp : smallp,
					       w ? smallp : bigp);
					run_free(&r);
				}
				o.unwind_wait_ns = 0;
			}
		}
	}

	/*
	 * Many paths named at once, in an order of their own: the tables
	 * are loaded by the files' size, smallest first.
	 */
	{
		static const char *const files[] = {
			BUILD "/test_record", BUILD "/test_abi",
			BUILD "/stackid", BUILD "/test_uwtab",
			BUILD "/mkcapture", BUILD "/test_bidcache",
			BUILD "/elfdeps", BUILD "/test_ring",
			BUILD "/test_elfnote",
		};
		enum { NF = sizeof(files) / sizeof(files[0]) };
		unsigned char ids[NF][20];
		off_t size[NF];
		struct stat st;
		size_t i, j, named = 0, sorted = 0;

		fake_reset();
		for (i = 0; i < NF; i++) {
			if (bid_of(files[i], ids[named]) != 20 ||
			    stat(files[i], &st))
				continue;
			size[named] = st.st_size;
			cg_path(&fk.live, ids[named], 20, files[i]);
			named++;
		}
		o.unwind_wait_ns = UINT64_MAX;	/* by size only */
		run_one_read(&o, &r, &f, 2000);
		o.unwind_wait_ns = 0;
		/* each loaded table's file no larger than the next's */
		for (i = 0; i + 1 < (size_t)fk.unwind_calls && i + 1 < 16;
		     i++) {
			off_t a = -1, b = -1;

			for (j = 0; j < named; j++) {
				if (!memcmp(ids[j], fk.unwind_order[i], 20))
					a = size[j];
				if (!memcmp(ids[j], fk.unwind_order[i + 1], 20))
					b = size[j];
			}
			sorted += a >= 0 && b >= 0 && a <= b;
		}
		tap_ok(r.status == 0 && named >= 6 &&
		       fk.unwind_calls == (int)named &&
		       sorted + 1 == named,
		       "record: %zu paths named at once, their tables "
		       "loaded smallest file first (%zu of %zu in order)",
		       named, sorted, named ? named - 1 : 0);
		run_free(&r);
	}

	/*
	 * More new build-ids at once than the queue holds: those beyond
	 * REC_UNWIND_QUEUE_MAX are not tried, the rest are, and every one
	 * is counted. No such file here: each costs a failed open, in the
	 * recorder's root and in each other root there is (at most 256),
	 * and the recording stops only once the queue has had 2,000 slices
	 * of 50 ms, far more than that takes.
	 */
	{
		enum { N = REC_UNWIND_QUEUE_MAX + 104 };
		unsigned long nofile = 0, left = 0;
		unsigned char bid[20] = { 0 };
		const char *line;
		char path[64];
		unsigned int i;

		fake_reset();
		for (i = 0; i < N; i++) {
			memcpy(bid, &i, sizeof(i));
			snprintf(path, sizeof(path), "/nonexistent/%u", i);
			cg_path(&fk.live, bid, 20, path);
		}
		run_one_read(&o, &r, &f, 2000);
		line = strstr(r.err, "  unwind tables not loaded");
		if (line)
			sscanf(line, "  unwind tables not loaded %*u (no file "
			       "%lu, build-id mismatch 0, no CFI 0, no room 0, "
			       "other 0, not tried %lu)", &nofile, &left);
		tap_ok(r.status == 0 && !fk.unwind_calls &&
		       nofile == REC_UNWIND_QUEUE_MAX &&
		       left == N - REC_UNWIND_QUEUE_MAX,
		       "record: %d new build-ids at once, each counted: no "
		       "file %lu, not tried %lu", N, nofile, left);
		run_free(&r);
	}

	fake_reset();
	cg_path(&fk.live, id, 20, exe);
	fk.unwind_errno = EEXIST;
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.unwind_calls == 1 &&
	       strstr(r.err, "(0 rows, 0 bytes; 1 loaded before)"),
	       "EEXIST: loaded before, fine");
	run_free(&r);

	fake_reset();
	cg_path(&fk.live, id, 20, exe);
	fk.unwind_errno = ENOSPC;
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.unwind_calls == 1 &&
	       strstr(r.err, "no room 1,"), "ENOSPC: counted");
	run_free(&r);

	fake_reset();
	cg_path(&fk.live, id, 20, exe);
	o.no_unwind = true;
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && !fk.unwind_calls &&
	       !strstr(r.err, "unwind"), "--no-unwind-tables: none");
	run_free(&r);
	o.no_unwind = false;

	fake_reset();
	fk.version = (2 << 16) | 1;	/* 2.1 */
	cg_path(&fk.live, id, 20, exe);
	cg_path(&fk.live, other, 20, exe);
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && !fk.unwind_calls &&
	       strstr(r.err, "stackid: note: the module (ABI 2.1) takes no "
		      "unwind tables") &&
	       !strstr(strstr(r.err, "takes no unwind") + 15, "unwind"),
	       "a module of ABI 2.1: one notice, no ioctl");
	run_free(&r);
}

/*
 * Another root's files (a container's): a child in a mount namespace of
 * its own has a tmpfs over DIR holding build/stackid as DIR/x, where
 * this namespace has another file (/bin/true); the child's own child
 * has that tmpfs as its root (chroot), where /l is an absolute symbolic
 * link to /x, which this root does not have: both tables are found
 * below the processes' roots, the link resolved inside its root.
 */
static void test_unwind_other_root(void)
{
	static const char *const exe = BUILD "/stackid";
	char dir[] = BUILD "/unwind-root.XXXXXX", x[128], cmd[400], c = 'n';
	unsigned char id[20];
	struct record_opts o = { .duration_ns = 60000000000ULL };
	struct run r;
	int sync[2];
	pid_t pid;

	if (bid_of(exe, id) != 20 || !mkdtemp(dir) || pipe(sync)) {
		tap_ok(0, "another root: mkdtemp, pipe: %s", strerror(errno));
		return;
	}
	snprintf(x, sizeof(x), "%s/x", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/true '%s'", x);
	if (system(cmd))
		printf("# %s failed\n", cmd);
	pid = fork();
	if (pid == 0) {
		close(sync[0]);
		setpgid(0, 0);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && ln -s /x '%s/l'",
			 exe, x, dir);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("none", dir, "tmpfs", 0, NULL) || system(cmd))
			_exit(1);
		if (fork() == 0) {
			if (chroot(dir) || chdir("/"))
				_exit(1);
			if (write(sync[1], "y", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		close(sync[1]);
		pause();
		_exit(0);
	}
	close(sync[1]);
	if (pid < 0 || read(sync[0], &c, 1) != 1 || c != 'y') {
		tap_ok(1, "another root: # SKIP no mount namespace of its own "
		       "for a child (not root?)");
		goto out;
	}
	fake_reset();
	cg_path(&fk.live, id, 20, x);
	cg_path(&fk.live, (const unsigned char *)"\1\2\3\4", 4, "/l");
	cg_path(&fk.live, (const unsigned char *)"\1\2\3\5", 4,
		"/nonexistent-anywhere");
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.unwind_calls == 1 &&
	       !memcmp(fk.unwind_id, id, 20) &&
	       strstr(r.err, "; 1 found in another root)") &&
	       strstr(r.err, "(no file 1, build-id mismatch 1,"),
	       "record: a path that is another file here is found below "
	       "another mount namespace's root; one of another build-id "
	       "there and one nowhere are not '%.*s'",
	       LINE(strstr(r.err, "  unwind") ? strstr(r.err, "  unwind") :
		    r.err));
	run_free(&r);

	fake_reset();
	cg_path(&fk.live, id, 20, "/l");
	fk.sigint_at = 20;
	run(&o, &r);
	tap_ok(r.status == 0 && fk.unwind_calls == 1 &&
	       !memcmp(fk.unwind_id, id, 20) &&
	       strstr(r.err, "; 1 found in another root)") &&
	       !strstr(r.err, "not loaded"),
	       "record: a path found below a chroot's root, its absolute "
	       "symbolic link resolved there '%.*s'",
	       LINE(strstr(r.err, "  unwind") ? strstr(r.err, "  unwind") :
		    r.err));
	run_free(&r);
out:
	close(sync[0]);
	if (pid > 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

/*
 * stackid_record_check_rebuilt() (deltas_take's check of the sample a
 * delta stands for) against the whole check of that sample: random
 * previous samples and deltas that pass stackid_record_check(), their
 * frames drawn from good and bad kernel, user and address frames, kernel
 * frame counts that move the previous sample's frames between kernel and
 * user places. The two must agree on every one, and both kinds of result
 * must occur often.
 */
static uint64_t rb_state = 0x9e3779b97f4a7c15ULL;

static unsigned int rb_rand(unsigned int n)
{
	rb_state ^= rb_state << 13;
	rb_state ^= rb_state >> 7;
	rb_state ^= rb_state << 17;
	return n ? (unsigned int)(rb_state % n) : 0;
}

static uint64_t rb_frame(void)
{
	static const struct stackid_frame pool[] = {
		{ .status = STACKID_FRAME_KERNEL, .bid = 3, .addr = 0x10 },
		{ .status = STACKID_FRAME_KERNEL },
		{ .status = STACKID_FRAME_KERNEL, .addr = 5 },	/* bad */
		{ .status = STACKID_FRAME_VALID, .bid = 2, .addr = 0x100 },
		{ .status = STACKID_FRAME_VALID, .addr = 0x100 }, /* bad */
		{ .status = STACKID_FRAME_IP, .reason = STACKID_IP_NO_VMA,
		  .addr = 0x7000 },
		{ .status = STACKID_FRAME_IP, .addr = 0x7000 },	/* bad */
	};
	unsigned int i = rb_rand(ARRAY_SIZE(pool) + 1);

	/* one in eight: status 0 (STACKID_FRAME_EMPTY), never good */
	return i < ARRAY_SIZE(pool) ? stackid_frame_pack(&pool[i]) : 0x1234;
}

/*
 * Mostly good frames, kernel ones where the sample puts them; one in
 * four from rb_frame(), one in @depth in a sample deeper than 12 frames
 * (so that about half of those have no bad frame).
 */
static uint64_t rb_frame_at(bool kernel, unsigned int depth)
{
	struct stackid_frame k = { .status = STACKID_FRAME_KERNEL, .bid = 1 };
	struct stackid_frame u = { .status = STACKID_FRAME_VALID, .bid = 1 };

	if (rb_rand(depth > 12 ? depth : 4))
		return stackid_frame_pack(kernel ? &k : &u);
	return rb_frame();
}

/* A kernel frame count for @n frames: often a few, else any. */
static unsigned int rb_kernel(unsigned int n)
{
	return rb_rand(2) ? rb_rand((n < 8 ? n : 8) + 1) : rb_rand(n + 1);
}

static unsigned int rb_flags(unsigned int nr_kernel)
{
	static const unsigned int f[] = {
		STACKID_SF_USER, STACKID_SF_KERNEL,
		STACKID_SF_KERNEL | STACKID_SF_KTHREAD,
		STACKID_SF_USER | STACKID_SF_KERNEL, 0,
	};

	return rb_rand(3) ? (nr_kernel ? STACKID_SF_KERNEL : STACKID_SF_USER)
			  : f[rb_rand(ARRAY_SIZE(f))];
}

/* A depth: mostly a few frames, one in eight up to one past the most. */
static unsigned int rb_depth(void)
{
	return rb_rand(8) ? rb_rand(13) : rb_rand(STACKID_MAX_DEPTH + 2);
}

static void test_rebuilt_check(void)
{
	enum { MAXF = STACKID_MAX_DEPTH + 1 };
	static uint64_t prev[(sizeof(struct stackid_sample) + MAXF * 8) / 8];
	static uint64_t delta[(sizeof(struct stackid_sample_delta) +
			       MAXF * 8) / 8];
	static uint64_t out[DELTAS_SAMPLE_MAX / 8];
	static struct stackid_delta_base b;
	struct stackid_sample *p = (void *)prev, *o = (void *)out;
	struct stackid_sample_delta *d = (void *)delta;
	unsigned long tried = 0, good = 0, bad = 0, differ = 0, moved = 0;
	unsigned long chained = 0, deep = 0;
	struct deltas ds = { 0 };
	unsigned int i, k, step, pn, n, cur;
	const char *why;
	bool whole, quick;

	for (i = 0; i < 200000; i++) {
		pn = rb_depth();
		memset(prev, 0, sizeof(prev));
		p->hdr.size = sizeof(*p) + pn * 8;
		p->hdr.type = STACKID_REC_SAMPLE_PACKED;
		p->hdr.abi_major = STACKID_ABI_MAJOR;
		p->ring = 1;
		p->nr_frames = pn;
		p->nr_kernel = rb_kernel(pn);
		p->flags = rb_flags(p->nr_kernel);
		for (k = 0; k < pn; k++)
			prev[sizeof(*p) / 8 + k] =
				rb_frame_at(k < p->nr_kernel, pn);
		/* only a sample that passed the check becomes a ring's base */
		if (stackid_record_check(p, p->hdr.size) <= 0)
			continue;
		stackid_delta_forget(&b);
		stackid_delta_take(&b, p, prev + sizeof(*p) / 8, false);
		deltas_forget_all(&ds);
		if (!deltas_take(&ds, p, &why))
			break;
		cur = pn;
		/* deltas in a row: the base becomes a rebuilt sample */
		for (step = 0; step < 4; step++) {
			n = cur > 12 && rb_rand(2) ? cur - 3 + rb_rand(7) :
						     rb_depth();
			memset(delta, 0, sizeof(delta));
			d->hdr.type = STACKID_REC_SAMPLE_DELTA;
			d->hdr.abi_major = STACKID_ABI_MAJOR;
			d->ring = 1;
			d->nr_frames = n;
			k = n < cur ? n : cur;
			d->nr_same = k > 3 && rb_rand(2) ? k - rb_rand(4) :
							   rb_rand(k + 1);
			d->nr_kernel = rb_kernel(n);
			d->flags = rb_flags(d->nr_kernel);
			d->hdr.size = sizeof(*d) + (n - d->nr_same) * 8;
			for (k = 0; k < n - d->nr_same; k++)
				delta[sizeof(*d) / 8 + k] =
					rb_frame_at(k < d->nr_kernel, n);
			if (stackid_record_check(d, d->hdr.size) <= 0)
				continue;
			/* the whole check, as deltas_take() did it before */
			whole = !stackid_delta_expand(&b, d, out, &why) &&
				stackid_record_check(out, sizeof(out)) > 0;
			/* deltas_take()'s */
			quick = deltas_take(&ds, d, &why) != NULL;
			tried++;
			good += whole;
			bad += !whole;
			differ += whole != quick;
			chained += step && whole;
			deep += whole && n > 64;
			/* kept frames now in a place of the other kind */
			for (k = 0; k < d->nr_same; k++)
				if ((n - d->nr_same + k < d->nr_kernel) !=
				    (cur - d->nr_same + k <
				     stackid_delta_prev(&b)->nr_kernel))
					break;
			moved += k < d->nr_same;
			if (!whole || !quick)
				break;
			stackid_delta_take(&b, o, out + sizeof(*o) / 8, true);
			cur = n;
		}
	}
	deltas_free(&ds);
	tap_ok(!differ && good > 10000 && bad > 10000 && moved > 10000 &&
	       chained > 1000 && deep > 1000,
	       "a rebuilt delta sample checked in part: %lu of %lu agree with "
	       "the whole check (%lu good, %lu bad; %lu that move kept frames "
	       "between kernel and user places, %lu on a rebuilt sample, %lu "
	       "of more than 64 frames)",
	       tried - differ, tried, good, bad, moved, chained, deep);
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
	test_stop_busy();
	test_stop_endless_read(false);
	test_stop_endless_read(true);
	test_final_drain_whole();
	test_late_delivery();
	test_io_errors();
	test_rotate();
	test_rotate_kernel();
	test_rotate_epoch();
	test_skip();
	test_modes();
	test_max_size_replay();
	test_delta();
	test_rebuilt_check();
	test_rotate_error();
	test_capdir();
	test_unwind_queue();
	test_unwind();
	test_unwind_other_root();
	unlink(capfile);
	fake_reset();
	return tap_done();
}
