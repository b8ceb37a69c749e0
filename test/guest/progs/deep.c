// SPDX-License-Identifier: GPL-2.0
/*
 * A stack of exactly 16 frames with frame pointers, for the benchmark:
 * main -> rec x 14 -> deep_spin (innermost), spinning until killed.
 */
#include <stdio.h>
#include <unistd.h>

volatile unsigned long deep_sink;

void deep_spin(void)
{
	while (deep_sink != ~0UL)
		deep_sink++;
}

void rec(int n)
{
	if (n)
		rec(n - 1);
	else
		deep_spin();
	deep_sink++;
}

int main(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
	rec(13);	/* 14 rec frames */
	return 0;
}
