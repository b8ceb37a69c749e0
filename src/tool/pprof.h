/* SPDX-License-Identifier: GPL-2.0 */
/* pprof output (pprof.c): also used by `stackid push`. */
#ifndef STACKID_TOOL_PPROF_H
#define STACKID_TOOL_PPROF_H

#include <stddef.h>

#include "util.h"

/* Append @n bytes at @in, gzip-compressed, to @out. 0, or -1. */
int pprof_gzip(const void *in, size_t n, struct strbuf *out);

#endif /* STACKID_TOOL_PPROF_H */
