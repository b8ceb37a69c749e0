// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 20: C++ as Debian builds it (-O2, no frame pointers): std::sort
 * with a lambda comparator (kept a function of its own, not inlined nor
 * cloned, so that its samples can be told by its symbol), and a throw caught each time (libstdc++'s
 * __cxa_throw, libgcc_s's unwinder), in a loop: main -> run ->
 * std::sort's frames -> the lambda; main -> run -> thrower -> the
 * unwinder. Prints its pid, then loops until killed.
 */
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>
#include <unistd.h>

volatile unsigned long sort_sink;
static volatile int sort_stop;

__attribute__((noinline)) void thrower(unsigned int i)
{
	if (i != ~0U)
		throw std::runtime_error("sort_throw");
	sort_sink++;
}

__attribute__((noinline)) void run()
{
	std::vector<unsigned int> v(20000);
	unsigned int x = 1;

	while (!sort_stop) {
		for (auto &e : v) {
			x = x * 1103515245 + 12345;
			e = x >> 4;
		}
		std::sort(v.begin(), v.end(),
			  [](unsigned int a, unsigned int b)
			  __attribute__((noinline, noclone)) { return a < b; });
		sort_sink += v[v.size() / 2];
		for (unsigned int i = 0; i < 200; i++) {
			try {
				thrower(i);
			} catch (const std::exception &e) {
				sort_sink += e.what()[0];
			}
		}
	}
}

int main()
{
	std::printf("%d\n", getpid());
	std::fflush(stdout);
	run();
	return 0;
}
