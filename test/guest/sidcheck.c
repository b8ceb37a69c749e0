// SPDX-License-Identifier: GPL-2.0
/*
 * sidcheck: the guest-side test driver for /dev/stackid. It talks to the
 * device through include/stackid.h only, and checks what comes back.
 *
 *   sidcheck record [-F HZ] [-p PID] [-d MS] [-b BUFSZ] -o FILE
 *       enable, read for MS milliseconds, disable, drain, write the
 *       records to FILE; prints "stat NAME VALUE" lines
 *   sidcheck stats              print counters; exit 1 unless
 *                               samples == delivered + dropped
 *   sidcheck reset              zero the counters
 *   sidcheck enable-idle MS     enable for MS ms without reading
 *   sidcheck chain FILE PID COMM EXPECT MINPCT
 *       every sample of PID: its innermost frames must match EXPECT
 *       (lines "NAME BUILDID START END", innermost first, file offsets);
 *       passes if at least MINPCT % of the samples match
 *   sidcheck buildid FILE PID HEX MINPCT
 *       frame 0 of PID's samples: valid frames must carry exactly build-id
 *       HEX; at least MINPCT % must be valid
 *   sidcheck rate FILE PID      print PID's samples per second
 *   sidcheck walkstop FILE PID  PID's samples: delivered, depth <= 2
 *   sidcheck errors             bad input: TAP lines
 *   sidcheck hold MS            keep the device open for MS ms
 *   sidcheck dump FILE          text dump of records
 *   sidcheck paths FILE         build-id -> path records of a capture
 *   sidcheck flipbid FILE HEX   rewrite FILE's build-id HEX in place
 *   sidcheck cost               handler cost per sample (bench)
 *   sidcheck frames FILE PID    frames per sample, % valid (bench; 0: all)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include <stackid.h>
#include "record.h"

static int dev_open(void)
{
	int fd = open(STACKID_DEVICE, O_RDONLY);

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
	unsigned long long drops = 0;
	unsigned int i;

	/* deferred samples arrive when their task returns to user space */
	for (i = 0; i < 100; i++) {
		xioctl(fd, STACKID_IOC_GET_STATS, &st, "GET_STATS");
		if (st.counters[STACKID_STAT_DEFERRED] ==
		    st.counters[STACKID_STAT_DEFERRED_DONE])
			break;
		usleep(10000);
	}
	for (i = 0; i < st.nr && i < STACKID_STAT_NR; i++) {
		printf("stat %s %llu\n", stackid_stat_name(i),
		       (unsigned long long)st.counters[i]);
		if (i >= STACKID_STAT_DROP_RING_FULL &&
		    i <= STACKID_STAT_DROP_NO_REGS)
			drops += st.counters[i];
	}
	printf("stat identity %s\n",
	       st.counters[STACKID_STAT_SAMPLES] ==
	       st.counters[STACKID_STAT_DELIVERED] + drops ? "ok" : "BROKEN");
	return st.counters[STACKID_STAT_SAMPLES] ==
	       st.counters[STACKID_STAT_DELIVERED] + drops ? 0 : 1;
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

static int cmd_record(int argc, char **argv)
{
	unsigned int hz = 0, ms = 1000;
	struct stackid_filter flt = { 0 };
	size_t bufsz = 1 << 20;
	const char *outpath = NULL;
	long long end;
	long n = 0;
	int ret;
	FILE *out;
	char *buf;
	int fd, c;

	while ((c = getopt(argc, argv, "F:p:d:o:b:")) != -1) {
		switch (c) {
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
	if (hz)
		xioctl(fd, STACKID_IOC_SET_FREQ, &hz, "SET_FREQ");
	xioctl(fd, STACKID_IOC_SET_FILTER, &flt, "SET_FILTER");
	xioctl(fd, STACKID_IOC_ENABLE, NULL, "ENABLE");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	end = now_ms() + ms;
	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = end - now_ms();

		if (poll(&p, 1, left > 0 ? (int)left : 0) > 0)
			n += drain(fd, out, buf, bufsz);
	}
	xioctl(fd, STACKID_IOC_DISABLE, NULL, "DISABLE");
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

#define for_each_sample(s, buf, len, off)				\
	for (off = 0; off < len &&					\
	     stackid_record_check(buf + off, len - off) > 0 &&		\
	     ((s) = (struct stackid_sample *)(buf + off));		\
	     off += (s)->hdr.size)					\
		if ((s)->hdr.type == STACKID_REC_SAMPLE)

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
	unsigned long others = 0, user = 0;
	unsigned long firstbad[16] = { 0 };
	struct stackid_sample *s;
	size_t len, off;
	const char *comm;
	char *buf, line[256];
	FILE *f;

	if (argc != 6)
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
	for_each_sample(s, buf, len, off) {
		if (s->tgid != pid) {
			others++;
			continue;
		}
		total++;
		if (s->flags & STACKID_SF_USER)
			user++;
		if (s->tid != pid)
			badtid++;
		if (strncmp(s->comm, comm, sizeof(s->comm)))
			badcomm++;
		for (i = 0; i < nex; i++) {
			struct stackid_frame *fr = &s->frames[i];
			unsigned long long a;
			char h[41];

			if (i >= s->nr_frames ||
			    fr->status != STACKID_FRAME_VALID)
				break;
			hex(fr->build_id, fr->build_id_len, h);
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
	printf("%sok - tgid filter: no sample of another process (%lu)\n",
	       others ? "not " : "", others);
	/* a spinner is mostly interrupted in user mode */
	printf("%sok - user-mode flag on most samples (%lu of %lu)\n",
	       user * 2 > total ? "" : "not ", user, total);
	return 0;
}

static int cmd_buildid(int argc, char **argv)
{
	unsigned long total = 0, valid = 0, wrong = 0, ip = 0;
	struct stackid_sample *s;
	unsigned int pid, minpct;
	size_t len, off;
	char *buf, h[41];

	if (argc != 5)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	minpct = strtoul(argv[4], NULL, 0);
	for_each_sample(s, buf, len, off) {
		struct stackid_frame *fr = &s->frames[0];

		if (s->tgid != pid || !s->nr_frames)
			continue;
		total++;
		if (fr->status == STACKID_FRAME_IP) {
			ip++;
			continue;
		}
		hex(fr->build_id, fr->build_id_len, h);
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

static int cmd_rate(int argc, char **argv)
{
	unsigned long long first = 0, last = 0;
	struct stackid_sample *s;
	unsigned long n = 0;
	size_t len, off;
	unsigned int pid;
	char *buf;

	if (argc != 3)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	for_each_sample(s, buf, len, off) {
		if (s->tgid != pid)
			continue;
		if (!n)
			first = s->time_ns;
		last = s->time_ns;
		n++;
	}
	printf("%lu %.1f\n", n,
	       n > 1 ? (n - 1) * 1e9 / (double)(last - first) : 0.0);
	return 0;
}

static int cmd_walkstop(int argc, char **argv)
{
	unsigned long n = 0, deep = 0;
	struct stackid_sample *s;
	size_t len, off;
	unsigned int pid;
	char *buf;

	if (argc != 3)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	for_each_sample(s, buf, len, off) {
		if (s->tgid != pid)
			continue;
		n++;
		if (s->nr_frames > 2)
			deep++;
	}
	printf("%sok - garbage stack: %lu samples delivered, %lu walked deeper than 2\n",
	       n && !deep ? "" : "not ", n, deep);
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	struct stackid_sample *s;
	size_t len, off;
	unsigned int i;
	char *buf, h[41];

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	for_each_sample(s, buf, len, off) {
		printf("%llu cpu%u %u/%u %.16s flags %#x frames %u\n",
		       (unsigned long long)s->time_ns, s->cpu, s->tgid,
		       s->tid, s->comm, s->flags, s->nr_frames);
		for (i = 0; i < s->nr_frames; i++) {
			struct stackid_frame *fr = &s->frames[i];

			if (fr->status == STACKID_FRAME_VALID) {
				hex(fr->build_id, fr->build_id_len, h);
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

static int cmd_errors(void)
{
	struct stackid_filter flt = { .tgid = 1, .__pad = 1 };
	struct stackid_stats st = { .cpu = 100000 };
	unsigned int hz = 0, max = 0, v;
	char small[16], *big;
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
	EXPECT(r < 0 && errno == EINVAL, "read with a 16-byte buffer: EINVAL (%s)",
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
	close(fd);
	/* and the module still works */
	fd = dev_open();
	r = ioctl(fd, STACKID_IOC_GET_VERSION, &v);
	EXPECT(r == 0 && v == STACKID_ABI_VERSION,
	       "still working: ABI version %#x", v);
	close(fd);
	return 0;
}

/* Build-id -> path records of a capture file (after its 32-byte header). */
static int cmd_paths(int argc, char **argv)
{
	struct stackid_build_id_path *p;
	size_t len, off;
	char *buf, h[41];
	long sz;

	if (argc != 2)
		return 2;
	buf = load(argv[1], &len);
	off = len >= 8 && !memcmp(buf, "STACKIDC", 8) ? 32 : 0;
	for (; off < len; off += sz) {
		sz = stackid_record_check(buf + off, len - off);
		if (sz <= 0)
			return 3;
		p = (struct stackid_build_id_path *)(buf + off);
		if (p->hdr.type != STACKID_REC_BUILD_ID_PATH)
			continue;
		hex(p->build_id, p->build_id_len, h);
		printf("%s %s\n", h, p->path);
	}
	return 0;
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
	unsigned long long acc = 0, med = 0, p99 = 0;
	unsigned int b;

	xioctl(fd, STACKID_IOC_GET_COST, &c, "GET_COST");
	for (b = 0; b < c.nr && b < STACKID_COST_BUCKETS; b++) {
		acc += c.buckets[b];
		if (!med && acc * 2 >= c.count)
			med = stackid_cost_bucket_low(b);
		if (!p99 && acc * 100 >= c.count * 99)
			p99 = stackid_cost_bucket_low(b);
	}
	printf("cost samples %llu mean_ns %llu median_ns %llu p99_ns %llu\n",
	       (unsigned long long)c.count,
	       c.count ? (unsigned long long)(c.sum_ns / c.count) : 0,
	       med, p99);
	return 0;
}

/* Frames per sample of PID, and the share of valid ones. */
static int cmd_frames(int argc, char **argv)
{
	unsigned long n = 0, frames = 0, valid = 0;
	struct stackid_sample *s;
	size_t len, off;
	unsigned int pid, i;
	char *buf;

	if (argc != 3)
		return 2;
	buf = load(argv[1], &len);
	pid = strtoul(argv[2], NULL, 0);
	for_each_sample(s, buf, len, off) {
		if (pid && s->tgid != pid)
			continue;
		n++;
		frames += s->nr_frames;
		for (i = 0; i < s->nr_frames; i++)
			valid += s->frames[i].status == STACKID_FRAME_VALID;
	}
	printf("frames samples %lu per_sample %.1f valid_pct %.1f\n", n,
	       n ? (double)frames / n : 0.0,
	       frames ? valid * 100.0 / frames : 0.0);
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
	if (!strcmp(argv[1], "hold") && argc == 3) {
		usleep(atoi(argv[2]) * 1000);
		return 0;
	}
	return 2;
}
