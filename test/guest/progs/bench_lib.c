// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-library half of the bench's hot stack: blib_f1 -> ... ->
 * blib_f6 (innermost, does the work). With bench_work's five functions
 * and main, a stack of 11 functions across an executable and a library.
 */
volatile unsigned long blib_sink;

__attribute__((noinline)) void blib_f6(unsigned long n)
{
	unsigned long i, x = blib_sink;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	blib_sink = x;
}

__attribute__((noinline)) void blib_f5(unsigned long n) { blib_f6(n); blib_sink++; }
__attribute__((noinline)) void blib_f4(unsigned long n) { blib_f5(n); blib_sink++; }
__attribute__((noinline)) void blib_f3(unsigned long n) { blib_f4(n); blib_sink++; }
__attribute__((noinline)) void blib_f2(unsigned long n) { blib_f3(n); blib_sink++; }
__attribute__((noinline)) void blib_f1(unsigned long n) { blib_f2(n); blib_sink++; }
