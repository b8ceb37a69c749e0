// SPDX-License-Identifier: GPL-2.0
/*
 * truncwrite LIB: runs code from the shared library LIB (linked in as
 * libtrunc.so, found through LD_LIBRARY_PATH) while a second thread
 * truncates LIB to 0 and writes its contents back, again and again. Each
 * truncation drops LIB's page-cache folios, the first one (the ELF header
 * and build-id note) included, so a sampler holding a reference to that
 * folio may end up holding the last one. The spinning thread gets SIGBUS
 * when it runs while LIB is empty; it jumps back and carries on. Prints
 * its pid, runs until killed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

void trunc_spin(unsigned long n);

static sigjmp_buf again;
static const char *lib;
static char *image;
static size_t image_len;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(again, 1);
}

static void *rewrite(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = open(lib, O_WRONLY | O_TRUNC);
		size_t done = 0;

		while (fd >= 0 && done < image_len) {
			ssize_t w = write(fd, image + done, image_len - done);

			if (w <= 0)
				break;
			done += w;
		}
		if (fd >= 0)
			close(fd);
		usleep(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct stat st;
	pthread_t t;
	FILE *f;

	if (argc != 2 || stat(argv[1], &st))
		return 2;
	lib = argv[1];
	image_len = st.st_size;
	image = malloc(image_len);
	f = fopen(lib, "r");
	if (!image || !f || fread(image, 1, image_len, f) != image_len)
		return 2;
	fclose(f);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	pthread_create(&t, NULL, rewrite, NULL);
	printf("%d\n", getpid());
	fflush(stdout);
	sigsetjmp(again, 1);
	for (;;)
		trunc_spin(100000);
}
