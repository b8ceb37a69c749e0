// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in one known system call, for the
 * kernel-frame tests: main -> loop_getppid -> getppid(), or
 * main -> loop_read -> read() of FILE (from the start again at its end);
 * or, for the test of samples that join a waiting one, once a writer
 * opened the FIFO GOFILE (till then asleep, never sampled), N reads
 * from /dev/zero of about MS milliseconds each (a long stretch in the
 * kernel; the length measured on this machine; N at most
 * ZERO_READS_MAX), then prints on standard error when each was made
 * ("read I START END", CLOCK_MONOTONIC ns) and sleeps. Prints its pid
 * once running ("zero": once its reads are measured and its buffer
 * faulted in, just before it waits for the FIFO).
 *
 * held N CPU FILE...: for the test of tasks that sleep in the kernel
 * after they were sampled. Runs each FILE (a copy of this program, one
 * each) as a child ("poll1 N CPU") that moves to CPU, then calls poll()
 * on N entries, all the read end of a pipe nothing is written to: the
 * child sleeps in the kernel after the work of polling N entries there,
 * until it is killed (PR_SET_PDEATHSIG: when this process ends). Started
 * on another CPU, a child's file is new to CPU's build-id cache when its
 * poll() is sampled there, even if its start was sampled. Prints its pid
 * once every child sleeps so, then sleeps.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

__attribute__((noinline)) static void loop_getppid(void)
{
	for (;;)
		syscall(SYS_getppid);
}

__attribute__((noinline)) static void loop_read(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	for (;;)
		if (read(fd, buf, sizeof(buf)) <= 0)
			lseek(fd, 0, SEEK_SET);
}

/*
 * Read @len bytes of /dev/zero (@fd) into @big; the time it took, in ns,
 * and its start and end (CLOCK_MONOTONIC, ns: the clock of a sample's
 * time) in @span if not NULL.
 */
static double zero_read(int fd, char *big, size_t len,
			unsigned long long *span)
{
	struct timespec a, b;
	size_t off;
	ssize_t r;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (off = 0; off < len; off += r) {
		r = read(fd, big + off, len - off);
		if (r <= 0) {
			perror("sysloop: /dev/zero");
			exit(1);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (span) {
		span[0] = a.tv_sec * 1000000000ULL + a.tv_nsec;
		span[1] = b.tv_sec * 1000000000ULL + b.tv_nsec;
	}
	return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
}

#define ZERO_CAL	(16UL << 20)
#define ZERO_MAX	(256UL << 20)
#define ZERO_READS_MAX	64

__attribute__((noinline)) static void zero_reads(unsigned int ms, int n,
					       const char *go)
{
	static unsigned long long span[ZERO_READS_MAX][2];
	int fd = open("/dev/zero", O_RDONLY), i;
	size_t len = ZERO_CAL;
	char *big = malloc(ZERO_MAX);
	double t, best = 0;

	if (!big || fd < 0) {
		perror("sysloop");
		exit(1);
	}
	/*
	 * Reads of about @ms each, on this kernel and machine: a 16 MiB
	 * read is timed (the fastest of three) and the length scaled. All
	 * of it, the buffer faulted in too, before the pid is printed (so
	 * before a recording can start): the reads are clear_user() alone,
	 * all alike, and no sample of a page fault puts this file in a
	 * CPU's cache before the reads are sampled.
	 */
	memset(big, 1, len);
	for (i = 0; i < 3; i++) {
		t = zero_read(fd, big, len, NULL);
		if (!i || t < best)
			best = t;
	}
	len = best > 0 ? (size_t)(ZERO_CAL * (ms * 1e6 / best)) : ZERO_MAX;
	len = len < (1UL << 20) ? 1UL << 20 : len > ZERO_MAX ? ZERO_MAX : len;
	memset(big, 1, len);
	fprintf(stderr, "# sysloop zero: %d reads of %zu KiB (16 MiB took %.1f ms)\n",
		n, len >> 10, best / 1e6);
	printf("%d\n", getpid());
	fflush(stdout);
	if (open(go, O_RDONLY) < 0) {
		perror(go);
		exit(1);
	}
	for (i = 0; i < n && i < ZERO_READS_MAX; i++)
		zero_read(fd, big, len, span[i]);
	/* when each read was in the kernel, for the test to match samples */
	for (i = 0; i < n && i < ZERO_READS_MAX; i++)
		fprintf(stderr, "read %d %llu %llu\n", i, span[i][0],
			span[i][1]);
	for (;;)
		pause();
}

/*
 * The held child: one poll() of @n entries, every one the read end of a
 * pipe that nothing is ever written to (its write end open here): the
 * kernel copies the array and polls each entry, then the task sleeps in
 * the kernel, inside that poll(), until it is killed. (Not userfaultfd:
 * the debug kernel has none.)
 */
#define HELD_MAX	(1 << 20)
__attribute__((noinline)) static void poll_once(unsigned long n, int cpu)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	struct pollfd *fds = calloc(n, sizeof(*fds));
	cpu_set_t set;
	unsigned long i;
	int p[2];

	if (!fds || n < 1 || n > HELD_MAX || pipe(p) ||
	    setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("sysloop: poll1");
		exit(1);
	}
	for (i = 0; i < n; i++)
		fds[i] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sysloop: poll1: CPU");
		exit(1);
	}
	poll(fds, n, -1);
	exit(1);
}

/* Whether @pid sleeps in poll() (/proc/PID/syscall: "7 ..."). */
static int in_poll(pid_t pid)
{
	char path[64], line[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return !strncmp(line, "7 ", 2);
}

/* Run @file; returns once it sleeps in its poll() on @cpu. */
static int hold(const char *file, const char *n, const char *cpu)
{
	pid_t pid;
	int i;

	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(file, file, "poll1", n, cpu, (char *)NULL);
		_exit(1);
	}
	for (i = 0; pid > 0 && i < 6000; i++) {
		if (in_poll(pid))
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	int i;

	if (argc == 4 && !strcmp(argv[1], "poll1"))
		poll_once(strtoul(argv[2], NULL, 0), atoi(argv[3]));
	if (argc >= 5 && !strcmp(argv[1], "held")) {
		for (i = 4; i < argc; i++)
			if (hold(argv[i], argv[2], argv[3])) {
				fprintf(stderr, "sysloop: %s not held\n",
					argv[i]);
				return 1;
			}
		printf("%d\n", getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc < 2 || (strcmp(argv[1], "getppid") &&
			 (strcmp(argv[1], "read") || argc != 3) &&
			 (strcmp(argv[1], "zero") || argc != 5))) {
		fprintf(stderr, "usage: sysloop getppid | read FILE | "
			"zero MS N GOFILE | held N CPU FILE...\n");
		return 2;
	}
	if (!strcmp(argv[1], "zero"))
		zero_reads(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv[4]);
	printf("%d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "getppid"))
		loop_getppid();
	loop_read(argv[2]);
	return 0;
}
