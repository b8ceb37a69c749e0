/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `stackid record`: from /dev/stackid to a capture file.
 *
 * The device is reached through struct sysops, so that the host tests can
 * put a fake device behind it; real_sysops are the system calls.
 */
#ifndef STACKID_TOOL_RECORDER_H
#define STACKID_TOOL_RECORDER_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct record_opts {
	const char *device;	/* NULL: STACKID_DEVICE */
	const char *out;	/* capture file; "-": standard output */
	uint32_t hz;		/* 0: leave the module's frequency */
	uint32_t tgid;		/* 0: every process */
	const char *cgroup;	/* a cgroup v2 directory: only tasks at or
				 * below it; NULL: every cgroup */
	uint64_t duration_ns;	/* 0: until SIGINT or SIGTERM */
	int status;		/* status line: 1 on, 0 off, -1 if a tty */
	bool no_unwind;		/* load no unwind tables into the module */
	bool preload_unwind;	/* before sampling, load those of the system
				 * libraries this process maps (libc, ...) */
	uint64_t unwind_wait_ns;	/* a file waiting longer goes first;
					 * 0: REC_UNWIND_WAIT_NS (tests) */
	/* continuous mode (dir set): one capture per rotate_ns in dir */
	const char *dir;
	uint64_t rotate_ns;
	unsigned int keep;	/* most closed files in dir; 0: any */
	uint64_t max_size;	/* most bytes of captures in dir; 0: any */
};

struct sysops {
	int (*open)(const char *path, int flags);
	int (*ioctl)(int fd, unsigned long req, void *arg);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*ppoll)(struct pollfd *fds, nfds_t n, const struct timespec *t,
		     const sigset_t *mask);
	int (*close)(int fd);
	/* NULL (the fake device): read() only */
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off);
	int (*munmap)(void *addr, size_t len);
};

extern const struct sysops real_sysops;

/*
 * Record as @o says, messages and statistics to @err. Returns an exit
 * status: EXIT_OK (also when stopped by a signal), EXIT_SYSTEM.
 */
int record_run(const struct record_opts *o, const struct sysops *ops,
	       FILE *err);

#endif /* STACKID_TOOL_RECORDER_H */
