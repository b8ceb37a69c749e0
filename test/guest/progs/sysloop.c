// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in one known system call, for the
 * kernel-frame tests: main -> loop_getppid -> getppid(), or
 * main -> loop_read -> read() of FILE (from the start again at its end);
 * or, for the test of samples that join a waiting one, once a writer
 * opened the FIFO GOFILE (till then asleep, never sampled), N reads of
 * MIB MiB from /dev/zero (each a long stretch in the kernel), then
 * sleeps. Prints its pid once running.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

__attribute__((noinline)) static void zero_reads(size_t mib, int n,
					       const char *go)
{
	size_t len = mib << 20, off;
	char *big = malloc(len);
	int fd = open("/dev/zero", O_RDONLY), i;
	ssize_t r;

	if (!big || fd < 0) {
		perror("sysloop");
		exit(1);
	}
	/* faulted in now: the reads are clear_user() alone, all alike */
	memset(big, 1, len);
	if (open(go, O_RDONLY) < 0) {
		perror(go);
		exit(1);
	}
	for (i = 0; i < n; i++)
		for (off = 0; off < len; off += r) {
			r = read(fd, big + off, len - off);
			if (r <= 0)
				exit(1);
		}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "getppid") &&
			 (strcmp(argv[1], "read") || argc != 3) &&
			 (strcmp(argv[1], "zero") || argc != 5))) {
		fprintf(stderr, "usage: sysloop getppid | read FILE | "
			"zero MIB N GOFILE\n");
		return 2;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "getppid"))
		loop_getppid();
	if (!strcmp(argv[1], "zero"))
		zero_reads(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv[4]);
	loop_read(argv[2]);
	return 0;
}
