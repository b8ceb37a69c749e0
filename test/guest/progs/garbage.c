// SPDX-License-Identifier: GPL-2.0
/*
 * Spins with a corrupt frame pointer so the stack walker must stop
 * cleanly: "random" points rbp at pseudo-random addresses, "cycle" at a
 * frame that links to itself, "down" at frames whose links go down.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "random";
	/* on the stack, above the stack pointer, so the walker reads it */
	volatile unsigned long frames[64];
	unsigned long x = 88172645463325252UL;
	unsigned long i;

	printf("%d\n", getpid());
	fflush(stdout);
	/* a self-linked frame, and one linking downwards */
	frames[0] = (unsigned long)&frames[0];
	frames[1] = 0x1234;
	frames[10] = (unsigned long)&frames[2];
	frames[11] = 0x5678;
	for (i = 0;; i++) {
		unsigned long fp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (!strcmp(mode, "cycle"))
			fp = (unsigned long)&frames[0];
		else if (!strcmp(mode, "down"))
			fp = (unsigned long)&frames[10];
		else
			fp = x;
		/* spin a while with rbp = fp; no calls, no memory via rbp */
		__asm__ volatile("mov %%rbp, %%r12\n\t"
				 "mov %0, %%rbp\n\t"
				 "mov $200000, %%ecx\n\t"
				 "1: dec %%ecx\n\t"
				 "jnz 1b\n\t"
				 "mov %%r12, %%rbp\n\t"
				 : : "r"(fp) : "rcx", "r12", "memory");
	}
	return 0;
}
