// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's workloads (make bench): a fixed amount of work, then
 * "elapsed_ns N" on stdout, so that a profiler's cost is the slowdown.
 *
 *   bench_work chain N      N units through an 11-function stack across
 *                           this executable and libbench.so
 *   bench_work churn N      the same, while a second thread maps and
 *                           unmaps memory all the time (the mmap lock is
 *                           often held for writing when a sample comes)
 *   bench_work forkexec N   fork and exec /bin/true N times
 *   bench_work syscall N    N units of 1000 getppid() and 16 KiB read()s
 *                           of /dev/zero: most samples in kernel mode,
 *                           what kernel frames cost
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

void blib_f1(unsigned long n);
volatile unsigned long app_sink;
static volatile int stop;

#define UNIT	100000UL

__attribute__((noinline)) void app_w5(unsigned long n) { blib_f1(n); app_sink++; }
__attribute__((noinline)) void app_w4(unsigned long n) { app_w5(n); app_sink++; }
__attribute__((noinline)) void app_w3(unsigned long n) { app_w4(n); app_sink++; }
__attribute__((noinline)) void app_w2(unsigned long n) { app_w3(n); app_sink++; }
__attribute__((noinline)) void app_w1(unsigned long n) { app_w2(n); app_sink++; }

static void *churn(void *arg)
{
	(void)arg;
	while (!stop) {
		void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 1 << 16);
	}
	return NULL;
}

static char zbuf[16384];

__attribute__((noinline)) static void app_syscalls(int fd)
{
	int i;

	for (i = 0; i < 1000; i++) {
		syscall(SYS_getppid);
		if (read(fd, zbuf, sizeof(zbuf)) != sizeof(zbuf))
			exit(1);
	}
}

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long n, i;
	unsigned long long t0;
	pthread_t t;

	if (argc != 3)
		return 2;
	n = strtoul(argv[2], NULL, 0);
	t0 = now();
	if (!strcmp(argv[1], "chain")) {
		for (i = 0; i < n; i++)
			app_w1(UNIT);
	} else if (!strcmp(argv[1], "churn")) {
		pthread_create(&t, NULL, churn, NULL);
		for (i = 0; i < n; i++)
			app_w1(UNIT);
		stop = 1;
		pthread_join(t, NULL);
	} else if (!strcmp(argv[1], "forkexec")) {
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			waitpid(p, NULL, 0);
		}
	} else if (!strcmp(argv[1], "syscall")) {
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0)
			return 1;
		for (i = 0; i < n; i++)
			app_syscalls(fd);
		close(fd);
	} else {
		return 2;
	}
	printf("elapsed_ns %llu\n", now() - t0);
	return 0;
}
