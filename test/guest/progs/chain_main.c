// SPDX-License-Identifier: GPL-2.0
/*
 * The executable half of the known call chain:
 * main -> app_a1 -> app_a2 -> app_a3 -> lib_b1 (libchain.so) -> lib_b2
 * -> lib_spin. Prints its pid, then spins until killed.
 */
#include <stdio.h>
#include <unistd.h>

void lib_b1(void);
volatile unsigned long app_sink;

__attribute__((noinline)) void app_a3(void)
{
	lib_b1();
	app_sink++;
}

__attribute__((noinline)) void app_a2(void)
{
	app_a3();
	app_sink++;
}

__attribute__((noinline)) void app_a1(void)
{
	app_a2();
	app_sink++;
}

int main(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
	app_a1();
	return 0;
}
