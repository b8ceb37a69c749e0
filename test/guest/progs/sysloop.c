// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in one known system call, for the
 * kernel-frame tests: main -> loop_getppid -> getppid(), or
 * main -> loop_read -> read() of FILE (from the start again at its end).
 * Prints its pid once running.
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

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "getppid") &&
			 (strcmp(argv[1], "read") || argc != 3))) {
		fprintf(stderr, "usage: sysloop getppid | read FILE\n");
		return 2;
	}
	printf("%d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "getppid"))
		loop_getppid();
	loop_read(argv[2]);
	return 0;
}
