// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 20: a hot function called back by libc's qsort, built as Debian
 * builds (no frame pointers), in a loop: main -> run -> qsort (libc,
 * its merge sort's frames) -> cmp. Prints its pid, then sorts until
 * killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N	100000

volatile unsigned long qsort_sink;
static volatile int qsort_stop;

__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) void run(unsigned int *v)
{
	unsigned int x = 1, i;

	while (!qsort_stop) {
		for (i = 0; i < N; i++) {
			x = x * 1103515245 + 12345;
			v[i] = x >> 4;
		}
		qsort(v, N, sizeof(*v), cmp);
		qsort_sink += v[N / 2];
	}
}

int main(void)
{
	unsigned int *v = malloc(N * sizeof(*v));

	if (!v)
		return 1;
	printf("%d\n", getpid());
	fflush(stdout);
	run(v);
	free(v);
	return 0;
}
