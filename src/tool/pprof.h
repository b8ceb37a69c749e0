/* SPDX-License-Identifier: GPL-2.0 */
/* pprof output (pprof.c): also used by `stackid push`. */
#ifndef STACKID_TOOL_PPROF_H
#define STACKID_TOOL_PPROF_H

#include <stddef.h>

#include "util.h"

/* Append @n bytes at @in, gzip-compressed, to @out. 0, or -1. */
int pprof_gzip(const void *in, size_t n, struct strbuf *out);
/* The same, fed to zlib @chunk bytes at a time (0: the most it takes). */
int pprof_gzip_chunked(const void *in, size_t n, struct strbuf *out,
		       size_t chunk);

#endif /* STACKID_TOOL_PPROF_H */
