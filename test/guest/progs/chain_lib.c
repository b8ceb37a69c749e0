// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-library half of the known call chain that the sampler
 * tests look for: lib_b1 -> lib_b2 -> lib_spin (innermost, spins).
 * Work after each call keeps the compiler from turning it into a jump.
 */
volatile unsigned long chain_sink;

/*
 * A loop GCC cannot prove endless: for a function that never returns it
 * would drop the frame pointer setup even with
 * -mno-omit-leaf-frame-pointer. A flag nothing sets, not a count: a
 * 32-bit unsigned long reaches ~0 within a minute, at -O2 under TCG, and
 * the program would end while a test still records it.
 */
static volatile int chain_stop;

__attribute__((noinline)) void lib_spin(void)
{
	while (!chain_stop)
		chain_sink++;
}

__attribute__((noinline)) void lib_b2(void)
{
	lib_spin();
	chain_sink++;
}

__attribute__((noinline)) void lib_b1(void)
{
	lib_b2();
	chain_sink++;
}
