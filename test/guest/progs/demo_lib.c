// SPDX-License-Identifier: GPL-2.0
/* The demo's shared library: three kinds of work with different costs. */
#include <stddef.h>
#include <string.h>

unsigned long demo_hash(const unsigned char *p, size_t n)
{
	unsigned long h = 1469598103934665603UL;

	while (n--)
		h = (h ^ *p++) * 1099511628211UL;
	return h;
}

static int cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

#include <stdlib.h>
void demo_sort(unsigned int *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp);
}

size_t demo_compress(const unsigned char *in, size_t n, unsigned char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t run = 1;

		while (i + run < n && in[i + run] == in[i] && run < 255)
			run++;
		out[o++] = run;
		out[o++] = in[i];
		i += run;
	}
	memset(out + o, 0, 16);
	return o;
}
