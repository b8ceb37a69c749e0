// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers of the stackid command (see util.h).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/resource.h>
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

/* SipHash-1-3 (Aumasson and Bernstein), the process's random key. */
static uint64_t hash_key[2];
static bool hash_keyed;

static void hash_init(void)
{
	uint64_t k[2];
	ssize_t n = getrandom(k, sizeof(k), GRND_NONBLOCK);

	if (n != (ssize_t)sizeof(k)) {
		/* no entropy yet (early boot): what differs per process */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^
		       (uint64_t)getpid() << 32 ^ (uintptr_t)&ts;
		k[1] = (uint64_t)ts.tv_sec ^ (uintptr_t)hash_init;
	}
	hash_key[0] = k[0];
	hash_key[1] = k[1];
	hash_keyed = true;
}

#define ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
} while (0)

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t k0, k1, v0, v1, v2, v3, m, last = (uint64_t)n << 56;
	size_t left = n & 7;

	if (!hash_keyed)
		hash_init();
	k0 = hash_key[0] ^ seed;
	k1 = hash_key[1];
	v0 = k0 ^ 0x736f6d6570736575ULL;
	v1 = k1 ^ 0x646f72616e646f6dULL;
	v2 = k0 ^ 0x6c7967656e657261ULL;
	v3 = k1 ^ 0x7465646279746573ULL;
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&m, b, 8);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = 0;
	if (left)
		memcpy(&m, b, left);
	m |= last;
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

size_t name_char_len(const unsigned char *s, size_t n)
{
	unsigned int c = s[0], cp, need, i;

	if (c < 0x80)
		return c >= 0x20 && c != 0x7f ? 1 : 0;
	if (c < 0xc2 || c > 0xf4)
		return 0;	/* continuation, overlong lead, > U+10FFFF */
	need = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
	if (n <= need)
		return 0;
	cp = c & (0x3f >> need);
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
	    cp > 0x10ffff)
		return 0;	/* overlong, or beyond Unicode */
	if (cp < 0xa0)
		return 0;	/* C1 controls U+0080..U+009F */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;	/* surrogates */
	if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
		return 0;	/* noncharacters: U+FFFE, U+FFFF, ... */
	return need + 1;
}

bool name_sanitize(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k;
	bool clean = true;

	sb_grow(sb, n);
	while (i < n) {
		/* printable ASCII, the common case */
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			i++;
			continue;
		}
		k = name_char_len(p + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		sb_add(sb, s + run, i - run);
		sb_addf(sb, "\\x%02x", p[i]);
		clean = false;
		run = ++i;
	}
	sb_add(sb, s + run, n - run);
	return clean;
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

unsigned long nofile_raise(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < want && rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) &&
		    getrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	return rl.rlim_cur;
}
