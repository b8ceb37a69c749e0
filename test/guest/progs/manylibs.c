// SPDX-License-Identifier: GPL-2.0
/*
 * manylibs DIR [N]: dlopen()s DIR/libmany0.so .. libmany<MANY_LIBS-1>.so
 * and descends through all of them again and again, each time starting
 * at another library, so that every library's frames are sampled: a
 * stack through hundreds of files. Prints its pid once they are loaded;
 * runs until killed, or (the bench) makes N descents and prints
 * "elapsed_ns NS".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void (*many_tab[MANY_LIBS])(int n, int depth);
volatile unsigned long many_sink;

int main(int argc, char **argv)
{
	char path[4096];
	int i, start = 0;
	long n = -1;
	struct timespec a, b;

	if (argc != 2 && argc != 3)
		return 2;
	if (argc == 3)
		n = strtol(argv[2], NULL, 0);
	for (i = 0; i < MANY_LIBS; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/libmany%d.so", argv[1], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h || !(many_tab[i] = (void (*)(int, int))dlsym(h,
								   "many_f"))) {
			fprintf(stderr, "manylibs: %s\n", dlerror());
			return 1;
		}
	}
	if (n < 0) {
		printf("%d\n", getpid());
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (; n; n > 0 ? n-- : 0) {
		many_tab[start](start, 0);
		start = (start + 37) % MANY_LIBS;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("elapsed_ns %llu\n", (b.tv_sec - a.tv_sec) * 1000000000ULL +
	       b.tv_nsec - a.tv_nsec);
	return 0;
}
