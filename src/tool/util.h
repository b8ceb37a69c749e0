/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers of the stackid command: allocation that cannot fail (it
 * exits with status 2 instead), a growable string buffer, hashing, and an
 * interning table that maps byte strings to dense indices.
 */
#ifndef STACKID_TOOL_UTIL_H
#define STACKID_TOOL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* A NUL-terminated string that grows; buf is NULL until the first add. */
struct strbuf {
	char *buf;
	size_t len, cap;
};

void sb_grow(struct strbuf *sb, size_t more);
void sb_add(struct strbuf *sb, const void *p, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Lower-case hex of @n bytes. */
void sb_addhex(struct strbuf *sb, const unsigned char *p, size_t n);
/* "0x" and lower-case hex of @v, without leading zeros. */
void sb_addx(struct strbuf *sb, uint64_t v);
static inline void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}
void sb_free(struct strbuf *sb);
/* Hand the string over to the caller (never NULL); sb is empty after. */
char *sb_detach(struct strbuf *sb);

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/*
 * Interning table: each distinct byte string gets the next index, from
 * 0. The strings are copied and NUL-terminated (they may contain NULs).
 */
struct intern {
	struct intern_ent {
		char *s;
		size_t len;
		uint64_t hash;
	} *ent;			/* by index */
	unsigned int n, cap;
	unsigned int *slot;	/* open addressing: index + 1, 0 empty */
	unsigned int nslots;
};

unsigned int intern_bytes(struct intern *t, const void *p, size_t len);
/* Index of the string, or -1 if it is not in the table. */
long intern_find(const struct intern *t, const void *p, size_t len);
static inline const char *intern_str(const struct intern *t, unsigned int i)
{
	return t->ent[i].s;
}
static inline size_t intern_len(const struct intern *t, unsigned int i)
{
	return t->ent[i].len;
}
void intern_free(struct intern *t);

#endif /* STACKID_TOOL_UTIL_H */
