// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`: open /dev/stackid, check the ABI, configure, map the
 * per-CPU rings, enable, then poll() and copy whole records out of the
 * rings (read() where they cannot be mapped) into the capture file, in
 * blocks of up to 1 MiB, until the duration ends or SIGINT/SIGTERM,
 * disable, drain, and print the module's statistics: the change of each
 * counter over the recording (RESET_STATS is not used: it is refused
 * while a sample of an earlier recording still waits for its task).
 *
 * Signals: SIGINT and SIGTERM are blocked except inside ppoll(), and
 * their handler only sets a flag, so a stop request ends the wait at
 * once and is never lost between a check and the wait.
 *
 * Every capture starts with an INFO record (wall clock, frequency, run
 * id, file number) and ends with an END record (close time, the
 * statistics counters accumulated while it was written).
 *
 * Continuous mode (--rotate, --dir): the same loop, and at each interval
 * the device is drained into the open file, which is then closed with
 * its END record and renamed (capdir.c); the next one starts at once, so
 * no record falls between two files, and the counters' deltas of all
 * files add up to the run's totals. The module writes a build-id's path
 * record and a cgroup's record once per enable, and a ring's build-id
 * and kernel symbol table records once per epoch, so every path and
 * cgroup record seen is kept, the rings' tables are kept (bidtab.c), and
 * all are written again at the start of each new file: each file decodes
 * and symbolizes alone. The
 * disk bound is kept before each write (capdir_room()); when even
 * deleting every older file is not enough, the open file is closed early,
 * and records that still do not fit are counted as lost.
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
#include <sys/mman.h>

#include "record.h"
#include "ring.h"
#include "bidtab.h"
#include "tool.h"
#include "capdir.h"
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
	.mmap = mmap,
	.munmap = munmap,
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

	/*
	 * Read-write: the mmap()ed rings are mapped writable, to hand the
	 * consumed bytes back (the tail). A device opened read-only (a
	 * reader given read access alone) is read with read().
	 */
	r->fd = r->ops->open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 && errno == EACCES)
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

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* --cgroup: the module keeps a reference; the directory is closed. */
static int set_cgroup(struct rec *r)
{
	const char *path = r->o->cgroup;
	int cfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (cfd < 0) {
		fprintf(r->err, "stackid: --cgroup %s: %s\n", path,
			strerror(errno));
		return EXIT_SYSTEM;
	}
	while ((ret = r->ops->ioctl(r->fd, STACKID_IOC_SET_CGROUP, &cfd)) < 0 &&
	       errno == EINTR)
		;
	if (ret < 0 && (errno == EBADF || errno == EINVAL))
		fprintf(r->err, "stackid: --cgroup %s: not a cgroup v2 "
			"directory (mount -t cgroup2 none /sys/fs/cgroup)\n",
			path);
	else if (ret < 0 && errno == ENOTTY)
		fprintf(r->err, "stackid: --cgroup: the module has no cgroup "
			"filter: install a matching module\n");
	else if (ret < 0)
		sys_fail(r, "SET_CGROUP");
	close(cfd);
	return ret < 0 ? EXIT_SYSTEM : 0;
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
	/* the frequency in force, for the INFO record: 0 if not known */
	if (r->ops->ioctl(r->fd, STACKID_IOC_GET_FREQ, &r->hz) < 0)
		r->hz = r->o->hz;
	ret = xioctl(r, STACKID_IOC_SET_FILTER, &flt, "SET_FILTER");
	if (!ret && r->o->cgroup)
		ret = set_cgroup(r);
	return ret;
}

static int open_output(struct rec *r)
{
	if (r->rotating) {
		r->out_name = r->o->dir;
		return capdir_init(&r->cd, r->o->dir, r->o->keep,
				   r->o->max_size, r->err);
	}
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
		w = write(r->rotating ? r->cd.fd : r->out, b, n);
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
		r->cd.cur += w;
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
		else if (h->type == STACKID_REC_BUILD_ID)
			r->nbids++;
		off += sz;
	}
}

static void tool_hdr(struct rec *r, struct stackid_record_hdr *h,
		     uint16_t type, uint32_t size)
{
	h->size = size;
	h->type = type;
	h->abi_major = r->abi >> 16;
}

/* Header, INFO and (continuous mode) the path records seen so far. */
static int begin_file(struct rec *r, uint64_t start, uint64_t wall)
{
	struct capture_info in = { .seq = r->seq++, .run_id = r->run_id };
	struct capture_hdr hdr;
	int ret;

	if (r->rotating) {
		ret = capdir_create(&r->cd, wall);
		if (ret)
			return ret;
		if (!capdir_room(&r->cd, sizeof(hdr) + sizeof(in) +
				 r->replay.len + sizeof(struct capture_end)))
			fprintf(r->err, "stackid: warning: --max-size is "
				"smaller than a file's header and paths\n");
	}
	r->file_records = 0;
	capture_hdr_init(&hdr, r->abi, start);
	tool_hdr(r, &in.hdr, CAPTURE_REC_INFO, sizeof(in));
	in.realtime_ns = wall;
	in.freq_hz = r->hz;
	in.tgid = r->o->tgid;
	ret = write_all(r, &hdr, sizeof(hdr));
	if (!ret)
		ret = write_all(r, &in, sizeof(in));
	if (!ret && r->replay.len)
		ret = write_all(r, r->replay.buf, r->replay.len);
	if (!ret && r->rotating && r->bids.nrings) {
		struct strbuf t = { 0 };

		bidtab_replay(&r->bids, &t, r->abi >> 16);
		if (t.len)
			ret = write_all(r, t.buf, t.len);
		sb_free(&t);
	}
	return ret;
}

/* END with the counters' delta since the last END; close (continuous). */
static int end_file(struct rec *r, const struct stackid_stats *st)
{
	struct capture_end e = { .end_ns = now_ns(), .nr = st->nr };
	unsigned int i;
	int ret;

	tool_hdr(r, &e.hdr, CAPTURE_REC_END, sizeof(e));
	if (e.nr > STACKID_STATS_MAX)
		e.nr = STACKID_STATS_MAX;
	for (i = 0; i < e.nr; i++)
		e.counters[i] = st->counters[i] - r->prev.counters[i];
	r->prev = *st;
	ret = write_all(r, &e, sizeof(e));
	if (!ret && r->rotating)
		ret = capdir_close(&r->cd);
	return ret;
}

/* Continuous mode: close this file and start the next, now. */
static int next_file(struct rec *r)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	int ret = xioctl(r, STACKID_IOC_GET_STATS, &st, "GET_STATS");

	if (!ret)
		ret = end_file(r, &st);
	if (!ret)
		ret = begin_file(r, now_ns(), realtime_ns());
	return ret;
}

/*
 * Keep the path and cgroup records of @n bytes of records, and the
 * rings' table state, for the next files.
 */
static void keep_paths(struct rec *r, const unsigned char *p, size_t n)
{
	const struct stackid_record_hdr *h;
	unsigned int before;
	size_t off;

	for (off = 0; off < n; off += h->size) {
		h = (const void *)(p + off);
		if (stackid_record_check(p + off, n - off) <= 0)
			return;
		if (bidtab_take(&r->bids, h))
			continue;
		if (h->type != STACKID_REC_BUILD_ID_PATH &&
		    h->type != STACKID_REC_CGROUP)
			continue;
		before = r->seen.n;
		intern_bytes(&r->seen, h, h->size);
		if (r->seen.n != before)
			sb_add(&r->replay, h, h->size);
	}
}

/* Records read from the device, into the capture within the bound. */
static int emit(struct rec *r, const unsigned char *p, size_t n)
{
	size_t need = n + sizeof(struct capture_end), off;
	long sz;
	int ret;

	if (r->rotating) {
		/*
		 * A new file starts with the tables as these records find
		 * them: taken in after, or an epoch among them would leave
		 * the records before it to the next epoch's indexes.
		 */
		if (!capdir_room(&r->cd, need) && r->file_records) {
			ret = next_file(r);
			if (ret)
				return ret;
		}
		keep_paths(r, p, n);
		if (!capdir_room(&r->cd, need)) {
			for (off = 0; off < n; off += sz) {
				sz = stackid_record_check(p + off, n - off);
				if (sz <= 0)
					break;
				r->lost++;
			}
			return 0;
		}
	}
	count(r, p, n);
	r->file_records++;
	return write_all(r, p, n);
}

/* Count the records of @n bytes as stale. */
static void count_stale(struct rec *r, const unsigned char *p, size_t n)
{
	size_t off;
	long sz;

	for (off = 0; off < n; off += sz) {
		sz = stackid_record_check(p + off, n - off);
		if (sz <= 0)
			break;
		r->stale++;
	}
}

/*
 * Map every ring the device has (a CPU that is not possible has none:
 * ENXIO). False, with nothing mapped, when they cannot be mapped at all
 * (an old module, the fake device): then read() it is.
 */
static bool map_rings(struct rec *r)
{
	struct stackid_ring_info ri;
	unsigned int i;

	if (!r->ops->mmap ||
	    r->ops->ioctl(r->fd, STACKID_IOC_GET_RING_INFO, &ri) < 0 ||
	    !ri.nr_rings || ri.data_size < 8192 ||
	    ri.data_size & (ri.data_size - 1))
		return false;
	r->map_len = (size_t)ri.page_size + ri.data_size;
	r->rings = xcalloc(ri.nr_rings, sizeof(*r->rings));
	r->nrings = ri.nr_rings;
	for (i = 0; i < ri.nr_rings; i++) {
		void *m = r->ops->mmap(NULL, r->map_len,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       r->fd, (off_t)i * r->map_len);

		if (m == MAP_FAILED && errno == ENXIO)
			continue;
		if (m == MAP_FAILED) {
			fprintf(r->err, "stackid: warning: mmap of ring %u: "
				"%s; using read()\n", i, strerror(errno));
			for (i = 0; i < r->nrings; i++)
				if (r->rings[i].ctl)
					r->ops->munmap(r->rings[i].ctl,
						       r->map_len);
			free(r->rings);
			r->rings = NULL;
			r->nrings = 0;
			return false;
		}
		r->rings[i].ctl = m;
		r->rings[i].data = (unsigned char *)m + ri.page_size;
		r->rings[i].size = ri.data_size;
	}
	return true;
}

static void unmap_rings(struct rec *r)
{
	unsigned int i;

	for (i = 0; i < r->nrings; i++)
		if (r->rings[i].ctl)
			r->ops->munmap(r->rings[i].ctl, r->map_len);
	free(r->rings);
	r->rings = NULL;
	r->nrings = 0;
}

/*
 * Copy what the rings hold into r->buf and on into the capture (or, for
 * @discard, nowhere), a block of up to r->readlen bytes at a time; each
 * ring's room is given back (tail) as soon as its records are copied.
 */
static int drain_rings(struct rec *r, bool discard)
{
	size_t have = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < r->nrings; i++) {
		struct stackid_ring *rg = &r->rings[i];
		uint64_t head, tail;
		long sz;

		if (!rg->ctl)
			continue;
		head = smp_load_acquire(&rg->ctl->head);
		tail = rg->ctl->tail;
		while ((sz = stackid_ring_next(rg, head, tail)) > 0) {
			if (have + sz > r->readlen) {
				if (discard)
					count_stale(r, r->buf, have);
				else if ((ret = emit(r, r->buf, have)))
					return ret;
				have = 0;
			}
			stackid_ring_get(rg, tail, r->buf + have, sz);
			have += sz;
			tail += sz;
		}
		/* the copy is done before the module may reuse the room */
		smp_store_release(&rg->ctl->tail, tail);
		if (sz < 0) {
			fprintf(r->err, "stackid: ring %u: corrupt data at "
				"byte %" PRIu64 "\n", i, tail);
			return EXIT_SYSTEM;
		}
	}
	if (discard)
		count_stale(r, r->buf, have);
	else if (have)
		return emit(r, r->buf, have);
	return 0;
}

/*
 * Read until the device has nothing more (EAGAIN): into the capture, or
 * (@discard) nowhere, counting the records in r->stale.
 */
static int drain(struct rec *r, bool discard)
{
	if (r->nrings)
		return drain_rings(r, discard);
	ssize_t n;
	int ret;

	for (;;) {
		n = r->ops->read(r->fd, r->buf, r->readlen);
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
			count_stale(r, r->buf, n);
			continue;
		}
		ret = emit(r, r->buf, n);
		if (ret)
			return ret;
	}
}

static uint64_t drops_of(const struct stackid_stats *st)
{
	uint64_t d = 0;
	unsigned int i;

	for (i = STACKID_STAT_DROP_RING_FULL;
	     i <= STACKID_STAT_DROP_USER_WORKER && i < st->nr; i++)
		d += st->counters[i];
	return d;
}

static void show_status(struct rec *r, uint64_t now)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	double secs = (now - r->start) / 1e9;

	if (r->ops->ioctl(r->fd, STACKID_IOC_GET_STATS, &st) == 0)
		r->drops = drops_of(&st) - drops_of(&r->base);
	fprintf(r->err, "\rrecording: %7.1f s %10" PRIu64 " records %9.0f "
		"records/s %8" PRIu64 " drops", secs, r->records,
		secs > 0 ? r->records / secs : 0.0, r->drops);
	if (r->rotating)
		fprintf(r->err, " %6" PRIu64 " files", r->cd.closed + 1);
	fputc(' ', r->err);
	fflush(r->err);
	r->status_shown = true;
	r->last_status = now;
}

static void clear_status(struct rec *r)
{
	if (!r->status_shown)
		return;
	fprintf(r->err, "\r%90s\r", "");
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
		if (r->rotating && now >= r->next_rotate) {
			ret = drain(r, false);
			if (!ret)
				ret = next_file(r);
			if (ret)
				return ret;
			r->next_rotate += r->o->rotate_ns;
			if (r->next_rotate <= now)	/* we fell behind */
				r->next_rotate = now + r->o->rotate_ns;
			continue;
		}
		if (r->rotating && r->next_rotate - now < wait)
			wait = r->next_rotate - now;
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

/*
 * Samples of this recording deferred to their task and not delivered (or
 * dropped) yet: how many more are in flight than at @base. Negative when
 * samples of an earlier recording finished meanwhile.
 */
static int64_t in_flight(const struct stackid_stats *st,
			 const struct stackid_stats *base)
{
	if (st->nr <= STACKID_STAT_DEFERRED_DONE)
		return 0;
	return (int64_t)(st->counters[STACKID_STAT_DEFERRED] -
			 base->counters[STACKID_STAT_DEFERRED]) -
	       (int64_t)(st->counters[STACKID_STAT_DEFERRED_DONE] -
			 base->counters[STACKID_STAT_DEFERRED_DONE]);
}

/* The counters' change over the recording. */
static void print_stats(struct rec *r, const struct stackid_stats *st)
{
	uint64_t drops = 0, c;
	unsigned int i, nr = st->nr < STACKID_STAT_NR ? st->nr : STACKID_STAT_NR;
	const char *name;

	for (i = 0; i < nr; i++) {
		c = st->counters[i] - r->base.counters[i];
		name = stackid_stat_name(i);
		if (!name)
			continue;
		if (i >= STACKID_STAT_DROP_RING_FULL &&
		    i <= STACKID_STAT_DROP_USER_WORKER)
			drops += c;
		/* samples, delivered and frames_valid always; others if set */
		if (c || i == STACKID_STAT_SAMPLES ||
		    i == STACKID_STAT_DELIVERED ||
		    i == STACKID_STAT_FRAMES_VALID)
			fprintf(r->err, "  %-24s %12" PRIu64 "\n", name, c);
	}
	if (nr > STACKID_STAT_DROP_USER_WORKER) {
		uint64_t s = st->counters[STACKID_STAT_SAMPLES] -
			     r->base.counters[STACKID_STAT_SAMPLES];
		uint64_t d = st->counters[STACKID_STAT_DELIVERED] -
			     r->base.counters[STACKID_STAT_DELIVERED];
		int64_t f = in_flight(st, &r->base);
		bool ok = s == d + drops + f;

		fprintf(r->err, "  %-24s %12s  samples %" PRIu64 " %s "
			"delivered %" PRIu64 " + dropped %" PRIu64 "%s\n",
			"accounting", ok ? (f > 0 ? "in flight" : "ok") :
			"BROKEN", s, ok ? "==" : "!=", d, drops,
			f > 0 ? " + still in their task's context" :
			f < 0 ? " - finished from an earlier recording" : "");
		if (f > 0)
			fprintf(r->err, "  %-24s %12" PRId64 "  samples whose "
				"task has not returned to user space yet\n",
				"in flight", f);
		if (r->samples != d)
			fprintf(r->err, "  %-24s %12s  %" PRIu64 " samples "
				"read, %" PRIu64 " delivered\n", "samples read",
				"MISMATCH", r->samples, d);
	}
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " samples, %"
		PRIu64 " build-id paths, %" PRIu64 " build-id indices)\n",
		"records written", r->records, r->samples, r->paths, r->nbids);
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%s)\n", "bytes written",
		r->bytes, r->out_name);
	if (!r->rotating)
		return;
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%u in %s now)\n",
		"files written", r->cd.closed, r->cd.n, r->o->dir);
	if (r->cd.deleted)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (oldest first, to "
			"keep the bound)\n", "files deleted", r->cd.deleted);
	if (r->lost)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (no room under "
			"--max-size)\n", "records lost", r->lost);
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

	r->start = now_ns();
	wall = realtime_ns();
	r->run_id = wall ^ (uint64_t)getpid() << 40;
	r->next_rotate = r->start + r->o->rotate_ns;
	ret = xioctl(r, STACKID_IOC_ENABLE, NULL, "ENABLE");
	if (!ret) {
		ret = begin_file(r, r->start, wall);
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
		.rotating = o->dir != NULL,
		.readlen = READ_BUF,
		.cd = { .fd = -1 },
	};
	double secs;
	int ret, i;

	ret = dev_open(&r);
	if (ret)
		return ret;
	r.buf = xmalloc(READ_BUF);
	/* small reads under a small disk bound, so that a chunk fits */
	if (o->max_size && o->max_size / 8 < r.readlen)
		r.readlen = o->max_size / 8 > STACKID_RECORD_MAX ?
			    o->max_size / 8 : STACKID_RECORD_MAX;
	ret = configure(&r);
	if (!ret)
		ret = open_output(&r);
	if (!ret)
		map_rings(&r);
	/* records a previous reader left: not this capture's */
	if (!ret)
		ret = drain(&r, true);
	if (ret)
		goto out;
	if (r.stale)
		fprintf(err, "stackid: discarded %" PRIu64 " records left "
			"from before\n", r.stale);
	/* the counters now: everything printed is the change from here */
	r.prev.cpu = STACKID_ALL_CPUS;
	ret = xioctl(&r, STACKID_IOC_GET_STATS, &r.prev, "GET_STATS");
	if (ret)
		goto out;
	r.base = r.prev;
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
	for (i = 0; !ret && i < 50 && in_flight(&st, &r.base) > 0; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		ret = drain(&r, false);
		if (!ret)
			ret = xioctl(&r, STACKID_IOC_GET_STATS, &st,
				     "GET_STATS");
	}
	if (!ret)
		ret = end_file(&r, &st);
	secs = (now_ns() - r.start) / 1e9;
	if (r.out >= 0 && r.out != STDOUT_FILENO && !r.rotating &&
	    close(r.out) < 0 && !ret)
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
	unmap_rings(&r);
	bidtab_free(&r.bids);
	if (r.out >= 0 && r.out != STDOUT_FILENO && !r.rotating)
		close(r.out);
	capdir_free(&r.cd);
	intern_free(&r.seen);
	sb_free(&r.replay);
	ops->close(r.fd);
	free(r.buf);
	return ret;
}
