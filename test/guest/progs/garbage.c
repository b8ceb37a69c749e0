// SPDX-License-Identifier: GPL-2.0
/*
 * Spins with a corrupt frame pointer so the stack walker must stop
 * cleanly: "random" points rbp at pseudo-random addresses, "cycle" at a
 * frame that links to itself, "down" at frames whose links go down,
 * "fault" at a good frame record (the walk's first read succeeds) whose
 * saved rbp points above the stack, where nothing is mapped (the second
 * read faults: the walk must stop there, "fault", with two frames).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * An address above the stack where nothing is mapped: the first page at
 * or above the stack's end that no mapping holds. Older kernels (the
 * 5.10 line's; vdso_addr(), gone by 6.12) put the vDSO and its vvar
 * pages at a random page offset within a PMD above the stack, now and
 * then right at its end: then the gap is above them (a cold run on
 * 2026-12-06 met it). /proc/self/maps is in address order.
 */
static unsigned long above_stack(void)
{
	unsigned long lo, hi, end = 0, top = 0x7ffffffff000UL;
	bool gap = false;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !gap && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (strstr(line, "[stack]"))
			end = hi;
		else if (end && lo == end)
			end = hi;	/* adjacent: the gap is above it */
		else if (end && lo > end)
			gap = true;	/* [end, lo) is unmapped */
	}
	if (f)
		fclose(f);
	/* a gap that starts at the top of user space is none */
	if (!end || end + 4096 > top) {
		fprintf(stderr, "garbage: no unmapped page above the stack\n");
		exit(1);
	}
	return end + 64;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "random";
	/* on the stack, above the stack pointer, so the walker reads it */
	volatile unsigned long frames[64];
	unsigned long x = 88172645463325252UL;
	unsigned long i;

	/* a self-linked frame, and one linking downwards */
	frames[0] = (unsigned long)&frames[0];
	frames[1] = 0x1234;
	frames[10] = (unsigned long)&frames[2];
	frames[11] = 0x5678;
	/* a good record: saved rbp above the stack, a return address in main */
	frames[20] = !strcmp(mode, "fault") ? above_stack() : 0;
	frames[21] = (unsigned long)&&spin;
	printf("%d\n", getpid());
	fflush(stdout);
spin:
	for (i = 0;; i++) {
		unsigned long fp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (!strcmp(mode, "cycle"))
			fp = (unsigned long)&frames[0];
		else if (!strcmp(mode, "down"))
			fp = (unsigned long)&frames[10];
		else if (!strcmp(mode, "fault"))
			fp = (unsigned long)&frames[20];
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
