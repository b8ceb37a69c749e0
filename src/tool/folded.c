// SPDX-License-Identifier: GPL-2.0
/*
 * --format folded: one line per distinct stack,
 *
 *	COMM;OUTERMOST;...;INNERMOST COUNT
 *	CGROUP;COMM;OUTERMOST;...;INNERMOST COUNT	(--by-cgroup)
 *
 * sorted by COUNT, highest first, then by the line's bytes: the input of
 * flamegraph.pl and similar tools. A sample's kernel frames come after
 * its user frames, outermost first, as func_[k] (render.h), so that the
 * kernel's part of a stack continues where the user's part called it,
 * and flame graphs colour them as kernel frames.
 *
 * Samples are first counted by their raw stack (rendered comm and
 * frames, with build-ids and comms interned), so each distinct raw stack
 * is rendered and symbolized once; raw stacks that render the same (two
 * offsets in one function) are then merged. Without symbols, distinct
 * raw stacks always render differently, and there is nothing to merge.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/*
 * A raw stack, in the key arena: word 0 is comm index | nr_frames << 32,
 * word 1 the cgroup id (--by-cgroup; else 0), then two words per frame,
 * innermost first: the address, and the build-id index + 1 (0 for an ip
 * frame), or for a kernel frame KTAG | its function's number + 1 (KTAG
 * alone: not named).
 */
#define KTAG	(1ULL << 63)
#define KEY_MAX	(2 + 2 * STACKID_MAX_DEPTH)	/* words */
struct stack {
	uint64_t hash;
	uint64_t count;
	size_t key;		/* index of word 0 in the arena */
};

/*
 * Recent comms as rsample has them, and their index in comms: a sample
 * whose comm is here skips rendering and interning it. Direct-mapped by
 * a cheap hash of the comm: a collision only costs the slow way.
 */
#define COMM_CACHE	64
struct comm_slot {
	char comm[RSAMPLE_COMM_MAX + 1];
	uint32_t index;
	bool used;
};

struct fold {
	struct intern comms;		/* comms as rendered */
	struct strbuf comm;		/* scratch */
	struct comm_slot cc[COMM_CACHE];
	uint64_t *words;
	size_t nwords, capwords;
	struct stack *tab;	/* open addressing; count 0: empty */
	size_t n, nslots;
	bool merge;		/* distinct raw stacks may render the same */
};

static size_t key_words(const uint64_t *k)
{
	return 2 + 2 * (k[0] >> 32);
}

static void fold_grow(struct fold *f)
{
	struct stack *old = f->tab;
	size_t n = f->nslots, i, j, mask;

	f->nslots = n ? n * 2 : 1024;
	f->tab = xcalloc(f->nslots, sizeof(*f->tab));
	mask = f->nslots - 1;
	for (i = 0; i < n; i++) {
		if (!old[i].count)
			continue;
		for (j = old[i].hash & mask; f->tab[j].count; j = (j + 1) & mask)
			;
		f->tab[j] = old[i];
	}
	free(old);
}

/*
 * The raw stacks' hash, per sample, so cheaper than hash_bytes() and as
 * hard for a capture to collide: NH (the hash of UMAC: Black et al.,
 * 1999) over the key's 32-bit halves, with a random 32-bit key per half
 * drawn through hash_bytes()'s random key once per process: two distinct
 * keys of the same length (the length is in word 0) have the same sum
 * with probability 2^-32 at most, whatever the capture holds. Then a
 * mix, so that the table's low bits depend on every bit of the sum.
 */
static uint32_t nh_key[2 * KEY_MAX];
static uint64_t nh_seed;

static uint64_t fold_hash(const uint64_t *k, size_t n)
{
	uint64_t h = 0;
	size_t i;

	if (!nh_seed) {
		for (i = 0; i < KEY_MAX; i++) {
			uint64_t x = hash_bytes(&i, sizeof(i), 0x6e68);

			nh_key[2 * i] = x;
			nh_key[2 * i + 1] = x >> 32;
		}
		nh_seed = hash_bytes("fold", 4, 0x6e68) | 1;
	}
	for (i = 0; i < n; i++)
		h += (uint64_t)(uint32_t)((uint32_t)k[i] + nh_key[2 * i]) *
		     (uint32_t)((uint32_t)(k[i] >> 32) + nh_key[2 * i + 1]);
	h ^= nh_seed;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* The index of @s's comm as rendered, in f->comms. */
static uint32_t fold_comm(struct report *rp, struct fold *f,
			  const struct rsample *s)
{
	size_t n = strlen(s->comm);
	uint64_t w = n, x = 0;
	struct comm_slot *c;

	/* the first and last 8 bytes: kworker/0:1, kworker/1:1 differ */
	memcpy(&x, s->comm, n < 8 ? n : 8);
	w ^= x * 0x9e3779b97f4a7c15ULL;
	if (n > 8) {
		memcpy(&x, s->comm + n - 8, 8);
		w ^= x;
	}
	c = &f->cc[(w * 0xff51afd7ed558ccdULL) >> 58];
	if (c->used && !memcmp(c->comm, s->comm, n + 1))
		return c->index;
	sb_reset(&f->comm);
	render_comm(&rp->r, &f->comm, s->comm);
	c->index = intern_bytes(&f->comms, f->comm.buf, f->comm.len);
	memcpy(c->comm, s->comm, n + 1);
	c->used = true;
	return c->index;
}

/*
 * @s's raw stack into @k (KEY_MAX words: nr_frames is at most
 * STACKID_MAX_DEPTH, as rsample holds); returns its length in words.
 */
static size_t fold_key(struct report *rp, struct fold *f,
		       const struct rsample *s, uint64_t *k)
{
	unsigned int i;

	k[0] = fold_comm(rp, f, s) | (uint64_t)s->nr_frames << 32;
	k[1] = rp->o->by_cgroup ? s->cgroup_id : 0;
	for (i = 0; i < s->nr_frames; i++) {
		const struct rframe *fr = &s->frames[i];

		k[2 + 2 * i] = fr->addr;
		if (fr->status == STACKID_FRAME_KERNEL)
			k[3 + 2 * i] = KTAG | (fr->kname ? fr->bid + 1 : 0);
		else
			k[3 + 2 * i] = fr->status == STACKID_FRAME_VALID ?
				fr->bid + 1 : 0;
	}
	/* offsets into one kernel function, cgroups named alike */
	if (s->nr_kernel || rp->o->by_cgroup)
		f->merge = true;
	return 2 + 2 * (size_t)s->nr_frames;
}

/* Count raw stack @k (@need words, hash @h): one more, or a new one. */
static void fold_add(struct fold *f, const uint64_t *k, size_t need,
		     uint64_t h)
{
	size_t mask, j;

	if ((f->n + 1) * 2 > f->nslots)
		fold_grow(f);
	mask = f->nslots - 1;
	for (j = h & mask; f->tab[j].count; j = (j + 1) & mask) {
		struct stack *st = &f->tab[j];

		if (st->hash == h && key_words(f->words + st->key) == need &&
		    !memcmp(f->words + st->key, k, need * 8)) {
			st->count++;
			return;
		}
	}
	if (f->nwords + need > f->capwords) {
		f->capwords = (f->capwords + need) * 2;
		f->words = xreallocarray(f->words, f->capwords, 8);
	}
	memcpy(f->words + f->nwords, k, need * 8);
	f->tab[j] = (struct stack){ .hash = h, .count = 1, .key = f->nwords };
	f->nwords += need;
	f->n++;
}

/* A rendered line: its text at off in the arena, without the count. */
struct line {
	size_t off, len;
	uint64_t count;
	size_t rank;		/* after a sort by text: the place in it */
};

static int by_text(const void *a, const void *b, void *arena)
{
	const struct line *x = a, *y = b;

	return strcmp((char *)arena + x->off, (char *)arena + y->off);
}

static int by_count(const void *a, const void *b, void *arena)
{
	const struct line *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return by_text(a, b, arena);
}

static int by_off(const void *a, const void *b, void *arena)
{
	const struct line *x = a, *y = b;

	(void)arena;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* by_count() on lines in text order already, comparing no text. */
static int by_count_rank(const void *a, const void *b, void *arena)
{
	const struct line *x = a, *y = b;

	(void)arena;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void render_stack(struct report *rp, struct fold *f, struct strbuf *sb,
			 const uint64_t *k)
{
	unsigned int n = k[0] >> 32, i;
	struct rframe fr;
	uint32_t ci = (uint32_t)k[0];

	if (rp->o->by_cgroup) {
		struct strbuf cg = { 0 };

		report_cgroup_name(rp, k[1], &cg);
		render_str(&rp->r, sb, cg.buf, cg.len);
		sb_addc(sb, ';');
		sb_free(&cg);
	}
	sb_add(sb, intern_str(&f->comms, ci), intern_len(&f->comms, ci));
	for (i = n; i-- > 0;) {
		uint64_t b = k[3 + 2 * i];

		memset(&fr, 0, sizeof(fr));
		fr.addr = k[2 + 2 * i];
		if (b & KTAG) {
			fr.status = STACKID_FRAME_KERNEL;
			if (b != KTAG) {
				fr.kname = intern_str(&rp->ksym_nums,
						      (b & ~KTAG) - 1);
				fr.kmodule = fr.kname + strlen(fr.kname) + 1;
			}
		} else if (b) {
			fr.status = STACKID_FRAME_VALID;
			fr.bid = b - 1;
			fr.build_id_len = intern_len(&rp->bid_nums, b - 1);
			fr.build_id = (const unsigned char *)
				      intern_str(&rp->bid_nums, b - 1);
		} else {
			fr.status = STACKID_FRAME_IP;
		}
		sb_addc(sb, ';');
		render_frame(&rp->r, sb, &fr, i > 0);
	}
	sb_addc(sb, 0);		/* lines are NUL-separated in the arena */
}

static void fold_lines(struct report *rp, struct fold *f, folded_fn fn,
		       void *arg)
{
	struct strbuf sb = { 0 };
	struct line *lines = xcalloc(f->n, sizeof(*lines));
	size_t i, n = 0, m;
	char *arena;

	for (i = 0; i < f->nslots; i++) {
		if (!f->tab[i].count)
			continue;
		lines[n].off = f->tab[i].key;
		lines[n++].count = f->tab[i].count;
	}
	/* rendered in the arena's order: its keys read in turn */
	qsort_r(lines, n, sizeof(*lines), by_off, NULL);
	for (i = 0; i < n; i++) {
		const uint64_t *k = f->words + lines[i].off;

		lines[i].off = sb.len;
		render_stack(rp, f, &sb, k);
		lines[i].len = sb.len - 1 - lines[i].off;
	}
	arena = sb.buf;
	m = n;
	if (rp->sym || f->merge) {
		/*
		 * Merge the raw stacks that rendered the same; then, in text
		 * order already, the sort by count compares no text.
		 */
		qsort_r(lines, n, sizeof(*lines), by_text, arena);
		for (i = 0, m = 0; i < n; i++) {
			if (m && lines[m - 1].len == lines[i].len &&
			    !memcmp(arena + lines[m - 1].off,
				    arena + lines[i].off, lines[i].len)) {
				lines[m - 1].count += lines[i].count;
			} else {
				lines[m] = lines[i];
				lines[m].rank = m;
				m++;
			}
		}
		qsort_r(lines, m, sizeof(*lines), by_count_rank, arena);
	} else {
		qsort_r(lines, m, sizeof(*lines), by_count, arena);
	}
	for (i = 0; i < m; i++)
		fn(arg, arena + lines[i].off, lines[i].len, lines[i].count);
	sb_free(&sb);
	free(lines);
}

struct printer {
	struct strbuf out;
	FILE *f;
};

static void print_line(void *arg, const char *line, size_t len,
		       uint64_t count)
{
	struct printer *p = arg;

	sb_add(&p->out, line, len);
	sb_addf(&p->out, " %llu\n", (unsigned long long)count);
	if (p->out.len >= 1 << 16) {
		fwrite(p->out.buf, 1, p->out.len, p->f);
		sb_reset(&p->out);
	}
}

int folded_report(struct report *rp)
{
	struct printer p = { .f = rp->out };
	int ret = folded_each(rp, print_line, &p);

	if (p.out.len)
		fwrite(p.out.buf, 1, p.out.len, rp->out);
	sb_free(&p.out);
	return ret;
}

/*
 * Samples are counted in batches, so that the table's and the arena's
 * cache misses overlap: the batch's keys and hashes first, with the
 * table slots they hash to prefetched, then the keys those slots hold,
 * then each is counted in turn (fold_add(), which is all that decides).
 */
#define BATCH	16

static void prefetch_key(const struct fold *f, size_t need, uint64_t h)
{
	const struct stack *st;
	size_t i;

	if (!f->nslots)
		return;
	st = &f->tab[h & (f->nslots - 1)];
	if (!st->count || st->hash != h)
		return;
	for (i = 0; i < need; i += 8)
		__builtin_prefetch(f->words + st->key + i);
}

int folded_each(struct report *rp, folded_fn fn, void *arg)
{
	struct rsample *s = xmalloc(sizeof(*s));
	uint64_t (*keys)[KEY_MAX] = xmalloc(BATCH * sizeof(*keys));
	struct {
		uint64_t hash;
		size_t need;
	} b[BATCH];
	struct fold f = { 0 };
	unsigned int n, i;
	int ret;

	do {
		for (n = 0; n < BATCH &&
			    (ret = report_next_sample(rp, s)) > 0; n++) {
			b[n].need = fold_key(rp, &f, s, keys[n]);
			b[n].hash = fold_hash(keys[n], b[n].need);
			if (f.nslots)
				__builtin_prefetch(&f.tab[b[n].hash &
							  (f.nslots - 1)]);
		}
		for (i = 0; i < n; i++)
			prefetch_key(&f, b[i].need, b[i].hash);
		for (i = 0; i < n; i++)
			fold_add(&f, keys[i], b[i].need, b[i].hash);
	} while (ret > 0);
	free(keys);
	free(s);
	fold_lines(rp, &f, fn, arg);
	intern_free(&f.comms);
	sb_free(&f.comm);
	free(f.words);
	free(f.tab);
	return ret;
}
