/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP producer for stackid's host unit tests. */
#ifndef STACKID_TAP_H
#define STACKID_TAP_H
#include <stdio.h>
#include <stdarg.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n) { printf("1..%d\n", n); }

/* Report one result; returns cond so callers can chain. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

static inline int tap_done(void)
{
	if (tap_n == 0) {
		printf("not ok 1 - no test ran\n");
		return 1;
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
