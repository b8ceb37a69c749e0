// SPDX-License-Identifier: GPL-2.0
/*
 * Keeps a vhost worker busy: opens /dev/vhost-net, becomes its owner (on
 * 6.4+ that creates the worker, a PF_USER_WORKER thread of this process
 * that never returns to user space), and kicks its TX queue through an
 * eventfd in a loop, so the worker runs again and again. A second thread
 * maps and unmaps memory all the time, so that the process's mmap lock
 * is often held for writing (a sampler's trylock then fails). Prints its
 * pid, then runs until killed; exits 1 if vhost cannot be set up.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vhost.h>

static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 1 << 16);
	}
	return NULL;
}

int main(void)
{
	struct vhost_vring_file kick;
	uint64_t one = 1;
	pthread_t t;
	int fd, efd;

	fd = open("/dev/vhost-net", O_RDWR);
	if (fd < 0 || ioctl(fd, VHOST_SET_OWNER) < 0) {
		perror("vhostkick: /dev/vhost-net");
		return 1;
	}
	efd = eventfd(0, 0);
	kick.index = 1;		/* TX */
	kick.fd = efd;
	if (efd < 0 || ioctl(fd, VHOST_SET_VRING_KICK, &kick) < 0) {
		perror("vhostkick: VHOST_SET_VRING_KICK");
		return 1;
	}
	pthread_create(&t, NULL, churn, NULL);
	printf("%d\n", getpid());
	fflush(stdout);
	for (;;)
		if (write(efd, &one, sizeof(one)) < 0)
			return 1;
}
