// SPDX-License-Identifier: GPL-2.0
/*
 * sidcheck: the guest-side test driver for /dev/stackid. It talks to the
 * device through include/stackid.h only, and checks what comes back.
 *
 *   sidcheck record [-F HZ] [-p PID] [-d MS] [-m MS | -s MS] [-b BUFSZ]
 *                   [-P] [-D] -o FILE
 *       (-P: packed samples, STACKID_FORMAT_PACKED; -D: and delta
 *       samples, STACKID_FORMAT_DELTA) enable, read for MS
 *       milliseconds, disable, drain, write the
 *       records to FILE; prints "enabled_ns N" (from before the
 *       enable to after the disable), "stat NAME VALUE" lines (and, with -m,
 *       "mid NAME VALUE" lines of the counters at that time). -s MS
 *       first lets the build-id cache settle: it reads until a 500 ms
 *       interval's cache lookups miss, and files are read, at most 1%
 *       of the lookups (or MS have passed;
 *       "settled_ms N" says when), prints the "mid" lines then, and
 *       reads -d MS more. SIGUSR1 ends the reading early, as if MS
 *       had passed: a test stops a recording when what it waits for
 *       has happened, whatever the machine's speed
 *   sidcheck stats              print counters; exit 1 unless
 *                               samples == delivered + dropped
 *                               (+ deferred samples still in flight
 *                               after 5 s, at most 8 per CPU)
 *   sidcheck reset              zero the counters
 *   sidcheck enable-idle MS     enable for MS ms without reading
 *   sidcheck chain FILE PID COMM EXPECT MINPCT [all]
 *       every sample of PID: its innermost frames must match EXPECT
 *       (lines "NAME BUILDID START END", innermost first, file offsets);
 *       passes if at least MINPCT % of the samples match; and, but
 *       with "all" (a recording of every process), none is another's
 *   sidcheck buildid FILE PID HEX MINPCT
 *       frame 0 of PID's samples: valid frames must carry exactly build-id
 *       HEX; at least MINPCT % must be valid
 *   sidcheck rate FILE PID [GAPS [MIN_US]]
 *                               PID's samples per second (per second it
 *                               ran, with spinclock's GAPS), and the
 *                               median time between two of them that
 *                               holds no gap of MIN_US or more
 *   sidcheck spinclock FILE     spin; on SIGTERM write to FILE when it
 *                               did not run (prints its pid first)
 *   sidcheck walkstop FILE PID [fault]  PID's samples: delivered, depth
 *                               <= 2; fault: >= 90 % 2 frames, stop fault
 *   sidcheck errors             bad input: TAP lines
 *   sidcheck hold MS            keep the device open for MS ms
 *                               (prints its pid once it is)
 *   sidcheck enable-result HZ   ENABLE at HZ: prints OK or the errno
 *   sidcheck read0 | resetbusy  read() of 0 bytes; RESET_STATS rules
 *   sidcheck setfreq HZ         SET_FREQ: prints OK or the errno
 *   sidcheck freq               GET_FREQ of a new open: prints it
 *   sidcheck mtime FILE [S NS]  print / set FILE's mtime
 *   sidcheck perfcmp CAP PERFTXT PID MINPCT  frames against perf's
 *   sidcheck inowatch MS FILE...  inotify: reads of the FILEs for MS ms
 *   sidcheck capend FILE  a capture of `stackid record`: "records N
 *       end yes|no" (its last record is the recorder's CAPTURE_REC_END,
 *       the mark of a file closed cleanly); exit 1 if not, or if a
 *       record's size runs past the file or is not a multiple of 8
 *   sidcheck depth FILE PID     PID's usual depth and truncated flag
 *   sidcheck tids FILE PID [walked]
 *                               the threads of PID that were sampled
 *                               (walked: in samples with user frames)
 *   sidcheck now                CLOCK_MONOTONIC in ns
 *   sidcheck mmapcheck          the rings through mmap(), SET_WAKEUP
 *   sidcheck recipe             the UAPI header's use, as it is written
 *   sidcheck hostile            a reader that writes nonsense into its
 *                               mappings: a blocking read() and poll()
 *                               still end, and the next reader gets
 *                               clean control pages and good records
 *   sidcheck dump FILE          text dump of records
 *   sidcheck kinds FILE         "samples N packed M delta D moved V":
 *                               M of FILE's N samples are 8-byte frames
 *                               (STACKID_REC_SAMPLE_PACKED, or
 *                               STACKID_REC_SAMPLE_DELTA: D of them); V
 *                               were written to another CPU's ring than
 *                               the CPU they were taken on
 *   sidcheck share FILE COMM FROM TO
 *                               "N M": N of the M samples taken from
 *                               FROM to TO (CLOCK_MONOTONIC ns) are of
 *                               COMM
 *   sidcheck paths FILE         build-id -> path records of a capture
 *   sidcheck flipbid FILE HEX   rewrite FILE's build-id HEX in place
 *   sidcheck cost               handler cost per sample (bench), the
 *                               longest (at most), the sum, and how
 *                               many may have taken over 1 ms
 *   sidcheck peek PID           "samples N no_mm M": the stats that the
 *                               reader PID's open device reports now,
 *                               through a copy of its file descriptor
 *                               (pidfd_getfd; the device is exclusive):
 *                               a bench's count during the work alone
 *   sidcheck frames FILE PID [SINCE_NS]
 *                               frames per sample, % valid (0: all PIDs)
 *   sidcheck kcount FILE [PID]  kernel frames, symbol and cgroup records
 *                               of a capture: "NAME VALUE" lines
 *   sidcheck cgroups FILE       "TGID ID PATH" of each distinct sampled
 *                               (process, cgroup); PATH "-" if unnamed
 *   sidcheck unwind FILE PID EXPECT MINPCT exact|prefix|reach
 *       walks through code without frame pointers (issue 20), judged on
 *       PID's samples whose frame 0 matches EXPECT's first line (the
 *       leaf). EXPECT: lines "NAME BUILDID START END" as for chain, where
 *       BUILDID may be "@NAME" (the build-id the capture's path records
 *       give a file NAME, e.g. @libc.so.6) or "*" (any valid frame), and
 *       "0 ffffffffffffffff" is any offset. exact: the sample's frames
 *       are EXPECT's, all and no more, and its walk stopped at the
 *       stack's end (stop END); fp: what a walk by frame pointers alone
 *       finds (32-bit tasks: no tables), each frame after the first one
 *       of EXPECT's lines after the frame before's (such a walk skips
 *       functions without frame pointers, never invents a frame), and the
 *       walk stopped for a frame pointer that is none (BAD_FP) or at the
 *       end; reach:
 *       EXPECT's other lines match later frames in order, every frame up
 *       to the last of them valid. exact and reach judge the samples
 *       from the first that passes with no frame found by a frame
 *       pointer on (the tables the recorder loads as it learns each
 *       file's path: warm-up; at most 3/4 of the leaf's samples); fp
 *       judges all. Prints TAP lines
 *   sidcheck early FILE PID EXPECT N
 *       of PID's first N samples by time whose frame 0 is EXPECT's
 *       first line, how many reach its other lines in order through
 *       valid frames (as reach); TAP: >= 90 %
 *   sidcheck pathwake PROG...   a file's first path record wakes the
 *                               reader within 20 ms: each PROG's path
 *                               read within 8 s of its start, in an
 *                               enable of its own (period 10 s)
 *   sidcheck hows FILE          "how NAME N" (user frames, by how they
 *                               were found) and "stop NAME N" (samples,
 *                               by why their walk stopped) lines
 *
 * The commands that check user frames see a sample's user frames only
 * (after its kernel frames); dump and kcount see both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <linux/capability.h>

#include <stackid.h>
#include "record.h"
#include "bidtab.h"
#include "deltas.h"

static int dev_open(void)
{
	int fd = open(STACKID_DEVICE, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "sidcheck: open %s: %s\n", STACKID_DEVICE,
			strerror(errno));
		exit(2);
	}
	return fd;
}

static void xioctl(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg) < 0) {
		fprintf(stderr, "sidcheck: %s: %s\n", what, strerror(errno));
		exit(2);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int print_stats(int fd)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	unsigned long long drops = 0, flight;
	/* 8 slots a CPU, each a sample and up to 8 that joined it */
	long slots = 8 * 9 * sysconf(_SC_NPROCESSORS_CONF);
	unsigned int i;
	int ok;

	/*
	 * Deferred samples arrive when their task returns to user space; a
	 * task sampled in the kernel that then blocks (a sleep, a wait)
	 * holds its sample until it wakes. Wait up to 5 s; a sample still
	 * in flight then is neither lost nor delivered yet, and counts as
	 * such, at most 9 per deferral slot (8 per CPU): its own sample and
	 * those that joined it.
	 */
	for (i = 0; i < 500; i++) {
		xioctl(fd, STACKID_IOC_GET_STATS, &st, "GET_STATS");
		if (st.counters[STACKID_STAT_DEFERRED] ==
		    st.counters[STACKID_STAT_DEFERRED_DONE])
			break;
		usleep(10000);
	}
	for (i = 0; i < st.nr && i < STACKID_STAT_NR; i++) {
		printf("stat %s %llu\n", stackid_stat_name(i),
		       (unsigned long long)st.counters[i]);
		if (stackid_stat_is_drop(i))
			drops += st.counters[i];
	}
	flight = st.counters[STACKID_STAT_DEFERRED] -
		 st.counters[STACKID_STAT_DEFERRED_DONE];
	printf("stat in_flight %llu\n", flight);
	ok = st.counters[STACKID_STAT_DEFERRED] >=
	     st.counters[STACKID_STAT_DEFERRED_DONE] &&
	     flight <= (unsigned long long)slots &&
	     st.counters[STACKID_STAT_SAMPLES] ==
	     st.counters[STACKID_STAT_DELIVERED] + drops + flight;
	printf("stat identity %s\n", ok ? "ok" : "BROKEN");
	return ok ? 0 : 1;
}

/* Read everything there is into @out; returns records read. */
static long drain(int fd, FILE *out, char *buf, size_t bufsz)
{
	long n = 0;

	for (;;) {
		ssize_t r = read(fd, buf, bufsz);
		size_t off = 0;

		if (r < 0 && errno == EAGAIN)
			return n;
		if (r <= 0) {
			fprintf(stderr, "sidcheck: read: %s\n",
				r ? strerror(errno) : "EOF");
			exit(2);
		}
		while (off < (size_t)r) {
			long sz = stackid_record_check(buf + off, r - off);

			if (sz <= 0) {
				fprintf(stderr, "sidcheck: bad or split record at %zu\n",
					off);
				exit(3);
			}
			off += sz;
			n++;
		}
		fwrite(buf, 1, r, out);
	}
}

/*
 * The build-id cache's hits, and its misses plus the build-id notes read
 * from files: where every sample is finished in its task (PREEMPT_RT),
 * the handler looks nothing up, and a file not yet cached shows only as
 * a read (the last budget of reads per sample leaves frames raw until
 * the files are all read).
 */
static void cache_counts(int fd, unsigned long long *hit,
			 unsigned long long *miss)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };

	xioctl(fd, STACKID_IOC_GET_STATS, &st, "GET_STATS");
	*hit = st.counters[STACKID_STAT_BIDCACHE_HIT];
	*miss = st.counters[STACKID_STAT_BIDCACHE_MISS] +
		st.counters[STACKID_STAT_PARSES];
}

/*
 * Read until a 500 ms interval's build-id cache lookups (1000 or more)
 * miss, and build-ids are read, at most 1% of them, or @maxms have
 * passed: the warm-up a recording of many files needs takes as long as
 * the kernel is slow. A cache that thrashes never settles, and the
 * measurement after this shows it.
 * Returns the records read.
 */
static long settle_cache(int fd, FILE *out, char *buf, size_t bufsz,
			 unsigned int maxms)
{
	long long start = now_ms(), tick = start + 500;
	unsigned long long h0, m0, h, m;
	long n = 0;

	cache_counts(fd, &h0, &m0);
	while (now_ms() - start < maxms) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = tick - now_ms();

		if (poll(&p, 1, left > 0 ? (int)left : 0) > 0)
			n += drain(fd, out, buf, bufsz);
		if (now_ms() < tick)
			continue;
		cache_counts(fd, &h, &m);
		if (h + m >= h0 + m0 + 1000 &&
		    (m - m0) * 100 <= (h + m) - (h0 + m0))
			break;
		h0 = h;
		m0 = m;
		tick += 500;
	}
	printf("settled_ms %lld\n", now_ms() - start);
	return n;
}

/* record and inowatch: a signal asks them to stop */
static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static int cmd_record(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	unsigned int hz = 0, ms = 1000, mid = 0, settle = 0, fmt = 0;
	struct stackid_filter flt = { 0 };
	size_t bufsz = 1 << 20;
	const char *outpath = NULL;
	long long end, midat = 0;
	struct timespec on, off;
	long n = 0;
	int ret;
	FILE *out;
	char *buf;
	int fd, c;

	sigaction(SIGUSR1, &sa, NULL);
	while ((c = getopt(argc, argv, "F:p:d:o:b:m:s:PD")) != -1) {
		switch (c) {
		case 'P': fmt |= STACKID_FORMAT_PACKED; break;
		case 'D': fmt |= STACKID_FORMAT_DELTA; break;
		case 'm': mid = strtoul(optarg, NULL, 0); break;
		case 's': settle = strtoul(optarg, NULL, 0); break;
		case 'F': hz = strtoul(optarg, NULL, 0); break;
		case 'p': flt.tgid = strtoul(optarg, NULL, 0); break;
		case 'd': ms = strtoul(optarg, NULL, 0); break;
		case 'o': outpath = optarg; break;
		case 'b': bufsz = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!outpath)
		return 2;
	out = fopen(outpath, "w");
	buf = malloc(bufsz);
	if (!out || !buf)
		return 2;
	fd = dev_open();
	if (fmt)
		xioctl(fd, STACKID_IOC_SET_FORMAT, &fmt, "SET_FORMAT");
	if (hz)
		xioctl(fd, STACKID_IOC_SET_FREQ, &hz, "SET_FREQ");
	xioctl(fd, STACKID_IOC_SET_FILTER, &flt, "SET_FILTER");
	clock_gettime(CLOCK_MONOTONIC, &on);
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (settle) {
		n += settle_cache(fd, out, buf, bufsz, settle);
		mid = 1;
	}
	end = now_ms() + ms;
	if (mid)
		midat = now_ms() + mid;
	while (now_ms() < end && !stop_asked) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = (midat ? midat : end) - now_ms();

		/* at most 100 ms, so a stop between test and poll is seen */
		if (poll(&p, 1, left > 100 ? 100 : left > 0 ? (int)left : 0) > 0)
			n += drain(fd, out, buf, bufsz);
		if (midat && now_ms() >= midat) {
			/* the counters at MS: "mid NAME VALUE" lines */
			struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
			struct timespec ts;
			unsigned int i;

			xioctl(fd, STACKID_IOC_GET_STATS, &st, "GET_STATS");
			clock_gettime(CLOCK_MONOTONIC, &ts);
			printf("mid time_ns %llu\n",
			       ts.tv_sec * 1000000000ULL + ts.tv_nsec);
			for (i = 0; i < st.nr && i < STACKID_STAT_NR; i++)
				printf("mid %s %llu\n", stackid_stat_name(i),
				       (unsigned long long)st.counters[i]);
			midat = 0;
		}
	}
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	clock_gettime(CLOCK_MONOTONIC, &off);
	/* at least as long as sampling was on */
	printf("enabled_ns %lld\n",
	       (off.tv_sec - on.tv_sec) * 1000000000LL +
	       off.tv_nsec - on.tv_nsec);
	n += drain(fd, out, buf, bufsz);
	ret = print_stats(fd);	/* waits for deferred samples */
	n += drain(fd, out, buf, bufsz);
	fclose(out);
	printf("records %ld\n", n);
	(void)ret;
	close(fd);
	return 0;
}

/* Iterate over the samples in a file: returns a malloc'd buffer. */
static char *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f) {
		perror(path);
		exit(2);
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

/*
 * A sample with its frames' build-ids and kernel functions looked up
 * (by ring index): frames[] are its nu user frames, kframes[] its nk
 * kernel frames, each innermost first.
 */
struct dframe {
	unsigned int status, reason, len, how;
	const unsigned char *build_id;	/* valid frames */
	unsigned long long addr;
};

struct dkframe {
	const char *name, *module;	/* NULL: not named */
	unsigned long long off;
};

struct dsample {
	const struct stackid_sample *s;
	unsigned int nk, nu;
	struct dkframe kframes[STACKID_MAX_KDEPTH];
	struct dframe frames[STACKID_MAX_DEPTH];
};

#define MAX_CGROUPS	4096

/* Walks the records of a file (raw, or a capture: its header skipped). */
struct iter {
	const char *buf;
	size_t len, off;
	struct bidtab bids;
	unsigned long ksyms, ncgrecs;	/* records seen */
	unsigned long packed;		/* samples with 8-byte frames */
	unsigned long delta;		/* ... written as deltas */
	struct deltas deltas;		/* each ring's previous sample */
	unsigned int ncg;
	unsigned long long cgid[MAX_CGROUPS];
	const char *cgpath[MAX_CGROUPS];
};

/* The path a cgroup record of @it gave for @id, or NULL. */
static const char *cgroup_path(const struct iter *it, unsigned long long id)
{
	unsigned int i;

	for (i = 0; i < it->ncg; i++)
		if (it->cgid[i] == id)
			return it->cgpath[i];
	return NULL;
}

static void iter_init(struct iter *it, const char *buf, size_t len)
{
	memset(it, 0, offsetof(struct iter, cgid));
	it->buf = buf;
	it->len = len;
	if (len >= 32 && !memcmp(buf, "STACKIDC", 8))
		it->off = 32;
}

/* The next sample into *d, or false at the end (or at a bad record). */
static bool next_sample(struct iter *it, struct dsample *d)
{
	while (it->off < it->len) {
		const struct stackid_record_hdr *h =
			(const void *)(it->buf + it->off);
		const struct stackid_sample *s = (const void *)h;
		struct stackid_frame fb;
		const char *why = NULL;
		const void *full;
		unsigned int i;

		if (stackid_record_check(h, it->len - it->off) <= 0)
			return false;
		it->off += h->size;
		it->delta += h->type == STACKID_REC_SAMPLE_DELTA;
		full = deltas_take(&it->deltas, h, &why);
		if (!full) {
			fprintf(stderr, "sidcheck: %s\n", why);
			exit(3);
		}
		h = full;
		s = full;
		if (h->type == STACKID_REC_KSYM)
			it->ksyms++;
		if (h->type == STACKID_REC_CGROUP) {
			const struct stackid_cgroup *cg = (const void *)h;

			it->ncgrecs++;
			if (!cgroup_path(it, cg->id) && it->ncg < MAX_CGROUPS) {
				it->cgid[it->ncg] = cg->id;
				it->cgpath[it->ncg++] = cg->path;
			}
		}
		if (bidtab_take(&it->bids, h) || !stackid_is_sample(h->type))
			continue;
		it->packed += h->type == STACKID_REC_SAMPLE_PACKED;
		d->s = s;
		d->nk = s->nr_kernel;
		d->nu = s->nr_frames - s->nr_kernel;
		for (i = 0; i < d->nk; i++) {
			const struct stackid_frame *f = &fb;
			const struct bidtab_ksym *k = NULL;
			struct dkframe *o = &d->kframes[i];

			stackid_sample_frame(s, i, &fb);
			if (f->bid)
				k = bidtab_get_ksym(&it->bids, s->ring, f->bid);
			if (f->bid && !k) {
				fprintf(stderr, "sidcheck: kernel symbol index "
					"%u of ring %u not defined\n", f->bid,
					s->ring);
				exit(3);
			}
			o->name = k ? k->name : NULL;
			o->module = k ? k->module : NULL;
			o->off = f->addr;
		}
		for (i = 0; i < d->nu; i++) {
			const struct stackid_frame *f = &fb;
			const struct bidtab_entry *e = NULL;
			struct dframe *o = &d->frames[i];

			stackid_sample_frame(s, d->nk + i, &fb);
			o->status = f->status;
			o->reason = f->reason;
			o->how = f->how;
			o->addr = f->addr;
			o->len = 0;
			o->build_id = NULL;
			if (f->status == STACKID_FRAME_VALID)
				e = bidtab_get(&it->bids, s->ring, f->bid);
			if (e) {
				o->len = e->len;
				o->build_id = e->id;
			} else if (f->status == STACKID_FRAME_VALID) {
				fprintf(stderr, "sidcheck: build-id index %u of "
					"ring %u not defined\n", f->bid, s->ring);
				exit(3);
			}
		}
		return true;
	}
	return false;
}

#define for_each_sample(d, it)	while (next_sample(&(it), &(d)))

static void hex(const unsigned char *id, unsigned int len, char *out)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = 0;
}

struct expect {
	char name[64];
	char bid[41];
	unsigned long long start, end;
};

static int cmd_chain(int argc, char **argv)
{
	struct expect ex[16];
	unsigned int nex = 0, pid, minpct, i;
	unsigned long total = 0, match = 0, badtid = 0, badcomm = 0;
	unsigned long others = 0, user = 0, userk = 0;
	unsigned long firstbad[16] = { 0 };
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	size_t len;
	const char *comm;
	char *buf, line[256];
	FILE *f;

	if (argc != 6 && !(argc == 7 && !strcmp(argv[6], "all")))
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	comm = argv[3];
	f = fopen(argv[4], "r");
	minpct = strtoul(argv[5], NULL, 0);
	if (!f)
		return 2;
	while (nex < 16 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %40s %llx %llx", ex[nex].name,
			   ex[nex].bid, &ex[nex].start, &ex[nex].end) == 4)
			nex++;
	fclose(f);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if (s->tgid != pid) {
			others++;
			continue;
		}
		total++;
		if (s->flags & STACKID_SF_USER) {
			user++;
			if (d.nk)
				userk++;
		}
		if (s->tid != pid)
			badtid++;
		if (strncmp(s->comm, comm, sizeof(s->comm)))
			badcomm++;
		for (i = 0; i < nex; i++) {
			struct dframe *fr = &d.frames[i];
			unsigned long long a;
			char h[41];

			if (i >= d.nu || fr->status != STACKID_FRAME_VALID)
				break;
			hex(fr->build_id, fr->len, h);
			/* outer frames hold return addresses: look before */
			a = i ? fr->addr - 1 : fr->addr;
			if (strcmp(h, ex[i].bid) || a < ex[i].start ||
			    a >= ex[i].end)
				break;
		}
		if (i == nex)
			match++;
		else
			firstbad[i]++;
	}
	printf("# chain: %lu of %lu samples of %u match all %u frames\n",
	       match, total, pid, nex);
	for (i = 0; i < nex; i++)
		if (firstbad[i])
			printf("#   %lu first differ at frame %u (%s)\n",
			       firstbad[i], i, ex[i].name);
	printf("%sok - chain of %u frames in >= %u%% of %lu samples (%lu%%)\n",
	       total && match * 100 >= minpct * total ? "" : "not ",
	       nex, minpct, total, total ? match * 100 / total : 0);
	printf("%sok - tid and comm of every sample (%lu bad tid, %lu bad comm)\n",
	       total && !badtid && !badcomm ? "" : "not ", badtid, badcomm);
	/* recorded with -p PID: the filter lets nothing else through */
	if (argc == 6)
		printf("%sok - tgid filter: no sample of another process (%lu)\n",
		       others ? "not " : "", others);
	/*
	 * A spinner is interrupted in user mode at times, and a sample
	 * taken there has no kernel frames. How often depends on the
	 * host's load under TCG (half of them in NMI on a busy debug
	 * kernel), so no share is asked for.
	 */
	printf("%sok - user-mode flag on %lu of %lu samples, none of them "
	       "with kernel frames (%lu)\n", user && !userk ? "" : "not ",
	       user, total, userk);
	return 0;
}

/*
 * buildid FILE PID HEX MINPCT [SINCE_NS]: frame 0 of PID's samples (taken
 * at or after SINCE_NS, CLOCK_MONOTONIC, if given).
 */
static int cmd_buildid(int argc, char **argv)
{
	unsigned long total = 0, valid = 0, wrong = 0, ip = 0;
	unsigned long long since = 0;
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	unsigned int pid, minpct;
	size_t len;
	char *buf, h[41];

	if (argc != 5 && argc != 6)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	minpct = strtoul(argv[4], NULL, 0);
	if (argc == 6)
		since = strtoull(argv[5], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		struct dframe *fr = &d.frames[0];

		if (s->tgid != pid || !d.nu || s->time_ns < since)
			continue;
		total++;
		if (fr->status == STACKID_FRAME_IP) {
			ip++;
			continue;
		}
		hex(fr->build_id, fr->len, h);
		if (strcmp(h, argv[3]))
			wrong++;
		else
			valid++;
	}
	printf("# buildid %s: %lu samples, %lu valid, %lu ip, %lu wrong\n",
	       argv[3], total, valid, ip, wrong);
	printf("%sok - no wrong build-id, >= %u%% valid (%lu/%lu)\n",
	       total && !wrong && valid * 100 >= minpct * total ? "" : "not ",
	       minpct, valid, total);
	return 0;
}

/*
 * spinclock FILE: print our pid, then spin reading CLOCK_MONOTONIC; each
 * step of more than 200 us between two reads is time this task did not
 * run (another task, or the host not running the vCPU at all, which a
 * TCG guest cannot tell otherwise). On SIGTERM write those gaps to FILE,
 * "START END" ns a line, and exit.
 */
static volatile sig_atomic_t spin_stop;

static void on_spin_stop(int sig)
{
	(void)sig;
	spin_stop = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmd_spinclock(int argc, char **argv)
{
	static unsigned long long gap[1 << 20][2];
	unsigned long long prev, t;
	unsigned long n = 0, i;
	FILE *f;

	if (argc != 2)
		return 2;
	signal(SIGTERM, on_spin_stop);
	printf("%d\n", getpid());
	fflush(stdout);
	prev = now_ns();
	while (!spin_stop) {
		t = now_ns();
		if (t - prev > 200000 && n < (1 << 20)) {
			gap[n][0] = prev;
			gap[n][1] = t;
			n++;
		}
		prev = t;
	}
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	for (i = 0; i < n; i++)
		fprintf(f, "%llu %llu\n", gap[i][0], gap[i][1]);
	return fclose(f) ? 2 : 0;
}

/*
 * rate FILE PID [GAPS [MIN_US]]: "N RATE" of PID's samples, RATE per
 * second from the first to the last; with GAPS (spinclock's file: "START
 * END" lines in time order), per second that PID ran in that span, then
 * "RUN_S GAPS_IN_SPAN MEDIAN_US CLEAN": MEDIAN_US the median time from
 * one of PID's samples to the next over the CLEAN such intervals that
 * hold no gap of MIN_US (default 0) or more (0 if none).
 */
static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static int cmd_rate(int argc, char **argv)
{
	unsigned long long first, last, a, b, off = 0, ngap = 0, min_ns = 0;
	unsigned long long *t = NULL, (*gap)[2] = NULL;
	unsigned long n = 0, cap = 0, ng = 0, gcap = 0, i, k, clean = 0;
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	double run, median = 0;
	size_t len;
	unsigned int pid;
	char *buf;
	FILE *g;

	if (argc < 3 || argc > 5)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	if (argc == 5)
		min_ns = strtoull(argv[4], NULL, 0) * 1000;
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if (s->tgid != pid)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			t = realloc(t, cap * sizeof(*t));
			if (!t)
				return 2;
		}
		t[n++] = s->time_ns;
	}
	/* the rings' records interleave: by time */
	if (n)
		qsort(t, n, sizeof(*t), cmp_u64);
	first = n ? t[0] : 0;
	last = n ? t[n - 1] : 0;
	if (argc == 3) {
		printf("%lu %.1f\n", n,
		       n > 1 ? (n - 1) * 1e9 / (double)(last - first) : 0.0);
		return 0;
	}
	g = fopen(argv[3], "r");
	if (!g)
		return 2;
	while (fscanf(g, "%llu %llu", &a, &b) == 2) {
		if (b - a >= min_ns) {
			if (ng == gcap) {
				gcap = gcap ? 2 * gcap : 1024;
				gap = realloc(gap, gcap * sizeof(*gap));
				if (!gap)
					return 2;
			}
			gap[ng][0] = a;
			gap[ng++][1] = b;
		}
		if (a < first)
			a = first;
		if (b > last)
			b = last;
		if (b > a) {
			off += b - a;
			ngap++;
		}
	}
	fclose(g);
	run = n > 1 ? (double)(last - first - off) / 1e9 : 0;
	/* the intervals that no gap of min_ns overlaps, in place of t[] */
	for (i = 0, k = 0; i + 1 < n; i++) {
		while (k < ng && gap[k][1] <= t[i])
			k++;
		if (k < ng && gap[k][0] < t[i + 1])
			continue;
		t[clean++] = t[i + 1] - t[i];
	}
	if (clean) {
		qsort(t, clean, sizeof(*t), cmp_u64);
		median = t[(clean - 1) / 2] / 1e3;
	}
	printf("%lu %.1f %.3f %llu %.1f %lu\n", n,
	       run > 0 ? (n - 1) / run : 0.0, run, ngap, median, clean);
	free(gap);
	free(t);
	return 0;
}

/*
 * garbage's samples: none walked deeper than 2 frames; with "fault"
 * (garbage's mode of that name: a good first frame record whose saved bp
 * points where nothing is mapped), nearly every one (all but those taken
 * between its spins) ending there, with two frames and stop "fault".
 */
static int cmd_walkstop(int argc, char **argv)
{
	unsigned long n = 0, deep = 0, fault = 0;
	struct dsample d;
	struct iter it;
	size_t len;
	unsigned int pid;
	char *buf;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "fault")))
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		if (d.s->tgid != pid)
			continue;
		n++;
		if (d.nu > 2)
			deep++;
		if (d.nu == 2 && d.s->stop == STACKID_STOP_FAULT)
			fault++;
	}
	if (argc == 4)
		printf("%sok - a read that faults after one that did not: %lu of %lu samples end there, with 2 frames\n",
		       n && fault * 10 >= n * 9 ? "" : "not ", fault, n);
	else
		printf("%sok - garbage stack: %lu samples delivered, %lu walked deeper than 2\n",
		       n && !deep ? "" : "not ", n, deep);
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	size_t len;
	unsigned int i;
	char *buf, h[41];

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		printf("%llu cpu%u %u/%u %.16s flags %#x frames %u kernel %u "
		       "cgroup %llu %s\n", (unsigned long long)s->time_ns,
		       s->cpu, s->tgid, s->tid, s->comm, s->flags,
		       s->nr_frames, s->nr_kernel,
		       (unsigned long long)s->cgroup_id,
		       cgroup_path(&it, s->cgroup_id) ?: "-");
		for (i = 0; i < d.nk; i++) {
			struct dkframe *k = &d.kframes[i];

			printf("  k %s+%#llx [%s]\n", k->name ?: "?", k->off,
			       k->module && *k->module ? k->module : "kernel");
		}
		for (i = 0; i < d.nu; i++) {
			struct dframe *fr = &d.frames[i];

			if (fr->status == STACKID_FRAME_VALID) {
				hex(fr->build_id, fr->len, h);
				printf("  %s+%#llx\n", h,
				       (unsigned long long)fr->addr);
			} else {
				printf("  %#llx (%s)\n",
				       (unsigned long long)fr->addr,
				       stackid_ip_reason_name(fr->reason));
			}
		}
	}
	return 0;
}

#define EXPECT(cond, ...) do {					\
	printf("%sok - ", (cond) ? "" : "not ");			\
	printf(__VA_ARGS__);					\
	printf("\n");						\
} while (0)

/* Drop every capability, keeping uid 0. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { { 0 } };

	return syscall(SYS_capset, &h, d);
}

/* Errno of open(STACKID_DEVICE) in a child as uid/without caps. */
static int open_errno_as(int nobody)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (nobody ? setuid(65534) : drop_caps())
			_exit(100);
		_exit(open(STACKID_DEVICE, O_RDONLY) < 0 ? errno : 0);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Fork a child that burns CPU for @ms milliseconds; wait for it. */
static void spin_child(int ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		long long end = now_ms() + ms;

		while (now_ms() < end)
			;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* An address no process has mapped, hidden from the compiler. */
static void *volatile bad_ptr = (void *)16;

/*
 * STACKID_IOC_ADD_UNWIND / GET_UNWIND: every argument checked, the rows
 * copied (changing them afterwards changes nothing), EEXIST, ENOSPC
 * against unwind_kb (lowered for the check, then put back).
 */
static void uw_errors(int fd)
{
	struct stackid_unwind_row rows[4] = {
		{ 0x1000, 8, STACKID_UW_CFA_SP, 0 },
		{ 0x1004, 16, STACKID_UW_CFA_SP | STACKID_UW_BP_SAVED, -2 },
		{ 0x1010, 16, STACKID_UW_CFA_BP | STACKID_UW_BP_SAVED, -2 },
		{ 0x1040, 0, STACKID_UW_CFA_NONE, 0 },
	};
	struct stackid_unwind_table t = {
		.rows = (uintptr_t)rows, .nr_rows = 4, .build_id_len = 20,
	};
	struct stackid_unwind_info ui, ui2;
	unsigned int old_kb = 0;
	size_t big_n = 1 << 20;
	struct stackid_unwind_row *big;
	FILE *f;
	int r;

	memset(t.build_id, 0xab, sizeof(t.build_id));
	r = ioctl(fd, STACKID_IOC_GET_UNWIND, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "GET_UNWIND bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "ADD_UNWIND bad pointer: EFAULT");
	t.rows = 16;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EFAULT, "ADD_UNWIND bad rows pointer: EFAULT");
	t.rows = (uintptr_t)rows;
	t.__pad[1] = 1;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND nonzero pad: EINVAL");
	t.__pad[1] = 0;
	t.__pad2 = 1;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND nonzero pad2: EINVAL");
	t.__pad2 = 0;
	t.build_id_len = 21;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND build-id length 21: EINVAL");
	t.build_id_len = 0;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND build-id length 0: EINVAL");
	t.build_id_len = 20;
	t.nr_rows = 0;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND no rows: EINVAL");
	t.nr_rows = STACKID_UW_MAX_ROWS + 1;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND too many rows: EINVAL");
	t.nr_rows = 4;
	rows[2].start = 0x1004;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND rows not ascending: EINVAL");
	rows[2].start = 0x1010;
	rows[3].rule = 0x0f;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND unknown CFA rule: EINVAL");
	rows[3].rule = 0x40;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EINVAL, "ADD_UNWIND unknown bp rule: EINVAL");
	rows[3].rule = STACKID_UW_CFA_NONE;
	r = ioctl(fd, STACKID_IOC_GET_UNWIND, &ui);
	EXPECT(r == 0 && !ui.tables, "refused tables were not kept (%u)",
	       ui.tables);
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r == 0, "ADD_UNWIND a good table: 0 (%s)", strerror(errno));
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(r < 0 && errno == EEXIST, "ADD_UNWIND the same build-id: EEXIST");
	r = ioctl(fd, STACKID_IOC_GET_UNWIND, &ui);
	EXPECT(r == 0 && ui.tables == 1 && ui.rows == 4 && ui.bytes >= 32 &&
	       ui.limit >= ui.bytes, "GET_UNWIND: 1 table, 4 rows, %llu bytes",
	       (unsigned long long)ui.bytes);

	/* the limit: lowered to 1 MiB, a table of 8 MiB is refused */
	f = fopen("/sys/module/stackid/parameters/unwind_kb", "r");
	if (f && fscanf(f, "%u", &old_kb) != 1)
		old_kb = 0;
	if (f)
		fclose(f);
	f = fopen("/sys/module/stackid/parameters/unwind_kb", "w");
	if (f) {
		fprintf(f, "1024\n");
		fclose(f);
	}
	big = calloc(big_n, sizeof(*big));
	for (size_t i = 0; big && i < big_n; i++) {
		big[i].start = i;
		big[i].rule = STACKID_UW_CFA_SP;
		big[i].cfa_off = 8;
	}
	t.rows = (uintptr_t)big;
	t.nr_rows = big_n;
	t.build_id[0] = 0xcd;
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(big && r < 0 && errno == ENOSPC,
	       "ADD_UNWIND beyond unwind_kb: ENOSPC (%s)", strerror(errno));
	r = ioctl(fd, STACKID_IOC_GET_UNWIND, &ui2);
	EXPECT(r == 0 && ui2.tables == 1 && ui2.bytes == ui.bytes &&
	       ui2.limit == 1024 * 1024,
	       "the refused table took nothing; limit 1 MiB (%llu)",
	       (unsigned long long)ui2.limit);
	f = fopen("/sys/module/stackid/parameters/unwind_kb", "w");
	if (f) {
		fprintf(f, "%u\n", old_kb);
		fclose(f);
	}
	r = ioctl(fd, STACKID_IOC_ADD_UNWIND, &t);
	EXPECT(old_kb && r == 0, "and taken with unwind_kb back at %u", old_kb);
	free(big);

	/* at most 16384 tables, however small: the handler's hash stays short */
	t.rows = (uintptr_t)rows;
	t.nr_rows = 1;
	t.build_id_len = 4;
	for (unsigned int i = 0; i < 20000; i++) {
		memcpy(t.build_id, &i, 4);
		if (ioctl(fd, STACKID_IOC_ADD_UNWIND, &t) < 0)
			break;
	}
	r = errno;
	ioctl(fd, STACKID_IOC_GET_UNWIND, &ui2);
	EXPECT(r == ENOSPC && ui2.tables == 16384,
	       "one-row tables: ENOSPC after 16384 (%u, %s)", ui2.tables,
	       strerror(r));
}

static int cmd_errors(void)
{
	struct stackid_filter flt = { .tgid = 1, .__pad = 1 };
	struct stackid_stats st = { .cpu = 100000 };
	unsigned int hz = 0, max = 0, v;
	char small[8], *big;	/* below every record: header + body */
	FILE *f;
	int fd, fd2, r;

	fd = dev_open();
	fd2 = open(STACKID_DEVICE, O_RDONLY);
	EXPECT(fd2 < 0 && errno == EBUSY, "second open: EBUSY (%s)",
	       strerror(errno));
	if (fd2 >= 0)
		close(fd2);
	r = open_errno_as(0);
	EXPECT(r == EPERM, "open without CAP_PERFMON/SYS_ADMIN: EPERM (%s)",
	       strerror(r));
	r = open_errno_as(1);
	EXPECT(r == EACCES, "open as nobody: EACCES (%s)", strerror(r));

	r = ioctl(fd, _IO(STACKID_IOC_MAGIC, 0x7f), NULL);
	EXPECT(r < 0 && errno == ENOTTY, "unknown ioctl: ENOTTY (%s)",
	       strerror(errno));
	r = ioctl(fd, _IO('T', 1), NULL);
	EXPECT(r < 0 && errno == ENOTTY, "foreign ioctl: ENOTTY (%s)",
	       strerror(errno));
	r = ioctl(fd, STACKID_IOC_GET_VERSION, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "GET_VERSION bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_SET_FREQ, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "SET_FREQ bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_GET_STATS, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "GET_STATS bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_SET_FILTER, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "SET_FILTER bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_GET_STATS, &st);
	EXPECT(r < 0 && errno == EINVAL, "GET_STATS cpu 100000: EINVAL");
	r = ioctl(fd, STACKID_IOC_SET_FILTER, &flt);
	EXPECT(r < 0 && errno == EINVAL, "SET_FILTER nonzero pad: EINVAL");
	v = 7;
	r = ioctl(fd, STACKID_IOC_GET_FORMAT, &v);
	EXPECT(r == 0 && v == 0, "GET_FORMAT of a new reader: 0 (%u)", v);
	r = ioctl(fd, STACKID_IOC_SET_FORMAT, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "SET_FORMAT bad pointer: EFAULT");
	r = ioctl(fd, STACKID_IOC_GET_FORMAT, (void *)16);
	EXPECT(r < 0 && errno == EFAULT, "GET_FORMAT bad pointer: EFAULT");
	v = STACKID_FORMAT_PACKED | 4;
	r = ioctl(fd, STACKID_IOC_SET_FORMAT, &v);
	EXPECT(r < 0 && errno == EINVAL, "SET_FORMAT unknown flag: EINVAL");
	v = STACKID_FORMAT_DELTA;
	r = ioctl(fd, STACKID_IOC_SET_FORMAT, &v);
	EXPECT(r < 0 && errno == EINVAL,
	       "SET_FORMAT delta without packed: EINVAL");
	v = 1U << 31;
	r = ioctl(fd, STACKID_IOC_SET_FORMAT, &v);
	EXPECT(r < 0 && errno == EINVAL, "SET_FORMAT bit 31: EINVAL");
	v = STACKID_FORMAT_PACKED;
	xioctl(fd, STACKID_IOC_SET_FORMAT, &v, "SET_FORMAT");
	v = 0;
	xioctl(fd, STACKID_IOC_GET_FORMAT, &v, "GET_FORMAT");
	EXPECT(v == STACKID_FORMAT_PACKED, "GET_FORMAT: the format set (%u)",
	       v);

	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (f && fscanf(f, "%u", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	xioctl(fd, STACKID_IOC_GET_FREQ, &hz, "GET_FREQ");
	v = 0;
	r = ioctl(fd, STACKID_IOC_SET_FREQ, &v);
	EXPECT(r < 0 && errno == EINVAL, "SET_FREQ 0: EINVAL");
	v = max + 1;
	r = ioctl(fd, STACKID_IOC_SET_FREQ, &v);
	EXPECT(r < 0 && errno == EINVAL, "SET_FREQ max+1 (%u): EINVAL", v);
	xioctl(fd, STACKID_IOC_GET_FREQ, &v, "GET_FREQ");
	EXPECT(v == hz, "refused frequencies changed nothing (%u)", v);
	v = max;
	r = ioctl(fd, STACKID_IOC_SET_FREQ, &v);
	EXPECT(r == 0, "SET_FREQ max (%u): accepted", max);
	v = 99;
	xioctl(fd, STACKID_IOC_SET_FREQ, &v, "SET_FREQ");

	/* records to read: sample a child that spins for 300 ms */
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	spin_child(300);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	r = read(fd, bad_ptr, STACKID_RECORD_MAX);
	EXPECT(r < 0 && errno == EFAULT, "read into a bad pointer: EFAULT");
	/* a read buffer too small for the next record loses nothing */
	r = read(fd, small, sizeof(small));
	EXPECT(r < 0 && errno == EINVAL, "read with an 8-byte buffer: EINVAL (%s)",
	       strerror(errno));
	big = malloc(STACKID_RECORD_MAX);
	r = read(fd, big, STACKID_RECORD_MAX);
	EXPECT(r > 0 && stackid_record_check(big, r) > 0,
	       "then a STACKID_RECORD_MAX read gets a whole record (%d)", r);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, big, STACKID_RECORD_MAX) > 0)
		;
	r = read(fd, big, STACKID_RECORD_MAX);
	EXPECT(r < 0 && errno == EAGAIN, "drained O_NONBLOCK read: EAGAIN");
	uw_errors(fd);
	close(fd);
	/* and the module still works */
	fd = dev_open();
	r = ioctl(fd, STACKID_IOC_GET_VERSION, &v);
	EXPECT(r == 0 && v == STACKID_ABI_VERSION,
	       "still working: ABI version %#x", v);
	v = 7;
	r = ioctl(fd, STACKID_IOC_GET_FORMAT, &v);
	EXPECT(r == 0 && v == 0,
	       "the next reader starts with 16-byte frames (format %u)", v);
	{
		struct stackid_unwind_info ui;

		r = ioctl(fd, STACKID_IOC_GET_UNWIND, &ui);
		EXPECT(r == 0 && !ui.tables && !ui.rows && !ui.bytes,
		       "a new reader starts with no unwind tables (%u)",
		       ui.tables);
	}
	close(fd);
	return 0;
}

/*
 * The next build-id -> path record of a file (raw, or a capture: its
 * 32-byte header skipped) from *@off on, or NULL at the end; *@bad set
 * on a record that is not one.
 */
static struct stackid_build_id_path *next_path(char *buf, size_t len,
					      size_t *off, int *bad)
{
	struct stackid_build_id_path *p;
	long sz;

	if (!*off && len >= 8 && !memcmp(buf, "STACKIDC", 8))
		*off = 32;
	for (; *off < len; *off += sz) {
		sz = stackid_record_check(buf + *off, len - *off);
		if (sz <= 0) {
			*bad = 1;
			return NULL;
		}
		p = (struct stackid_build_id_path *)(buf + *off);
		if (p->hdr.type == STACKID_REC_BUILD_ID_PATH) {
			*off += sz;
			return p;
		}
	}
	return NULL;
}

/* Build-id -> path records of a capture file. */
static int cmd_paths(int argc, char **argv)
{
	struct stackid_build_id_path *p;
	size_t len, off = 0;
	int bad = 0;
	char *buf, h[41];

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	while ((p = next_path(buf, len, &off, &bad))) {
		hex(p->build_id, p->build_id_len, h);
		printf("%s %s\n", h, p->path);
	}
	return bad ? 3 : 0;
}

/*
 * Rewrite a file's build-id in place: find the bytes HEX in FILE, flip
 * the first one, write it back (the mtime changes). Prints the new hex.
 */
static int cmd_flipbid(int argc, char **argv)
{
	unsigned char id[20];
	unsigned int i, n;
	size_t len;
	char *buf, *p, h[41];
	FILE *f;

	if (argc != 3 || strlen(argv[2]) % 2 || strlen(argv[2]) > 40)
		return 2;
	n = strlen(argv[2]) / 2;
	for (i = 0; i < n; i++)
		sscanf(argv[2] + 2 * i, "%2hhx", &id[i]);
	buf = load(argv[1], &len);
	p = memmem(buf, len, id, n);
	if (!p)
		return 3;
	id[0] ^= 0xff;
	f = fopen(argv[1], "r+");
	if (!f || fseek(f, p - buf, SEEK_SET) || fwrite(id, 1, 1, f) != 1 ||
	    fclose(f))
		return 2;
	hex(id, n, h);
	printf("%s\n", h);
	return 0;
}

/* Per-sample handler cost from the module: count, mean, median, p99. */
static int cmd_cost(int fd)
{
	static struct stackid_cost c = { .cpu = STACKID_ALL_CPUS };
	unsigned long long acc = 0, med = 0, p99 = 0, max = 0, over = 0;
	unsigned int b;

	xioctl(fd, STACKID_IOC_GET_COST, &c, "GET_COST");
	for (b = 0; b < c.nr && b < STACKID_COST_BUCKETS; b++) {
		unsigned long long high = b + 1 < STACKID_COST_BUCKETS ?
			stackid_cost_bucket_low(b + 1) : ~0ULL;

		/* the longest: below the next bucket's low */
		if (c.buckets[b])
			max = high;
		/* those that may have taken more than 1 ms */
		if (high > 1000000)
			over += c.buckets[b];
		acc += c.buckets[b];
		if (!med && acc * 2 >= c.count)
			med = stackid_cost_bucket_low(b);
		if (!p99 && acc * 100 >= c.count * 99)
			p99 = stackid_cost_bucket_low(b);
	}
	printf("cost samples %llu mean_ns %llu median_ns %llu p99_ns %llu "
	       "max_ns %llu sum_ns %llu over_1ms %llu\n",
	       (unsigned long long)c.count,
	       c.count ? (unsigned long long)(c.sum_ns / c.count) : 0,
	       med, p99, max, (unsigned long long)c.sum_ns, over);
	return 0;
}

/* Frames per sample of PID, and the share of valid ones. */
static int cmd_frames(int argc, char **argv)
{
	unsigned long n = 0, frames = 0, valid = 0;
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	size_t len;
	unsigned long long since = 0;
	unsigned int pid, i;
	char *buf;

	if (argc != 3 && argc != 4)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	if (argc == 4)
		since = strtoull(argv[3], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if ((pid && s->tgid != pid) || s->time_ns < since)
			continue;
		n++;
		frames += d.nu;
		for (i = 0; i < d.nu; i++)
			valid += d.frames[i].status == STACKID_FRAME_VALID;
	}
	printf("frames samples %lu per_sample %.1f valid_pct %.1f\n", n,
	       n ? (double)frames / n : 0.0,
	       frames ? valid * 100.0 / frames : 0.0);
	return 0;
}

/*
 * kcount FILE [PID]: what a capture holds of kernel frames and cgroups
 * (of PID's samples only, but the records): samples, samples with kernel
 * frames, kernel frames, those named, KSYM and CGROUP records, samples
 * flagged user with kernel frames (must be 0), samples whose cgroup the
 * capture never names.
 */
static int cmd_kcount(int argc, char **argv)
{
	unsigned long n = 0, ks = 0, kf = 0, named = 0, bad = 0, unnamed = 0;
	const struct stackid_sample *s;
	static struct iter it, all;
	struct dsample d;
	unsigned int pid = 0, i;
	size_t len;
	char *buf;

	if (argc != 2 && argc != 3)
		return 2;
	buf = load(argv[1], &len);
	if (argc == 3)
		pid = strtoul(argv[2], NULL, 0);
	/* the cgroups are named anywhere in the file: read it all first */
	iter_init(&all, buf, len);
	for_each_sample(d, all)
		;
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if (pid && s->tgid != pid)
			continue;
		n++;
		ks += d.nk > 0;
		kf += d.nk;
		for (i = 0; i < d.nk; i++)
			named += d.kframes[i].name != NULL;
		if (d.nk && (s->flags & STACKID_SF_USER))
			bad++;
		if (s->cgroup_id && !cgroup_path(&all, s->cgroup_id))
			unnamed++;
	}
	printf("samples %lu\nksamples %lu\nkframes %lu\nknamed %lu\n"
	       "ksym_records %lu\ncgroup_records %lu\nuser_with_kernel %lu\n"
	       "cgroup_unnamed %lu\n", n, ks, kf, named, all.ksyms,
	       all.ncgrecs, bad, unnamed);
	return 0;
}

/* cgroups FILE: "TGID ID PATH" of each distinct (process, cgroup). */
static int cmd_cgroups(int argc, char **argv)
{
	static unsigned int tg[4096];
	static unsigned long long id[4096];
	static struct iter it, all;
	unsigned int n = 0, i;
	struct dsample d;
	size_t len;
	char *buf;

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	iter_init(&all, buf, len);
	for_each_sample(d, all)
		;
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		for (i = 0; i < n; i++)
			if (tg[i] == d.s->tgid && id[i] == d.s->cgroup_id)
				break;
		if (i == n && n < 4096) {
			tg[n] = d.s->tgid;
			id[n++] = d.s->cgroup_id;
		}
	}
	for (i = 0; i < n; i++)
		printf("%u %llu %s\n", tg[i], id[i],
		       cgroup_path(&all, id[i]) ?: "-");
	return 0;
}

/* read() of 0 bytes returns 0 at once, never blocks (alarm: 3 s). */
static int cmd_read0(void)
{
	char c;
	int fd = dev_open();
	ssize_t r;

	alarm(3);
	r = read(fd, &c, 0);
	alarm(0);
	EXPECT(r == 0, "read() of 0 bytes returns 0 at once (%zd, %s)", r,
	       r < 0 ? strerror(errno) : "-");
	close(fd);
	return 0;
}

/* GET_FREQ of a new open: prints the frequency. */
static int cmd_freq(void)
{
	unsigned int hz = 0;
	int fd = dev_open();

	xioctl(fd, STACKID_IOC_GET_FREQ, &hz, "GET_FREQ");
	printf("%u\n", hz);
	close(fd);
	return 0;
}

/* SET_FREQ HZ: prints "OK" or the errno's name; exit 0 either way. */
static int cmd_setfreq(int argc, char **argv)
{
	unsigned int hz;
	int fd, r;

	if (argc != 2)
		return 2;
	hz = strtoul(argv[1], NULL, 0);
	fd = open(STACKID_DEVICE, O_RDONLY);
	if (fd < 0) {
		printf("open %s\n", strerrorname_np(errno));
		return 0;
	}
	r = ioctl(fd, STACKID_IOC_SET_FREQ, &hz);
	printf("%s\n", r ? strerrorname_np(errno) : "OK");
	close(fd);
	return 0;
}

/*
 * RESET_STATS is refused while sampling (EBUSY), and accepted once
 * stopped; resets hammered from another process while a busy child is
 * sampled at a high rate never break samples == delivered + dropped.
 */
static int cmd_resetbusy(void)
{
	int fd = dev_open(), r, i, bad = 0;
	unsigned int hz = 4999;
	pid_t kid;

	xioctl(fd, STACKID_IOC_SET_FREQ, &hz, "SET_FREQ");
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	r = ioctl(fd, STACKID_IOC_RESET_STATS, NULL);
	EXPECT(r < 0 && errno == EBUSY, "RESET_STATS while sampling: EBUSY (%s)",
	       r ? strerror(errno) : "accepted");
	kid = fork();
	if (kid == 0) {
		long long end = now_ms() + 1500;

		while (now_ms() < end)
			;
		_exit(0);
	}
	for (i = 0; i < 300; i++) {
		if (ioctl(fd, STACKID_IOC_RESET_STATS, NULL) == 0)
			bad++;
		usleep(5000);
	}
	waitpid(kid, NULL, 0);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	EXPECT(!bad, "no reset accepted while sampling (%d of 300)", bad);
	EXPECT(print_stats(fd) == 0,
	       "samples == delivered + dropped after the resets");
	r = ioctl(fd, STACKID_IOC_RESET_STATS, NULL);
	EXPECT(r == 0, "RESET_STATS once stopped: accepted (%s)",
	       r ? strerror(errno) : "0");
	close(fd);
	return 0;
}

/* mtime FILE: "SEC NSEC"; setmtime FILE SEC NSEC: utimensat(). */
static int cmd_mtime(int argc, char **argv)
{
	struct timespec ts[2];
	struct stat st;

	if (argc == 2) {
		if (stat(argv[1], &st))
			return 2;
		printf("%lld %ld\n", (long long)st.st_mtim.tv_sec,
		       st.st_mtim.tv_nsec);
		return 0;
	}
	if (argc != 4)
		return 2;
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = strtoll(argv[2], NULL, 0);
	ts[1].tv_nsec = strtol(argv[3], NULL, 0);
	return utimensat(AT_FDCWD, argv[1], ts, 0) ? 2 : 0;
}

/*
 * inowatch MS FILE...: watch the FILEs with inotify for MS ms or until
 * SIGTERM (after printing "watching"); then print "access N": the reads
 * (IN_ACCESS) of them anybody made meanwhile. "noinotify ERROR" where the
 * kernel has no inotify.
 */
static int cmd_inowatch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct timespec t0, t;
	unsigned long n = 0;
	long ms, left;
	char buf[4096] __attribute__((aligned(8)));
	int fd, i;

	if (argc < 3)
		return 2;
	ms = strtol(argv[1], NULL, 0);
	fd = inotify_init1(IN_NONBLOCK);
	if (fd < 0) {
		/* a kernel without CONFIG_INOTIFY_USER (the debug kernel) */
		printf("noinotify %s\n", strerror(errno));
		return 0;
	}
	for (i = 2; i < argc; i++)
		if (inotify_add_watch(fd, argv[i], IN_ACCESS) < 0) {
			perror(argv[i]);
			return 2;
		}
	sigaction(SIGTERM, &sa, NULL);	/* no SA_RESTART: poll() ends */
	printf("watching\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop_asked) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		char *q;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (t.tv_sec - t0.tv_sec) * 1000 -
		       (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (left <= 0)
			break;
		if (poll(&p, 1, left) <= 0)
			continue;
		r = read(fd, buf, sizeof(buf));
		for (q = buf; r > 0 && q < buf + r;) {
			struct inotify_event *e = (struct inotify_event *)q;

			n += !!(e->mask & IN_ACCESS);
			q += sizeof(*e) + e->len;
		}
	}
	printf("access %lu\n", n);
	return 0;
}

/*
 * perfcmp CAP PERFTXT PID MINPCT: stackid's user frames of PID's samples
 * in CAP against perf --call-graph dwarf's (PERFTXT: `perf script -F
 * pid,ip,dso --show-mmap-events`), frame by frame. Each frame becomes
 * "FILE+OFFSET" (the file's base name; the offset in the file, callers'
 * return addresses less one, as perf's libdw unwinder reports them; perf's
 * addresses through its mmap events). The samplers took different
 * samples, and where code recurses or is called from many places no two
 * need carry the same stack: a stackid sample is comparable when perf
 * sampled its innermost frame (the same instruction) too, and agrees when
 * its second frame is one perf found second, each further frame's caller
 * is one perf found for that frame (each pair of neighbouring return
 * addresses is a pair in perf's samples; where perf never unwound from
 * that frame, a rare caller, not judged but counted), and its walk ends
 * at a frame where one of perf's ends. The warm-up is not judged: the
 * recording's first half (unwind.sh: the tables come a file at a time),
 * and samples with a file first seen less than 2 s before them.
 */
struct sset {
	char *v[1 << 16];
	unsigned int n;
};

static unsigned int ss_hash(const char *a, const char *b)
{
	unsigned int h = 2166136261u;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	for (; b && *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h;
}

/* Find (or with add, insert) "A" or "A B"; false if absent (or full). */
static int ss_find(struct sset *s, const char *a, const char *b, int add)
{
	unsigned int m = (1 << 16) - 1, i = ss_hash(a, b) & m, k;
	size_t la = strlen(a);

	for (k = 0; k <= m; k++, i = (i + 1) & m) {
		char *v = s->v[i];

		if (!v) {
			if (!add || s->n >= m / 2)
				return 0;
			v = malloc(la + (b ? strlen(b) + 2 : 1));
			if (!v)
				return 0;
			strcpy(v, a);
			if (b) {
				v[la] = ' ';
				strcpy(v + la + 1, b);
			}
			s->v[i] = v;
			s->n++;
			return 1;
		}
		if (!strncmp(v, a, la) &&
		    (b ? v[la] == ' ' && !strcmp(v + la + 1, b) : !v[la]))
			return 1;
	}
	return 0;
}

static int ss_has(struct sset *s, const char *a, const char *b)
{
	return ss_find(s, a, b, 0);
}

static void ss_add(struct sset *s, const char *a, const char *b)
{
	ss_find(s, a, b, 1);
}

struct pc_map {
	unsigned long long start, len, pgoff;
	char base[64];
};

static const char *pc_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int cmd_perfcmp(int argc, char **argv)
{
	static struct pc_map maps[4096];
	static char *pseq[65536];
	char names[1024][41], bases[1024][64];
	unsigned int nmaps = 0, npseq = 0, nnames = 0, pid, minpct, i, j;
	unsigned long total = 0, comparable = 0, agree = 0, shown = 0;
	static struct sset leaves, edges, ends, firsts, callees;
	unsigned long unjudged = 0, young = 0;
	static char first[256][41];
	unsigned long long first_ns[256];
	unsigned int nfirst = 0;
	unsigned long nth = 0, half;
	char line[4096], cur[8192];
	struct stackid_build_id_path *p;
	size_t len, off = 0, curlen = 0;
	int insample = 0, pidok = 0, bad = 0;
	struct dsample d;
	struct iter it;
	char *buf;
	FILE *f;

	if (argc != 5)
		return 2;
	pid = strtoul(argv[3], NULL, 0);
	minpct = strtoul(argv[4], NULL, 0);
	f = fopen(argv[2], "r");
	if (!f)
		return 2;
	/* perf's samples of PID, as "FILE+OFF ..." strings */
	for (;;) {
		char *l = fgets(line, sizeof(line), f);
		char *m;

		if (!l || line[0] != '\t') {
			if (insample && pidok && curlen && npseq < 65536)
				pseq[npseq++] = strdup(cur);
			insample = 0;
			curlen = 0;
			cur[0] = 0;
		}
		if (!l)
			break;
		m = strstr(line, "PERF_RECORD_MMAP");
		if (m && nmaps < 4096) {
			unsigned int mp;
			unsigned long long st, ln, pg;
			char *path = strstr(m, "]: ");
			char *nl;

			m = strchr(m, ' ');
			if (!m || !path || sscanf(m, " %u/%*u: [%llx(%llx) @ %lli",
						  &mp, &st, &ln, &pg) != 4 ||
			    mp != pid)
				continue;
			path = strchr(path + 3, ' ');	/* after the prot */
			if (!path)
				continue;
			nl = strchr(path, '\n');
			if (nl)
				*nl = 0;
			maps[nmaps].start = st;
			maps[nmaps].len = ln;
			maps[nmaps].pgoff = pg;
			snprintf(maps[nmaps].base, sizeof(maps[0].base), "%s",
				 pc_base(path + 1));
			nmaps++;
			continue;
		}
		if (line[0] != '\t') {
			/* a sample's first line: its pid first */
			insample = 1;
			pidok = strtoul(line, NULL, 10) == pid;
			continue;
		}
		if (insample && pidok) {
			unsigned long long ip = strtoull(line + 1, NULL, 16);
			unsigned long long o = ip;
			char *lp = strrchr(line, '('), *rp = strrchr(line, ')');
			const char *b = "?";
			int k;

			if (lp && rp > lp) {
				*rp = 0;
				b = pc_base(lp + 1);
			}
			if (ip >= 0x800000000000ULL || !strncmp(b, "[kernel", 7))
				continue;
			/*
			 * perf prints a file's frames as offsets in it (its
			 * map_ip()); an address in a mapping of that file
			 * (the latest) is made one
			 */
			for (k = nmaps - 1; k >= 0; k--)
				if (ip >= maps[k].start &&
				    ip - maps[k].start < maps[k].len &&
				    !strcmp(maps[k].base, b)) {
					o = ip - maps[k].start + maps[k].pgoff;
					break;
				}
			curlen += snprintf(cur + curlen, curlen < sizeof(cur) ?
					   sizeof(cur) - curlen : 0,
					   "%s%s+%llx", curlen ? " " : "", b, o);
			if (curlen >= sizeof(cur))
				curlen = sizeof(cur) - 1;
		}
	}
	fclose(f);
	for (j = 0; j < npseq; j++) {
		char *q = pseq[j], *prev = NULL;

		while (q) {
			char *sp = strchr(q, ' ');

			if (sp)
				*sp = 0;
			if (!prev)
				ss_add(&leaves, q, NULL);
			else if (prev == pseq[j])
				ss_add(&firsts, q, NULL);
			else {
				ss_add(&edges, prev, q);
				ss_add(&callees, prev, NULL);
			}
			if (!sp)
				ss_add(&ends, q, NULL);
			prev = q;
			q = sp ? sp + 1 : NULL;
		}
	}
	/* stackid's build-ids' base names, from the capture's path records */
	buf = load(argv[1], &len);
	while (nnames < 1024 && (p = next_path(buf, len, &off, &bad))) {
		hex(p->build_id, p->build_id_len, names[nnames]);
		snprintf(bases[nnames], sizeof(bases[0]), "%s", pc_base(p->path));
		nnames++;
	}
	/* when each build-id first appears in PID's samples */
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		if (d.s->tgid != pid || !d.nu)
			continue;
		total++;
		for (i = 0; i < d.nu; i++) {
			char h[41];

			if (d.frames[i].status != STACKID_FRAME_VALID)
				continue;
			hex(d.frames[i].build_id, d.frames[i].len, h);
			for (j = 0; j < nfirst && strcmp(first[j], h); j++)
				;
			if (j == nfirst && nfirst < 256) {
				strcpy(first[nfirst], h);
				first_ns[nfirst++] = d.s->time_ns;
			}
		}
	}
	half = total / 2;
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		size_t n = 0;

		if (d.s->tgid != pid || !d.nu)
			continue;
		/*
		 * The warm-up: tables come a file at a time, after its first
		 * sample (the recorder learns its path then, and compiles
		 * its table): the recording's first half, and a sample with
		 * a file first seen less than 2 s before it
		 */
		if (nth++ < half)
			continue;
		for (i = 0, j = nfirst; i < d.nu && j == nfirst; i++) {
			char h[41];

			if (d.frames[i].status != STACKID_FRAME_VALID)
				continue;
			hex(d.frames[i].build_id, d.frames[i].len, h);
			for (j = 0; j < nfirst; j++)
				if (!strcmp(first[j], h) &&
				    d.s->time_ns < first_ns[j] + 2000000000ULL)
					break;
		}
		if (j < nfirst) {
			young++;
			continue;
		}
		cur[0] = 0;
		for (i = 0; i < d.nu && n < sizeof(cur); i++) {
			struct dframe *fr = &d.frames[i];
			const char *b = "?";
			char h[41];

			if (fr->status == STACKID_FRAME_VALID) {
				hex(fr->build_id, fr->len, h);
				for (j = 0; j < nnames; j++)
					if (!strcmp(names[j], h)) {
						b = bases[j];
						break;
					}
			}
			n += snprintf(cur + n, sizeof(cur) - n, "%s%s+%llx",
				      i ? " " : "", b,
				      fr->addr - (i ? 1 : 0));
		}
		{
			char *fr[STACKID_MAX_DEPTH + 1], *q = cur;
			unsigned int nf = 0, bad = 0;
			int cmp, ok = 1;

			while (q && nf < STACKID_MAX_DEPTH) {
				fr[nf++] = q;
				q = strchr(q, ' ');
				if (q)
					*q++ = 0;
			}
			cmp = ss_has(&leaves, fr[0], NULL);
			if (nf > 1 && !ss_has(&firsts, fr[1], NULL)) {
				ok = 0;
				bad = 0;
			}
			for (i = 1; i + 1 < nf && ok; i++) {
				/* a frame perf never found a caller of */
				if (!ss_has(&callees, fr[i], NULL)) {
					unjudged += cmp;
					continue;
				}
				if (!ss_has(&edges, fr[i], fr[i + 1])) {
					ok = 0;
					bad = i;
				}
			}
			if (ok && !ss_has(&ends, fr[nf - 1], NULL)) {
				ok = 0;
				bad = nf - 1;
			}
			comparable += cmp;
			agree += cmp && ok;
			if (cmp && !ok && shown++ < 5) {
				printf("# perfcmp: stackid (stop %u, %s)",
				       d.s->stop, d.s->flags & STACKID_SF_DEFERRED ?
				       "deferred" : "in the handler");
				for (i = 0; i < nf; i++)
					printf(" %s(%u)", fr[i], d.frames[i].how);
				if (bad + 1 < nf)
					printf(": %s -> %s never in perf's\n",
					       fr[bad], fr[bad + 1]);
				else
					printf(": no walk of perf's ends at %s\n",
					       fr[bad]);
			}
		}
	}
	printf("# perfcmp: perf %u samples of %u (%u mappings, %u caller edges); stackid %lu samples, the second half judged but for %lu with a file first seen less than 2 s before: %lu comparable (innermost frame among perf's), %lu agree frame by frame; %lu callers of frames perf never unwound from not judged\n",
	       npseq, pid, nmaps, edges.n, total, young, comparable, agree, unjudged);
	printf("%sok - frame by frame with perf: %lu of %lu comparable samples of the recording's second half (>= %u%%) (%lu%%)\n",
	       comparable >= 20 && agree * 100 >= minpct * comparable ?
	       "" : "not ", agree, comparable, minpct,
	       comparable ? agree * 100 / comparable : 0);
	return 0;
}

/* depth FILE PID: "FRAMES TRUNCATED" of PID's most common stack depth. */
static int cmd_depth(int argc, char **argv)
{
	unsigned long count[STACKID_MAX_DEPTH + 1] = { 0 };
	unsigned long trunc[STACKID_MAX_DEPTH + 1] = { 0 };
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	unsigned int pid, k, best = 0;
	size_t len;
	char *buf;

	if (argc != 3)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if (s->tgid != pid)
			continue;
		count[d.nu]++;
		if (s->flags & STACKID_SF_TRUNCATED)
			trunc[d.nu]++;
	}
	for (k = 0; k <= STACKID_MAX_DEPTH; k++)
		if (count[k] > count[best])
			best = k;
	printf("%u %s\n", best, trunc[best] * 2 > count[best] ? "1" : "0");
	return 0;
}

/* tids FILE PID: the distinct thread ids of PID's samples, one a line. */
static int cmd_tids(int argc, char **argv)
{
	unsigned int seen[256], n = 0, i, pid;
	const struct stackid_sample *s;
	struct dsample d;
	struct iter it;
	size_t len;
	char *buf;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "walked")))
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		s = d.s;
		if (s->tgid != pid)
			continue;
		/* walked: the samples that carry user frames only */
		if (argc == 4 && ((s->flags & STACKID_SF_KTHREAD) ||
				  s->nr_frames == s->nr_kernel))
			continue;
		for (i = 0; i < n && seen[i] != s->tid; i++)
			;
		if (i == n && n < 256)
			seen[n++] = s->tid;
	}
	for (i = 0; i < n; i++)
		printf("%u\n", seen[i]);
	return 0;
}

/*
 * unwind FILE PID EXPECT MINPCT exact|fp|reach: see the usage above.
 */
#define UW_MAX_EXPECT	32
#define UW_MAX_PATHS	4096

struct uwexpect {
	char name[128];
	char bid[64];		/* hex, "@FILENAME" or "*" */
	unsigned long long start, end;
};

/* build-id (hex) -> the file name (last path component) of its path */
struct uwpaths {
	unsigned int n;
	char hex[UW_MAX_PATHS][41];
	const char *base[UW_MAX_PATHS];
};

static void uw_paths(const char *buf, size_t len, struct uwpaths *p)
{
	size_t off = len >= 32 && !memcmp(buf, "STACKIDC", 8) ? 32 : 0;
	long sz;

	for (; off < len && p->n < UW_MAX_PATHS; off += sz) {
		const struct stackid_build_id_path *r = (const void *)(buf + off);
		const char *slash;

		sz = stackid_record_check(buf + off, len - off);
		if (sz <= 0)
			return;
		if (r->hdr.type != STACKID_REC_BUILD_ID_PATH)
			continue;
		hex(r->build_id, r->build_id_len, p->hex[p->n]);
		slash = strrchr(r->path, '/');
		p->base[p->n++] = slash ? slash + 1 : r->path;
	}
}

/* Frame @i of a sample is what @e says (return addresses: the call). */
static bool uw_is(const struct dframe *fr, unsigned int i,
		  const struct uwexpect *e, const struct uwpaths *p)
{
	unsigned long long a;
	unsigned int k;
	char h[41];

	if (fr->status != STACKID_FRAME_VALID)
		return false;
	a = i ? fr->addr - 1 : fr->addr;
	if (a < e->start || a >= e->end)
		return false;
	if (e->bid[0] == '*')
		return true;
	hex(fr->build_id, fr->len, h);
	if (e->bid[0] != '@')
		return !strcmp(h, e->bid);
	for (k = 0; k < p->n; k++)
		if (!strcmp(p->hex[k], h) && !strcmp(p->base[k], e->bid + 1))
			return true;
	return false;
}

/* One line of a sample's user frames: NAME or BUILDID+OFF, and how. */
static void uw_show(const struct dsample *d, const struct uwexpect *ex,
		    unsigned int nex, const struct uwpaths *p)
{
	static const char hows[] = "FRTS";
	unsigned int i, k;
	char h[41];

	printf("#     stop %s:", stackid_stop_name(d->s->stop) ?: "?");
	for (i = 0; i < d->nu && i < 24; i++) {
		const struct dframe *fr = &d->frames[i];
		char how = fr->how < 4 ? hows[fr->how] : '?';

		for (k = 0; k < nex && !uw_is(fr, i, &ex[k], p); k++)
			;
		if (fr->status != STACKID_FRAME_VALID) {
			printf(" %#llx(%s,%c)", fr->addr,
			       stackid_ip_reason_name(fr->reason) ?: "?", how);
		} else if (k < nex) {
			printf(" %s+%#llx(%c)", ex[k].name,
			       fr->addr - ex[k].start, how);
		} else {
			hex(fr->build_id, fr->len, h);
			h[8] = 0;
			for (k = 0; k < p->n; k++)
				if (!strncmp(p->hex[k], h, 8))
					break;
			printf(" %s+%#llx(%c)", k < p->n ? p->base[k] : h,
			       fr->addr, how);
		}
	}
	printf("%s\n", d->nu > 24 ? " ..." : "");
}

/*
 * reach: from frame 1 on, EXPECT's lines after the first in order,
 * through valid frames. Returns the line not reached (@nex: all were).
 */
static unsigned int uw_reach(const struct dsample *d,
			     const struct uwexpect *ex, unsigned int nex,
			     const struct uwpaths *p)
{
	unsigned int i, j;

	for (i = 1, j = 1; i < d->nu && j < nex; i++) {
		if (d->frames[i].status != STACKID_FRAME_VALID)
			break;
		if (uw_is(&d->frames[i], i, &ex[j], p))
			j++;
	}
	return j;
}

/* EXPECT's lines into @ex: how many (0: none, or no such file) */
static unsigned int uw_expect(const char *path, struct uwexpect *ex)
{
	unsigned int n = 0;
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (n < UW_MAX_EXPECT && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %63s %llx %llx", ex[n].name,
			   ex[n].bid, &ex[n].start, &ex[n].end) == 4)
			n++;
	fclose(f);
	return n;
}

static int cmd_unwind(int argc, char **argv)
{
	static struct uwpaths paths;
	struct uwexpect ex[UW_MAX_EXPECT];
	unsigned long leaf = 0, warm = 0, total = 0, match = 0, shown = 0;
	unsigned long whole = 0;
	unsigned long stops[STACKID_STOP_NR + 1] = { 0 };
	unsigned long hows[STACKID_HOW_NR + 1] = { 0 };
	unsigned long firstbad[UW_MAX_EXPECT + 2] = { 0 };
	unsigned long long t0 = 0, t1 = 0;
	unsigned int nex = 0, pid, minpct, i, j;
	enum { EXACT, FP, REACH } mode;
	const char *label;
	struct dsample d;
	struct iter it;
	bool started;
	size_t len;
	char *buf;

	if (argc != 6)
		return 2;
	if (!strcmp(argv[5], "exact"))
		mode = EXACT;
	else if (!strcmp(argv[5], "fp"))
		mode = FP;
	else if (!strcmp(argv[5], "reach"))
		mode = REACH;
	else
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	minpct = strtoul(argv[4], NULL, 0);
	label = strrchr(argv[3], '/') ? strrchr(argv[3], '/') + 1 : argv[3];
	nex = uw_expect(argv[3], ex);
	if (!nex)
		return 2;
	uw_paths(buf, len, &paths);
	started = mode == FP;
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		const struct stackid_sample *s = d.s;
		bool ok = true;

		if (s->tgid != pid || !d.nu || !uw_is(&d.frames[0], 0, &ex[0],
							&paths))
			continue;
		leaf++;
		if (!t0)
			t0 = s->time_ns;
		i = 1;
		if (mode == REACH) {
			i = uw_reach(&d, ex, nex, &paths);
			ok = i == nex;
		} else if (mode == FP) {
			/* each frame a later line than the frame before's */
			for (j = 1; i < d.nu; i++, j++) {
				while (j < nex &&
				       !uw_is(&d.frames[i], i, &ex[j], &paths))
					j++;
				if (j == nex)
					break;
			}
			ok = i == d.nu && (s->stop == STACKID_STOP_BAD_FP ||
					   s->stop == STACKID_STOP_END);
			if (!ok && i == d.nu)
				i = nex + 1;	/* the stop wrong */
			whole += ok && d.nu == nex;
		} else {
			for (; i < d.nu && i < nex; i++)
				if (!uw_is(&d.frames[i], i, &ex[i], &paths))
					break;
			/* a frame that differs, one more, one missing */
			ok = i == d.nu && d.nu == nex &&
			     s->stop == STACKID_STOP_END;
			if (!ok && i == d.nu && i == nex)
				i = nex + 1;	/* the stop wrong */
		}
		/*
		 * The warm-up ends at the first sample that passes with no
		 * frame found by a frame pointer: these programs and their
		 * libraries have none, so before their tables load a walk
		 * can pass only by luck (a stray %rbp, seen on the RT line
		 * with the host busy: libgcc_s's table came later than such
		 * a sample, and its 49 walks meanwhile were judged)
		 */
		if (!started && ok && mode != FP)
			for (j = 1; j < d.nu && ok; j++)
				ok = d.frames[j].how != STACKID_HOW_FP;
		if (!started) {
			if (!ok) {
				if (warm++ < 2) {
					printf("#   %s: warm-up sample %lu "
					       "(%u frames):\n", label, warm,
					       d.nu);
					uw_show(&d, ex, nex, &paths);
				}
				continue;
			}
			started = true;
			t1 = s->time_ns;
		}
		total++;
		stops[s->stop < STACKID_STOP_NR ? s->stop : STACKID_STOP_NR]++;
		for (j = 0; j < d.nu; j++)
			hows[d.frames[j].how < STACKID_HOW_NR ?
			     d.frames[j].how : STACKID_HOW_NR]++;
		if (ok) {
			if (!match++) {
				printf("#   %s: the first sample that passes "
				       "(%u frames):\n", label, d.nu);
				uw_show(&d, ex, nex, &paths);
			}
			continue;
		}
		firstbad[i < UW_MAX_EXPECT + 1 ? i : UW_MAX_EXPECT + 1]++;
		if (shown++ < 4) {
			printf("#   %s: a sample that does not pass "
			       "(%u frames):\n", label, d.nu);
			uw_show(&d, ex, nex, &paths);
		}
	}
	printf("# unwind %s (%s): %lu samples of %u in %s, %lu before the "
	       "first that passes (%llu ms), %lu judged, %lu pass\n", label,
	       argv[5], leaf, pid, ex[0].name, warm,
	       t1 > t0 ? (t1 - t0) / 1000000 : 0, total, match);
	printf("#   stop reasons:");
	for (i = 0; i <= STACKID_STOP_NR; i++)
		if (stops[i])
			printf(" %s %lu", i < STACKID_STOP_NR ?
			       stackid_stop_name(i) : "?", stops[i]);
	printf("\n#   frames found by:");
	for (i = 0; i <= STACKID_HOW_NR; i++)
		if (hows[i])
			printf(" %s %lu", i < STACKID_HOW_NR ?
			       stackid_how_name(i) : "?", hows[i]);
	printf("\n");
	for (i = 0; i < UW_MAX_EXPECT + 2; i++)
		if (firstbad[i])
			printf("#   %lu %s %u (%s)\n", firstbad[i],
			       mode == REACH ? "did not reach line" :
			       mode == FP ? "not in order: frame" :
			       "first differ at frame", i,
			       i < nex ? ex[i].name : i == nex ?
			       "a frame beyond the last" : "stop reason");
	if (mode == FP) {
		printf("%sok - %s: every one of %lu samples in %s has frames "
		       "of the chain only, in order, and stops at bad_fp or "
		       "end (%lu do; %lu the whole chain)\n",
		       total && match == total ? "" : "not ", label, total,
		       ex[0].name, match, whole);
		return 0;
	}
	printf("%sok - %s: %s in >= %u%% of %lu samples in %s (%lu%%)\n",
	       total && match * 100 >= minpct * total ? "" : "not ", label,
	       mode == EXACT ? "the whole chain, exact, to the stack's end" :
	       "the expected frames reached", minpct, total, ex[0].name,
	       total ? match * 100 / total : 0);
	printf("%sok - %s: warm-up (tables loaded as the recorder learns "
	       "the files) %lu of %lu samples, at most three quarters\n",
	       total && warm * 4 <= leaf * 3 ? "" : "not ", label, warm, leaf);
	return 0;
}

/*
 * early FILE PID EXPECT N: the first N samples of PID, by time, whose
 * frame 0 is EXPECT's first line: how many reach its other lines in
 * order, through valid frames (as unwind's reach).
 */
struct early {
	unsigned long long t;
	bool ok;
};

static int early_cmp(const void *a, const void *b)
{
	const struct early *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

static int cmd_early(int argc, char **argv)
{
	static struct uwpaths paths;
	struct uwexpect ex[UW_MAX_EXPECT];
	struct early *e = NULL, *bad = NULL;
	unsigned long ne = 0, cap = 0, i, n, first, pass = 0, all_pass = 0;
	unsigned long long t0 = 0;
	unsigned int nex, pid;
	const char *label;
	struct dsample d;
	struct iter it;
	size_t len;
	char *buf;

	if (argc != 5)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	n = strtoul(argv[4], NULL, 0);
	label = strrchr(argv[3], '/') ? strrchr(argv[3], '/') + 1 : argv[3];
	nex = uw_expect(argv[3], ex);
	if (nex < 2 || !n)
		return 2;
	uw_paths(buf, len, &paths);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		const struct stackid_sample *s = d.s;

		if (!t0 || s->time_ns < t0)
			t0 = s->time_ns;	/* the recording's first */
		if (s->tgid != pid || !d.nu ||
		    !uw_is(&d.frames[0], 0, &ex[0], &paths))
			continue;
		if (ne == cap) {
			cap = cap ? cap * 2 : 256;
			e = realloc(e, cap * sizeof(*e));
			if (!e)
				return 2;
		}
		e[ne].t = s->time_ns;
		e[ne].ok = uw_reach(&d, ex, nex, &paths) == nex;
		all_pass += e[ne++].ok;
	}
	qsort(e, ne, sizeof(*e), early_cmp);
	first = ne < n ? ne : n;
	for (i = 0; i < first; i++) {
		pass += e[i].ok;
		if (!e[i].ok && !bad)
			bad = &e[i];
	}
	if (bad) {
		/* that sample's walk: found again by its time */
		printf("#   %s: the first that does not reach %s "
		       "(%ld of the first %lu, +%llu ms):\n", label,
		       ex[nex - 1].name, (long)(bad - e) + 1, first,
		       (bad->t - t0) / 1000000);
		iter_init(&it, buf, len);
		for_each_sample(d, it)
			if (d.s->tgid == pid && d.s->time_ns == bad->t && d.nu &&
			    uw_is(&d.frames[0], 0, &ex[0], &paths)) {
				uw_show(&d, ex, nex, &paths);
				break;
			}
	}
	printf("# early %s: %lu samples of %u in %s, %lu reach %s; of the "
	       "first %lu (from +%llu to +%llu ms), %lu\n", label, ne, pid,
	       ex[0].name, all_pass, ex[nex - 1].name, first,
	       first ? (e[0].t - t0) / 1000000 : 0,
	       first ? (e[first - 1].t - t0) / 1000000 : 0, pass);
	printf("%sok - %s: of the first %lu samples in %s, >= 90 %% reach "
	       "%s (%lu)\n", ne >= n && pass * 10 >= n * 9 ? "" : "not ",
	       label, n, ex[0].name, ex[nex - 1].name, pass);
	free(e);
	return 0;
}

/*
 * pathwake PROG...: a file's first path record wakes a sleeping reader
 * within 20 ms (paths.c), not at the watermark or the next period. For
 * each PROG: enabled at 99 Hz (at 999 a ring filled up and woke the
 * reader after 5 s) with a watermark of a whole ring and the longest
 * period (10 s); what runs already is read for 1 s; then PROG
 * is started, and the reader, asleep in poll(), must read PROG's path
 * within PATHWAKE_MS of its start, which ends before the period does;
 * then disabled. (poll() looks once more when its time is up, and the
 * rings always hold a record then: a wait that long is a failure,
 * whatever poll() returns.) Prints each wait and a TAP line.
 */
#define PATHWAKE_MS	8000

/* A path record in @buf (what a read() gave) names a file @base. */
static bool has_path(const char *buf, size_t len, const char *base)
{
	static struct uwpaths p;
	unsigned int k;

	p.n = 0;
	uw_paths(buf, len, &p);
	for (k = 0; k < p.n; k++)
		if (!strcmp(p.base[k], base))
			return true;
	return false;
}

/* PROG's path: how long after its start the reader read it, or -1. */
static long long pathwake_one(int fd, const char *prog, FILE *null,
			      char *buf, size_t bufsz, unsigned int *polls)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	long long t0, end, waited = -1;
	pid_t pid;

	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	for (end = now_ms() + 1000; now_ms() < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = end - now_ms();

		if (poll(&p, 1, left > 0 ? (int)left : 0) > 0)
			drain(fd, null, buf, bufsz);
	}
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		dup2(fileno(null), 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	*polls = 0;
	while (waited < 0 && now_ms() < t0 + PATHWAKE_MS) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = t0 + PATHWAKE_MS - now_ms();
		ssize_t r;

		(*polls)++;
		if (poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
			continue;
		/* what the wakeup found: the path among it? */
		while ((r = read(fd, buf, bufsz)) > 0)
			if (has_path(buf, r, base))
				waited = now_ms() - t0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	drain(fd, null, buf, bufsz);
	return waited;
}

static int cmd_pathwake(int argc, char **argv)
{
	struct stackid_wakeup w = { .period_ms = 10000 };
	struct stackid_ring_info ri;
	unsigned int hz = 99, ok = 0, polls;
	size_t bufsz = 1 << 22;
	char *buf = malloc(bufsz);
	FILE *null = fopen("/dev/null", "w");
	long long waited;
	int fd, i;

	if (argc < 2 || !buf || !null)
		return 2;
	fd = dev_open();
	fcntl(fd, F_SETFL, O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);		/* not the programs' */
	xioctl(fd, STACKID_IOC_GET_RING_INFO, &ri, "GET_RING_INFO");
	w.watermark = ri.data_size;
	xioctl(fd, STACKID_IOC_SET_WAKEUP, &w, "SET_WAKEUP");
	xioctl(fd, STACKID_IOC_SET_FREQ, &hz, "SET_FREQ");
	for (i = 1; i < argc; i++) {
		waited = pathwake_one(fd, argv[i], null, buf, bufsz, &polls);
		printf("# %s: path read %lld ms after its start (%u polls)\n",
		       argv[i], waited, polls);
		ok += waited >= 0 && waited < PATHWAKE_MS;
	}
	printf("%sok - a new file's path wakes the reader: %u of %d programs' "
	       "paths read within %d ms of their start (period 10 s, "
	       "watermark a whole ring)\n",
	       ok == (unsigned int)argc - 1 ? "" : "not ", ok, argc - 1,
	       PATHWAKE_MS);
	return 0;
}

/*
 * hows FILE: how the user frames of every sample were found, and why
 * the walks stopped: "how NAME COUNT" and "stop NAME COUNT" lines.
 */
static int cmd_hows(int argc, char **argv)
{
	unsigned long how[STACKID_HOW_NR + 1] = { 0 };
	unsigned long stop[STACKID_STOP_NR + 1] = { 0 };
	struct dsample d;
	struct iter it;
	unsigned int i;
	size_t len;
	char *buf;

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		stop[d.s->stop < STACKID_STOP_NR ? d.s->stop : STACKID_STOP_NR]++;
		for (i = 0; i < d.nu; i++)
			how[d.frames[i].how < STACKID_HOW_NR ?
			    d.frames[i].how : STACKID_HOW_NR]++;
	}
	for (i = 0; i <= STACKID_HOW_NR; i++)
		printf("how %s %lu\n", i < STACKID_HOW_NR ?
		       stackid_how_name(i) : "other", how[i]);
	for (i = 0; i <= STACKID_STOP_NR; i++)
		printf("stop %s %lu\n", i < STACKID_STOP_NR ?
		       stackid_stop_name(i) : "other", stop[i]);
	return 0;
}

/* fork a child that spins on @cpu for @ms ms; wait for it */
static void spin_child_on(int ms, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		long long end = now_ms() + ms;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		while (now_ms() < end)
			;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void *map_ring(int fd, const struct stackid_ring_info *ri, int ring)
{
	size_t len = (size_t)ri->page_size + ri->data_size;

	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)len * ring);
}

/*
 * The header's recipe as written: open, version, frequency, enable, map
 * a ring, read it by the protocol, disable, statistics. TAP lines.
 */
static int cmd_recipe(void)
{
	int fd = open("/dev/stackid", O_RDWR);
	unsigned int ver = 0, hz = 499;
	struct stackid_ring_info ri;
	struct stackid_ring_ctl *ctl;
	struct stackid_stats stats = { .cpu = STACKID_ALL_CPUS };
	unsigned long long head, tail, n = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *m;

	EXPECT(fd >= 0, "recipe: open(\"/dev/stackid\", O_RDWR)");
	if (fd < 0)
		return 1;
	EXPECT(!ioctl(fd, STACKID_IOC_GET_VERSION, &ver) &&
	       ver >> 16 == STACKID_ABI_MAJOR, "recipe: GET_VERSION %u.%u",
	       ver >> 16, ver & 0xffff);
	EXPECT(!ioctl(fd, STACKID_IOC_SET_FREQ, &hz), "recipe: SET_FREQ 499");
	EXPECT(!ioctl(fd, STACKID_IOC_GET_RING_INFO, &ri), "recipe: GET_RING_INFO");
	m = mmap(NULL, page + ri.data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0 * (page + ri.data_size));
	EXPECT(m != MAP_FAILED, "recipe: mmap ring 0 PROT_READ|PROT_WRITE, "
	       "MAP_SHARED (%s)", m == MAP_FAILED ? strerror(errno) : "ok");
	if (m == MAP_FAILED)
		return 1;
	ctl = (struct stackid_ring_ctl *)m;
	EXPECT(!ioctl(fd, STACKID_IOC_ENABLE), "recipe: ENABLE");
	spin_child_on(400, 0);
	EXPECT(!ioctl(fd, STACKID_IOC_DISABLE), "recipe: DISABLE");
	head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
	tail = ctl->tail;
	while (tail < head) {
		struct stackid_record_hdr h;
		size_t off = tail % ri.data_size;

		memcpy(&h, m + ctl->data_offset + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8)
			break;
		tail += h.size;
		n++;
	}
	__atomic_store_n(&ctl->tail, tail, __ATOMIC_RELEASE);
	EXPECT(n > 0 && tail == head, "recipe: ring 0 read by the protocol: "
	       "%llu records, to its head", n);
	EXPECT(!ioctl(fd, STACKID_IOC_GET_STATS, &stats) &&
	       stats.counters[STACKID_STAT_SAMPLES] > 0,
	       "recipe: GET_STATS: %llu samples",
	       (unsigned long long)stats.counters[STACKID_STAT_SAMPLES]);
	munmap(m, page + ri.data_size);
	close(fd);
	return 0;
}

/*
 * A reader that writes nonsense into its mappings. (1) A tail left 4
 * bytes off a record boundary: a blocking read() must fail with EIO once
 * (skipping that ring's bytes), not spin in the kernel where no signal
 * reaches it, and poll() must not report data forever. (2) Random bytes
 * over every control page and data area, then close: the next reader's
 * control pages are the module's, and it reads good records. (3) A head
 * written as nonsense in the control page: the module's own read() does
 * not trust it. TAP lines.
 */
static int cmd_hostile(void)
{
	struct stackid_ring_info ri;
	int fd = dev_open(), cpu, st, dead = 0, i, bad;
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	unsigned long long x = 0x9e3779b97f4a7c15ULL, head;
	struct stackid_ring_ctl *ctl;
	char buf[STACKID_RECORD_MAX];
	FILE *null = fopen("/dev/null", "w");
	void *m[2];
	pid_t pid;
	long n;

	xioctl(fd, STACKID_IOC_GET_RING_INFO, &ri, "GET_RING_INFO");
	len = (size_t)ri.page_size + ri.data_size;
	m[0] = map_ring(fd, &ri, 0);
	if (m[0] == MAP_FAILED) {
		EXPECT(0, "hostile: map ring 0 (%s)", strerror(errno));
		return 1;
	}
	ctl = m[0];
	{
		/*
		 * Pages of the mapping cannot be taken through GUP (VM_IO):
		 * /proc/self/mem reads with it (process_vm_readv() and
		 * io_uring's buffers pin with it too, where configured).
		 */
		char b[16];
		int mfd = open("/proc/self/mem", O_RDONLY);
		ssize_t r = mfd < 0 ? -1 :
			    pread(mfd, b, sizeof(b), (off_t)(uintptr_t)m[0]);

		EXPECT(mfd >= 0 && r < 0, "hostile: the mapping's pages cannot "
		       "be taken by GUP (/proc/self/mem: %s)",
		       mfd < 0 ? "cannot open" : r < 0 ? strerror(errno) : "read");
		if (mfd >= 0)
			close(mfd);
	}
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	spin_child_on(400, 0);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
	EXPECT(head > ctl->tail, "hostile: ring 0 holds %llu bytes",
	       head - ctl->tail);
	ctl->tail += 4;

	/* (1) */
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 1000; i++) {
			ssize_t r = read(fd, buf, sizeof(buf));

			if (r < 0 && errno == EIO)
				_exit(0);
			if (r <= 0)
				_exit(1);
		}
		_exit(1);
	}
	for (i = 0; i < 1000 && !dead; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			dead = 1;
		else
			usleep(10000);
	}
	EXPECT(dead && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "hostile: blocking read() with a tail off a record boundary: "
	       "EIO within 10 s");
	if (!dead) {
		kill(pid, SIGKILL);
		for (i = 0; i < 500 && !dead; i++) {
			if (waitpid(pid, &st, WNOHANG) == pid)
				dead = 1;
			else
				usleep(10000);
		}
		EXPECT(dead, "hostile: that reader dies of SIGKILL within 5 s");
		if (!dead)
			return 1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	n = drain(fd, null, buf, sizeof(buf));
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		EXPECT(poll(&p, 1, 0) == 0, "hostile: then poll() reports "
		       "nothing to read (%ld more records drained)", n);
	}

	/* (2) */
	m[1] = map_ring(fd, &ri, 1);
	for (cpu = 0; cpu < 2; cpu++) {
		unsigned long long *p = m[cpu];
		size_t k;

		if (m[cpu] == MAP_FAILED)
			continue;
		for (k = 0; k < len / 8; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p[k] = x;
		}
		munmap(m[cpu], len);
	}
	close(fd);
	fd = dev_open();
	bad = 0;
	for (cpu = 0; cpu < 2; cpu++) {
		struct stackid_ring_ctl c;
		char *mm = map_ring(fd, &ri, cpu), *q;

		if (mm == MAP_FAILED) {
			bad++;
			continue;
		}
		memcpy(&c, mm, sizeof(c));
		for (q = mm + sizeof(c); q < mm + page && !*q; q++)
			;
		if (c.head != c.tail || c.data_size != ri.data_size ||
		    c.data_offset != (unsigned int)page ||
		    c.ring != (unsigned int)cpu || c.__pad || q != mm + page) {
			printf("# ring %d: head %llu tail %llu size %u off %u "
			       "ring %u\n", cpu, (unsigned long long)c.head,
			       (unsigned long long)c.tail, c.data_size,
			       c.data_offset, c.ring);
			bad++;
		}
		if (cpu == 0)
			m[0] = mm;
		else
			munmap(mm, len);
	}
	EXPECT(!bad, "hostile: after a reader wrote garbage everywhere, the "
	       "next one's control pages are the module's");
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	spin_child_on(300, 0);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	n = drain(fd, null, buf, sizeof(buf));
	EXPECT(n > 0, "hostile: and reads %ld good records", n);

	/* (3) */
	if (m[0] != MAP_FAILED) {
		ctl = m[0];
		__atomic_store_n(&ctl->head, ctl->head + 4096 + 12,
				 __ATOMIC_RELEASE);
	}
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	spin_child_on(300, 0);
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
	n = drain(fd, null, buf, sizeof(buf));
	EXPECT(n > 0, "hostile: a head written into the control page changes "
	       "nothing for read(): %ld good records", n);
	if (m[0] != MAP_FAILED)
		munmap(m[0], len);
	EXPECT(print_stats(fd) == 0, "hostile: samples == delivered + dropped");
	close(fd);
	return 0;
}

/*
 * The rings through mmap(): the mapping rules, a recording read through
 * the mapped rings (the same protocol stackid record uses), and a tail
 * written as nonsense, which must cost only drops. TAP lines.
 */
static int cmd_mmapcheck(void)
{
	struct stackid_ring_info ri;
	struct stackid_wakeup w = { 0 };
	int fd = dev_open(), r, cpu, bad = 0;
	long pg = sysconf(_SC_PAGESIZE);
	size_t len;
	void *m;

	xioctl(fd, STACKID_IOC_GET_RING_INFO, &ri, "GET_RING_INFO");
	len = ri.page_size + ri.data_size;
	EXPECT(ri.page_size == (unsigned int)pg && ri.data_size >= 8192 &&
	       ri.nr_rings >= 2, "GET_RING_INFO: %u rings of %u bytes, page %u",
	       ri.nr_rings, ri.data_size, ri.page_size);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT(m == MAP_FAILED && errno == EINVAL, "MAP_PRIVATE: EINVAL");
	m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	EXPECT(m == MAP_FAILED, "PROT_EXEC refused (%s)", strerror(errno));
	m = mmap(NULL, len - pg, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(m == MAP_FAILED && errno == EINVAL, "a short mapping: EINVAL");
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)len * 100000);
	EXPECT(m == MAP_FAILED && errno == ENXIO,
	       "the ring of a CPU that cannot exist: ENXIO");
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, pg);
	EXPECT(m == MAP_FAILED && errno == ENXIO, "a misaligned offset: ENXIO");

	/* SET_WAKEUP */
	w.watermark = ri.data_size + 1;
	r = ioctl(fd, STACKID_IOC_SET_WAKEUP, &w);
	EXPECT(r < 0 && errno == EINVAL, "SET_WAKEUP watermark above the ring: "
	       "EINVAL");
	w.watermark = 0;
	w.period_ms = 10001;
	r = ioctl(fd, STACKID_IOC_SET_WAKEUP, &w);
	EXPECT(r < 0 && errno == EINVAL, "SET_WAKEUP period above 10 s: EINVAL");
	w.period_ms = 0;
	xioctl(fd, STACKID_IOC_SET_WAKEUP, &w, "SET_WAKEUP");
	xioctl(fd, STACKID_IOC_GET_WAKEUP, &w, "GET_WAKEUP");
	EXPECT(w.watermark == ri.data_size / 4 && w.period_ms == 100,
	       "defaults: a quarter of a ring, 100 ms (%u, %u)", w.watermark,
	       w.period_ms);

	/* a tail written as nonsense: drops, no harm, then it reads again */
	for (cpu = 0; cpu < (int)ri.nr_rings && cpu < 2; cpu++) {
		struct stackid_ring_ctl *ctl;
		unsigned long long head, good;
		char buf[64];

		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)len * cpu);
		if (m == MAP_FAILED) {
			bad++;
			continue;
		}
		ctl = m;
		head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
		good = ctl->tail;
		__atomic_store_n(&ctl->tail, head + 12345, __ATOMIC_RELEASE);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
		spin_child(200);
		xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
		/* ring cpu reads as empty: only other rings' records */
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		__atomic_store_n(&ctl->tail, good, __ATOMIC_RELEASE);
		munmap(m, len);
	}
	EXPECT(!bad, "rings 0 and 1 mapped read-write");
	r = print_stats(fd);
	EXPECT(r == 0, "after nonsense tails: samples == delivered + dropped");
	/* wakeups that would starve the next reader: its own are the defaults */
	w.watermark = ri.data_size;
	w.period_ms = 10000;
	xioctl(fd, STACKID_IOC_SET_WAKEUP, &w, "SET_WAKEUP");
	xioctl(fd, STACKID_IOC_GET_WAKEUP, &w, "GET_WAKEUP");
	EXPECT(w.watermark == ri.data_size && w.period_ms == 10000,
	       "SET_WAKEUP a whole ring, 10 s: in force (%u, %u)", w.watermark,
	       w.period_ms);
	close(fd);
	fd = dev_open();
	memset(&w, 0xff, sizeof(w));
	xioctl(fd, STACKID_IOC_GET_WAKEUP, &w, "GET_WAKEUP");
	EXPECT(w.watermark == ri.data_size / 4 && w.period_ms == 100,
	       "the next reader's wakeups: the defaults (%u, %u)", w.watermark,
	       w.period_ms);
	close(fd);
	return 0;
}

/* capend FILE: see the usage above. */
static int cmd_capend(int argc, char **argv)
{
	const struct stackid_record_hdr *h = NULL;
	size_t len, off = 32;
	unsigned long n = 0;
	char *buf;

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	if (len < 32 || memcmp(buf, "STACKIDC", 8)) {
		printf("records 0 end no (not a capture)\n");
		return 1;
	}
	while (off + sizeof(*h) <= len) {
		h = (const void *)(buf + off);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - off) {
			printf("records %lu end no (bad record at byte %zu)\n",
			       n, off);
			return 1;
		}
		off += h->size;
		n++;
	}
	/* CAPTURE_REC_END of src/tool/capture.h */
	if (off != len || !h || h->type != 0x8002) {
		printf("records %lu end no\n", n);
		return 1;
	}
	printf("records %lu end yes\n", n);
	return 0;
}

/* share FILE COMM FROM TO: COMM's samples of those in [FROM, TO). */
static int cmd_share(int argc, char **argv)
{
	unsigned long long from, to;
	unsigned long n = 0, m = 0;
	struct dsample d;
	struct iter it;
	size_t len;
	char *buf;

	if (argc != 5)
		return 2;
	buf = load(argv[1], &len);
	from = strtoull(argv[3], NULL, 0);
	to = strtoull(argv[4], NULL, 0);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		if (d.s->time_ns < from || d.s->time_ns >= to)
			continue;
		m++;
		n += !strncmp(d.s->comm, argv[2], sizeof(d.s->comm));
	}
	printf("%lu %lu\n", n, m);
	return 0;
}

/* peek PID: see the comment at the top. */
static int cmd_peek(int argc, char **argv)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	char path[300], link[256];
	struct dirent *de;
	int pidfd, fd = -1;
	ssize_t n;
	DIR *d;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "/proc/%s/fd", argv[1]);
	d = opendir(path);
	pidfd = syscall(SYS_pidfd_open, atoi(argv[1]), 0);
	if (!d || pidfd < 0) {
		fprintf(stderr, "sidcheck: peek %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (fd < 0 && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", argv[1], de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!strcmp(link, STACKID_DEVICE))
			fd = syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
	}
	closedir(d);
	if (fd < 0) {
		fprintf(stderr, "sidcheck: peek %s: no %s open\n", argv[1], STACKID_DEVICE);
		return 1;
	}
	xioctl(fd, STACKID_IOC_GET_STATS, &st, "GET_STATS");
	printf("samples %llu no_mm %llu\n",
	       (unsigned long long)st.counters[STACKID_STAT_SAMPLES],
	       (unsigned long long)st.counters[STACKID_STAT_DROP_NO_MM]);
	return 0;
}

/* kinds FILE: how many of FILE's samples are packed. */
static int cmd_kinds(int argc, char **argv)
{
	unsigned long n = 0, moved = 0;
	struct dsample d;
	struct iter it;
	size_t len;
	char *buf;

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	iter_init(&it, buf, len);
	for_each_sample(d, it) {
		n++;
		moved += d.s->cpu != d.s->ring;
	}
	printf("samples %lu packed %lu delta %lu moved %lu\n", n, it.packed,
	       it.delta, moved);
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "chain"))
		return cmd_chain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "buildid"))
		return cmd_buildid(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rate"))
		return cmd_rate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "spinclock"))
		return cmd_spinclock(argc - 1, argv + 1);
	if (!strcmp(argv[1], "walkstop"))
		return cmd_walkstop(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "errors"))
		return cmd_errors();
	if (!strcmp(argv[1], "flipbid"))
		return cmd_flipbid(argc - 1, argv + 1);
	if (!strcmp(argv[1], "paths"))
		return cmd_paths(argc - 1, argv + 1);
	if (!strcmp(argv[1], "frames"))
		return cmd_frames(argc - 1, argv + 1);
	if (!strcmp(argv[1], "read0"))
		return cmd_read0();
	if (!strcmp(argv[1], "kcount"))
		return cmd_kcount(argc - 1, argv + 1);
	if (!strcmp(argv[1], "cgroups"))
		return cmd_cgroups(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mmapcheck"))
		return cmd_mmapcheck();
	if (!strcmp(argv[1], "recipe"))
		return cmd_recipe();
	if (!strcmp(argv[1], "hostile"))
		return cmd_hostile();
	if (!strcmp(argv[1], "now")) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%llu\n", ts.tv_sec * 1000000000ULL + ts.tv_nsec);
		return 0;
	}
	if (!strcmp(argv[1], "freq"))
		return cmd_freq();
	if (!strcmp(argv[1], "setfreq"))
		return cmd_setfreq(argc - 1, argv + 1);
	if (!strcmp(argv[1], "resetbusy"))
		return cmd_resetbusy();
	if (!strcmp(argv[1], "mtime"))
		return cmd_mtime(argc - 1, argv + 1);
	if (!strcmp(argv[1], "perfcmp"))
		return cmd_perfcmp(argc - 1, argv + 1);
	if (!strcmp(argv[1], "inowatch"))
		return cmd_inowatch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "capend"))
		return cmd_capend(argc - 1, argv + 1);
	if (!strcmp(argv[1], "kinds"))
		return cmd_kinds(argc - 1, argv + 1);
	if (!strcmp(argv[1], "peek"))
		return cmd_peek(argc - 1, argv + 1);
	if (!strcmp(argv[1], "share"))
		return cmd_share(argc - 1, argv + 1);
	if (!strcmp(argv[1], "depth"))
		return cmd_depth(argc - 1, argv + 1);
	if (!strcmp(argv[1], "tids"))
		return cmd_tids(argc - 1, argv + 1);
	if (!strcmp(argv[1], "unwind"))
		return cmd_unwind(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hows"))
		return cmd_hows(argc - 1, argv + 1);
	if (!strcmp(argv[1], "early"))
		return cmd_early(argc - 1, argv + 1);
	if (!strcmp(argv[1], "pathwake"))
		return cmd_pathwake(argc - 1, argv + 1);
	fd = dev_open();
	if (!strcmp(argv[1], "stats"))
		return print_stats(fd);
	if (!strcmp(argv[1], "cost"))
		return cmd_cost(fd);
	if (!strcmp(argv[1], "reset")) {
		xioctl(fd, STACKID_IOC_RESET_STATS, NULL, "RESET_STATS");
		return 0;
	}
	if (!strcmp(argv[1], "enable-idle") && argc == 3) {
		xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
		usleep(atoi(argv[2]) * 1000);
		xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
		return print_stats(fd);
	}
	/* enable-result HZ: ENABLE at HZ, print OK or the errno's name */
	if (!strcmp(argv[1], "enable-result") && argc == 3) {
		unsigned int hz = atoi(argv[2]);
		int r;

		xioctl(fd, STACKID_IOC_SET_FREQ, &hz, "SET_FREQ");
		r = ioctl(fd, STACKID_IOC_ENABLE, NULL);
		printf("%s\n", r ? strerrorname_np(errno) : "OK");
		xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
		return 0;
	}
	if (!strcmp(argv[1], "hold") && argc == 3) {
		/* the device is open: say so, as spawn() waits for */
		printf("%d\n", getpid());
		fflush(stdout);
		usleep(atoi(argv[2]) * 1000);
		return 0;
	}
	return 2;
}
