// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers of the stackid command (see util.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "util.h"

static void __attribute__((noreturn)) oom(void)
{
	fputs("stackid: out of memory\n", stderr);
	exit(EXIT_SYSTEM);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		oom();
	return xrealloc(p, bytes);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void sb_grow(struct strbuf *sb, size_t more)
{
	size_t need;

	if (__builtin_add_overflow(sb->len, more + 1, &need))
		oom();
	if (need <= sb->cap)
		return;
	if (need < 64)
		need = 64;
	if (need < sb->cap * 2)
		need = sb->cap * 2;
	sb->buf = xrealloc(sb->buf, need);
	sb->cap = need;
}

void sb_add(struct strbuf *sb, const void *p, size_t n)
{
	sb_grow(sb, n);
	if (n)		/* an empty strbuf's NULL buf is fine to add */
		memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sb_grow(sb, n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
}

static const char hexdig[] = "0123456789abcdef";

void sb_addhex(struct strbuf *sb, const unsigned char *p, size_t n)
{
	char *o;
	size_t i;

	sb_grow(sb, 2 * n);
	o = sb->buf + sb->len;
	for (i = 0; i < n; i++) {
		*o++ = hexdig[p[i] >> 4];
		*o++ = hexdig[p[i] & 15];
	}
	*o = 0;
	sb->len += 2 * n;
}

void sb_addx(struct strbuf *sb, uint64_t v)
{
	char tmp[18];
	int i = sizeof(tmp);

	do {
		tmp[--i] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	sb_add(sb, tmp + i, sizeof(tmp) - i);
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

char *sb_detach(struct strbuf *sb)
{
	char *s;

	if (!sb->buf)
		return xstrdup("");
	s = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* A small multiply-mix hash; good enough for in-memory tables. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ULL ^ n, w;

	while (n >= 8) {
		memcpy(&w, b, 8);
		h = mix(h ^ w, 0xbf58476d1ce4e5b9ULL);
		b += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, b, n);
		h = mix(h ^ w, 0x94d049bb133111ebULL);
	}
	return mix(h, 0x2545f4914f6cdd1dULL);
}

static void intern_rehash(struct intern *t)
{
	unsigned int i, j, mask;

	free(t->slot);
	t->nslots = t->nslots ? t->nslots * 2 : 64;
	t->slot = xcalloc(t->nslots, sizeof(*t->slot));
	mask = t->nslots - 1;
	for (i = 0; i < t->n; i++) {
		j = t->ent[i].hash & mask;
		while (t->slot[j])
			j = (j + 1) & mask;
		t->slot[j] = i + 1;
	}
}

static unsigned int *intern_lookup(const struct intern *t, const void *p,
				   size_t len, uint64_t h)
{
	unsigned int mask = t->nslots - 1, j = h & mask;

	for (;; j = (j + 1) & mask) {
		const struct intern_ent *e;

		if (!t->slot[j])
			return &t->slot[j];
		e = &t->ent[t->slot[j] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, p, len))
			return &t->slot[j];
	}
}

long intern_find(const struct intern *t, const void *p, size_t len)
{
	unsigned int *s;

	if (!t->nslots)
		return -1;
	s = intern_lookup(t, p, len, hash_bytes(p, len, 0));
	return *s ? (long)*s - 1 : -1;
}

unsigned int intern_bytes(struct intern *t, const void *p, size_t len)
{
	uint64_t h = hash_bytes(p, len, 0);
	struct intern_ent *e;
	unsigned int *s;

	if ((t->n + 1) * 2 > t->nslots)
		intern_rehash(t);
	s = intern_lookup(t, p, len, h);
	if (*s)
		return *s - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->ent = xreallocarray(t->ent, t->cap, sizeof(*t->ent));
	}
	e = &t->ent[t->n];
	e->s = xmalloc(len + 1);
	memcpy(e->s, p, len);
	e->s[len] = 0;
	e->len = len;
	e->hash = h;
	*s = ++t->n;
	return t->n - 1;
}

void intern_free(struct intern *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		free(t->ent[i].s);
	free(t->ent);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
