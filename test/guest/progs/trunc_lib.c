// SPDX-License-Identifier: GPL-2.0
/* The library truncwrite runs from while its own file is rewritten. */
volatile unsigned long trunc_sink;

__attribute__((noinline)) void trunc_spin(unsigned long n)
{
	while (n--)
		trunc_sink++;
}
