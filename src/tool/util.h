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
#include <time.h>

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

/*
 * SipHash-1-3 of @n bytes, keyed with a random key drawn once per process
 * (getrandom()) and tweaked by @seed: a capture cannot choose keys that
 * collide in the tables (intern, folded stacks, caches), whose probing
 * stays short on any input.
 */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/*
 * Names from a capture or from a file (comm, paths, cgroup paths, kernel
 * symbol and module names, symbol and source names): @n bytes of @s
 * appended to @sb as valid UTF-8 without control characters. Each byte
 * that does not begin such a character (a stray or truncated sequence,
 * an overlong form, a surrogate, a code point above U+10FFFF, a
 * noncharacter such as U+FFFE, a C0 or C1 control or DEL, in UTF-8 or
 * not) becomes the four characters \xNN (lower-case hex) and decoding
 * goes on with the next byte. Returns true if @s was clean (appended as
 * it is).
 */
bool name_sanitize(struct strbuf *sb, const char *s, size_t n);

/*
 * The length (1..4) of the clean character name_sanitize() keeps at @s
 * (@n bytes left), or 0 if it would escape the byte @s[0].
 */
size_t name_char_len(const unsigned char *s, size_t n);

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

/*
 * Raise the soft limit on open files to @want, or to the hard limit where
 * that is lower; never lowers it. Returns the soft limit then in force
 * (0 if it could not be read).
 */
unsigned long nofile_raise(unsigned long want);

/* CLOCK_MONOTONIC in ns */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* STACKID_TOOL_UTIL_H */
