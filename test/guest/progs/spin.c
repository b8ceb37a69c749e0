// SPDX-License-Identifier: GPL-2.0
/* main -> spin_here: a plain spinner, linked with various build-ids. */
#include <stdio.h>
#include <unistd.h>

volatile unsigned long spin_sink;

/* not provably endless, so GCC keeps its frame pointer setup */
__attribute__((noinline)) void spin_here(void)
{
	while (spin_sink != ~0UL)
		spin_sink++;
}

int main(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
	spin_here();
	return 0;
}
