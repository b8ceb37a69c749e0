// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`, the device side: open /dev/stackid, check the ABI,
 * configure, map the per-CPU rings, and copy whole records out of the
 * rings (read() where they cannot be mapped), in blocks of up to
 * r->readlen bytes, on to rec_emit() (rec_file.c).
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
#include "tool.h"
#include "capture.h"
#include "rec.h"
#include "util.h"

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

int rec_sys_fail(struct rec *r, const char *what)
{
	fprintf(r->err, "stackid: %s: %s\n", what, strerror(errno));
	return EXIT_SYSTEM;
}

int rec_xioctl(struct rec *r, unsigned long req, void *arg,
		  const char *name)
{
	while (r->ops->ioctl(r->fd, req, arg) < 0) {
		if (errno != EINTR)
			return rec_sys_fail(r, name);
	}
	return 0;
}

int rec_dev_open(struct rec *r)
{
	const char *dev = r->o->device ? r->o->device : STACKID_DEVICE;

	/*
	 * Read-write: the mmap()ed rings are mapped writable, to hand the
	 * consumed bytes back (the tail). A device opened read-only is read
	 * with read(): a reader given read access alone gets EACCES from
	 * the file's mode, EPERM from a device cgroup (systemd's
	 * DeviceAllow=... r); without CAP_PERFMON the second open fails
	 * the same way and says so.
	 */
	r->fd = r->ops->open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 && (errno == EACCES || errno == EPERM))
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
		rec_sys_fail(r, "SET_CGROUP");
	close(cfd);
	return ret < 0 ? EXIT_SYSTEM : 0;
}

/*
 * Woken when a ring is a quarter full (the module's watermark), else
 * once every REC_WAKEUP_MS while any ring holds a record: not the
 * module's 100 ms. Each wakeup costs a ppoll(), two switches and a look
 * at every ring, whatever it brings: at 100 ms they were a quarter of
 * the recorder's time. The watermark still wakes it as early as ever
 * when samples come fast, so a longer period costs no ring room; what
 * it delays is only when a slow trickle reaches the capture, which is
 * drained whole at the end and at every rotation anyway. A new file's
 * path record wakes the recorder within 20 ms (paths.c; an older module
 * only at the period), so that its unwind table is loaded early.
 */
#define REC_WAKEUP_MS	1000

static int set_wakeup(struct rec *r)
{
	struct stackid_wakeup w = { .watermark = 0,
				    .period_ms = REC_WAKEUP_MS };

	return rec_xioctl(r, STACKID_IOC_SET_WAKEUP, &w, "SET_WAKEUP");
}

int rec_configure(struct rec *r)
{
	struct stackid_filter flt = { .tgid = r->o->tgid };
	uint32_t ver = 0, hz = r->o->hz;
	int ret;

	ret = rec_xioctl(r, STACKID_IOC_GET_VERSION, &ver, "GET_VERSION");
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
	/*
	 * 8-byte frames where they fit (ABI 2.4): half the bytes per frame
	 * in the rings and the captures. An older module keeps 16. And
	 * from ABI 2.6, a sample as the frames that differ from its ring's
	 * previous one (deltas.h): a 32-byte header instead of 64, and on
	 * deep stacks a few frames instead of all.
	 */
	if ((ver & 0xffff) >= 4) {
		uint32_t fmt = STACKID_FORMAT_PACKED;

		if ((ver & 0xffff) >= 6)
			fmt |= STACKID_FORMAT_DELTA;

		if (r->ops->ioctl(r->fd, STACKID_IOC_SET_FORMAT, &fmt) < 0 &&
		    errno != ENOTTY && errno != EINVAL) {
			rec_sys_fail(r, "SET_FORMAT");
			return EXIT_SYSTEM;
		}
	}
	if (hz && r->ops->ioctl(r->fd, STACKID_IOC_SET_FREQ, &hz) < 0) {
		if (errno == EINVAL)
			fprintf(r->err, "stackid: %u Hz refused: the module "
				"takes 1..kernel.perf_event_max_sample_rate\n",
				hz);
		else
			rec_sys_fail(r, "SET_FREQ");
		return EXIT_SYSTEM;
	}
	/* the frequency in force, for the INFO record: 0 if not known */
	if (r->ops->ioctl(r->fd, STACKID_IOC_GET_FREQ, &r->hz) < 0)
		r->hz = r->o->hz;
	ret = rec_xioctl(r, STACKID_IOC_SET_FILTER, &flt, "SET_FILTER");
	if (!ret && r->o->cgroup)
		ret = set_cgroup(r);
	if (!ret)
		ret = set_wakeup(r);
	return ret;
}

/*
 * Map every ring the device has (a CPU that is not possible has none:
 * ENXIO). False, with nothing mapped, when they cannot be mapped at all
 * (an old module, the fake device): then read() it is.
 */
bool rec_map_rings(struct rec *r)
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

void rec_unmap_rings(struct rec *r)
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
 * Ring @i holds bytes at @tail that are not a record (a reader wrote into
 * its mapping): the records copied so far go on, the ring's unread bytes
 * up to the kernel's @head are skipped (counted, and said in the
 * capture), and the ring is read on from there.
 */
static int resync(struct rec *r, unsigned int i, uint64_t head,
		  uint64_t tail, size_t *have, bool discard)
{
	struct stackid_ring *rg = &r->rings[i];
	uint64_t avail = head - tail;
	int ret = 0;

	if (!discard && *have)
		ret = rec_emit(r, r->buf, *have);
	else if (discard)
		rec_count_stale(r, r->buf, *have);
	*have = 0;
	/* pairs with the module's acquire: we are done with those bytes */
	smp_store_release(&rg->ctl->tail, head);
	if (ret || discard)
		return ret;
	if (avail > rg->size)
		return rec_skipped(r, i, rg->size, 0,
				   "the ring's tail was out of bounds");
	return rec_skipped(r, i, avail, 0, "ring data that is not a record");
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
					rec_count_stale(r, r->buf, have);
				else if ((ret = rec_emit(r, r->buf, have)))
					return ret;
				have = 0;
			}
			stackid_ring_get(rg, tail, r->buf + have, sz);
			have += sz;
			tail += sz;
		}
		if (sz < 0) {
			ret = resync(r, i, head, tail, &have, discard);
			if (ret)
				return ret;
			continue;
		}
		/* the copy is done before the module may reuse the room */
		smp_store_release(&rg->ctl->tail, tail);
	}
	if (discard)
		rec_count_stale(r, r->buf, have);
	else if (have)
		return rec_emit(r, r->buf, have);
	return 0;
}

/*
 * The most read()s in a row that may fail with EIO: the module says so
 * once for each ring whose data it skipped (see include/stackid.h), so
 * more than one per possible CPU is a device that fails for good.
 */
#define EIO_IN_A_ROW_MAX	8192

/* rec_drain(), or at most @reads read()s (0: no limit) */
static int drain(struct rec *r, bool discard, unsigned int reads)
{
	unsigned int done = 0;
	ssize_t n;
	int ret;

	if (r->nrings)
		return drain_rings(r, discard);
	for (;;) {
		if (reads && done++ == reads)
			return 0;	/* the rest at the next turn */
		n = r->ops->read(r->fd, r->buf, r->readlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			r->eios = 0;
			return 0;
		}
		if (n < 0 && errno == EIO && ++r->eios <= EIO_IN_A_ROW_MAX) {
			/* the module skipped data that was not records */
			if (discard)
				continue;
			ret = rec_skipped(r, CAPTURE_SKIP_NO_RING, 0,
					  CAPTURE_SKIP_BY_MODULE,
					  "read(): Input/output error");
			if (ret)
				return ret;
			continue;
		}
		if (n < 0)
			return rec_sys_fail(r, "read");
		if (n == 0) {
			fprintf(r->err, "stackid: read: unexpected end of "
				"file\n");
			return EXIT_SYSTEM;
		}
		r->eios = 0;
		if (discard) {
			rec_count_stale(r, r->buf, n);
			continue;
		}
		ret = rec_emit(r, r->buf, n);
		if (ret)
			return ret;
	}
}

int rec_drain(struct rec *r, bool discard)
{
	return drain(r, discard, 0);
}

int rec_drain_some(struct rec *r)
{
	return drain(r, false, REC_DRAIN_READS_MAX);
}
