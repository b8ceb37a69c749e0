/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal protocol-buffers writer: varints, tags, length-delimited
 * fields and packed repeated integers, appended to a strbuf. Written
 * from the protobuf wire-format documentation; enough for pprof's
 * profile.proto (see pprof.c), no reflection, no parser.
 *
 * A nested message is built in a strbuf of its own and added with
 * pb_bytes(): the wire format puts its length before it.
 */
#ifndef STACKID_TOOL_PB_H
#define STACKID_TOOL_PB_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

void pb_varint(struct strbuf *sb, uint64_t v);
/* Field @field as a varint (wire type 0): int64, uint64, bool. */
void pb_uint(struct strbuf *sb, unsigned int field, uint64_t v);
/* Field @field as length-delimited bytes (wire type 2). */
void pb_bytes(struct strbuf *sb, unsigned int field, const void *p,
	      size_t n);
/* Packed repeated varints. Nothing for @n == 0. */
void pb_packed(struct strbuf *sb, unsigned int field, const uint64_t *v,
	       size_t n);

#endif /* STACKID_TOOL_PB_H */
