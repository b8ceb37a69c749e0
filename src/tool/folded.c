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
struct stack {
	uint64_t hash;
	uint64_t count;
	size_t key;		/* index of word 0 in the arena */
};

struct fold {
	struct intern comms;		/* comms as rendered */
	struct strbuf comm;		/* scratch */
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

static void fold_add(struct report *rp, struct fold *f,
		     const struct rsample *s)
{
	size_t need = 2 + 2 * (size_t)s->nr_frames, mask, j;
	uint64_t *k, h;
	unsigned int i;

	if (f->nwords + need > f->capwords) {
		f->capwords = (f->capwords + need) * 2;
		f->words = xreallocarray(f->words, f->capwords, 8);
	}
	k = f->words + f->nwords;
	sb_reset(&f->comm);
	render_comm(&rp->r, &f->comm, s->comm);
	k[0] = intern_bytes(&f->comms, f->comm.buf, f->comm.len) |
	       (uint64_t)s->nr_frames << 32;
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
	h = hash_bytes(k, need * 8, 0);
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
	f->tab[j] = (struct stack){ .hash = h, .count = 1, .key = f->nwords };
	f->nwords += need;
	f->n++;
}

/* A rendered line: its text at off in the arena, without the count. */
struct line {
	size_t off, len;
	uint64_t count;
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
		lines[n].off = sb.len;
		lines[n].count = f->tab[i].count;
		render_stack(rp, f, &sb, f->words + f->tab[i].key);
		lines[n].len = sb.len - 1 - lines[n].off;
		n++;
	}
	arena = sb.buf;
	m = n;
	if (rp->sym || f->merge) {
		/* merge the raw stacks that rendered the same */
		qsort_r(lines, n, sizeof(*lines), by_text, arena);
		for (i = 0, m = 0; i < n; i++) {
			if (m && lines[m - 1].len == lines[i].len &&
			    !memcmp(arena + lines[m - 1].off,
				    arena + lines[i].off, lines[i].len))
				lines[m - 1].count += lines[i].count;
			else
				lines[m++] = lines[i];
		}
	}
	qsort_r(lines, m, sizeof(*lines), by_count, arena);
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

int folded_each(struct report *rp, folded_fn fn, void *arg)
{
	struct rsample *s = xmalloc(sizeof(*s));
	struct fold f = { 0 };
	int ret;

	while ((ret = report_next_sample(rp, s)) > 0)
		fold_add(rp, &f, s);
	free(s);
	fold_lines(rp, &f, fn, arg);
	intern_free(&f.comms);
	sb_free(&f.comm);
	free(f.words);
	free(f.tab);
	return ret;
}
