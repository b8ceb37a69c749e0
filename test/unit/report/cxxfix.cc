// SPDX-License-Identifier: GPL-2.0
/*
 * C++ fixture for demangling: a method in a namespace and a function
 * template instance, never inlined. Built as a shared object by the
 * Makefile; the test looks them up by their mangled names.
 */
#define FN __attribute__((noinline, noclone, used))

volatile int cxxfix_sink;

namespace cxxfix {
struct Klass {
	FN int method(int x);
};

FN int Klass::method(int x)
{
	cxxfix_sink = x;
	return x * 3 + 1;
}

template <typename T> FN T twice(T x)
{
	Klass k;

	return k.method(x) + x;
}

template int twice<int>(int);
} // namespace cxxfix
