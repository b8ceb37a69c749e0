// SPDX-License-Identifier: GPL-2.0
/*
 * The library of `manylibs`, copied to libmany<N>.so for N in
 * 0..MANY_LIBS-1 with the build-id patched to be unique in each copy
 * (see the Makefile): many_f(N, ...) calls the next copy's many_f through
 * the program's table, so a stack runs through every library; the last
 * one in a descent spins a while, then the descent unwinds.
 */
extern void (*many_tab[])(int n, int depth);
extern volatile unsigned long many_sink;

__attribute__((noinline)) void many_f(int n, int depth)
{
	unsigned long i;

	if (depth + 1 < MANY_LIBS) {
		many_tab[(n + 1) % MANY_LIBS]((n + 1) % MANY_LIBS, depth + 1);
	} else {
		for (i = 0; i < 2000000; i++)
			many_sink++;
	}
	many_sink++;
}
