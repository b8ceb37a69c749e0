// SPDX-License-Identifier: GPL-2.0
/*
 * Protocol-buffers wire format, writing only (see pb.h).
 */
#include "pb.h"

#define WIRE_VARINT	0
#define WIRE_LEN	2

void pb_varint(struct strbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	sb_add(sb, b, n);
}

static void key(struct strbuf *sb, unsigned int field, unsigned int wire)
{
	pb_varint(sb, (uint64_t)field << 3 | wire);
}

void pb_uint(struct strbuf *sb, unsigned int field, uint64_t v)
{
	key(sb, field, WIRE_VARINT);
	pb_varint(sb, v);
}

void pb_bytes(struct strbuf *sb, unsigned int field, const void *p, size_t n)
{
	key(sb, field, WIRE_LEN);
	pb_varint(sb, n);
	sb_add(sb, p, n);
}

void pb_packed(struct strbuf *sb, unsigned int field, const uint64_t *v,
	       size_t n)
{
	struct strbuf tmp = { 0 };
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		pb_varint(&tmp, v[i]);
	pb_bytes(sb, field, tmp.buf, tmp.len);
	sb_free(&tmp);
}
