// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind table compiler (cfi.h): DWARF call frame information to
 * STACKID_IOC_ADD_UNWIND rows.
 *
 * 1. The ELF headers (ELF64 x86-64 or ELF32 i386, read into the ELF64
 *    structures; struct arch: registers and word size): the executable
 *    PT_LOAD segments (the map from addresses to file offsets),
 *    .eh_frame (by its section, else by PT_GNU_EH_FRAME's
 *    .eh_frame_hdr), .debug_frame, .got (.got.plt on i386: the base of
 *    DW_EH_PE_datarel).
 * 2. Each FDE's CIE and instructions are run, the state at each location
 *    turned into a row (to_row()); an FDE gives a run of spans
 *    [lo, hi) -> row, at addresses.
 * 3. FDEs sorted by start (then by order: .eh_frame's first, each
 *    section in file order); one that overlaps an FDE before it keeps
 *    only what lies beyond it (the first wins).
 * 4. The spans mapped through the executable segments to file offsets,
 *    sorted again (first wins again), and written as rows: identical
 *    neighbours merged, a CFA_NONE row where a range ends and the next
 *    does not start at once.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elfnote.h"
#include "cfi.h"

/*
 * Where the bytes come from: a file (pread) or memory. A file's small
 * reads (headers, notes, section names: a dozen or more of them, most
 * near its start) are served from a window of SRC_WIN bytes read at
 * once, so that a small library costs one pread() instead of about
 * twenty (each a syscall, costly in a TCG guest); larger reads (the
 * sections) go straight to the file.
 */
#define SRC_WIN		(64U << 10)
#define SRC_SMALL	4096U
#define SRC_ALIGN	4096U
/* a small read from a window filled at its offset rounded down fits */
_Static_assert(SRC_SMALL + SRC_ALIGN - 1 <= SRC_WIN, "window too small");

struct src_win {
	unsigned char *buf;		/* SRC_WIN bytes, or NULL */
	uint64_t off;			/* file offset of buf[0] */
	size_t len;			/* bytes valid in buf */
	bool failed;			/* a fill failed: read directly */
};

struct src {
	int fd;
	const unsigned char *buf;
	uint64_t size;
	struct src_win *win;		/* a file's window, or NULL */
};

static int pread_all(int fd, unsigned char *o, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, o, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ERANGE;		/* shrunk under us */
		o += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int src_read(const struct src *s, uint64_t off, void *out, size_t len)
{
	struct src_win *w = s->win;
	uint64_t start;
	int ret;

	if (off > s->size || len > s->size - off)
		return -ERANGE;
	if (s->buf) {
		memcpy(out, s->buf + off, len);
		return 0;
	}
	if (!w || w->failed || len > SRC_SMALL)
		return pread_all(s->fd, out, len, off);
	if (!w->buf || off < w->off || off + len > w->off + w->len) {
		if (!w->buf) {
			w->buf = malloc(SRC_WIN);
			if (!w->buf)
				return pread_all(s->fd, out, len, off);
		}
		start = off & ~(uint64_t)(SRC_ALIGN - 1);
		w->off = start;
		w->len = s->size - start < SRC_WIN ? s->size - start : SRC_WIN;
		ret = pread_all(s->fd, w->buf, w->len, start);
		if (ret) {
			/*
			 * shrunk under us, perhaps not below these bytes: this
			 * read and the rest as without a window
			 */
			w->len = 0;
			w->failed = true;
			return pread_all(s->fd, out, len, off);
		}
	}
	memcpy(out, w->buf + (off - w->off), len);
	return 0;
}

static int note_read(void *ctx, u64 off, void *buf, u32 len)
{
	return src_read(ctx, off, buf, len);
}

#define MAX_XSEGS	64
#define MAX_PHDRS	256
#define MAX_SHDRS	32768
#define SHSTRTAB_MAX	(1U << 20)

struct seg {
	uint64_t vaddr, filesz, offset;
};

/* A section's bytes, where they are loaded, and which one it is. */
struct sec {
	unsigned char *data;
	uint64_t size, vaddr;
	bool debug;		/* .debug_frame: other CIE ids, pointers */
};

struct span {
	uint64_t lo, hi;
	struct stackid_unwind_row row;	/* start unused */
};

struct fde_run {
	uint64_t lo, hi;
	uint32_t seq;		/* order read: the tie-break */
	uint32_t first, n;	/* its spans */
};

struct cie {
	uint64_t off;		/* in its section; UINT64_MAX: none */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	bool z, signal;
	const unsigned char *ins, *ins_end;
};

#define CIE_CACHE	8

/* What differs between x86-64 and i386 files. */
struct arch {
	uint8_t bp, sp, ra;	/* DWARF register numbers */
	uint8_t word;		/* bytes: the ABI's words, addresses */
	uint8_t shift;		/* log2(word): the PLT expression's litN */
};

static const struct arch arch_x86_64 = { 6, 7, 16, 8, 3 };
static const struct arch arch_i386 = { 5, 4, 8, 4, 2 };

#define DW_OP_BREG(r)	(0x70U + (r))

struct ctx {
	struct cfi_table *t;
	const struct arch *a;
	struct seg xsegs[MAX_XSEGS];
	unsigned int nxsegs;
	uint64_t got;
	bool has_got;
	struct span *spans;
	size_t nspans, spans_cap;
	struct fde_run *runs;
	size_t nruns, runs_cap;
	uint64_t ops;		/* instructions run in all */
	uint32_t fdes_read;
	struct cie cache[CIE_CACHE];
	unsigned int cache_next;
	bool stop;		/* a global limit was hit */
	bool nomem;
};

/* A cursor over [p, end): reads fail (and stay failed) past the end. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get_n(struct cur *c, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t get_uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	unsigned char b;

	do {
		if (c->bad || c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			c->bad = true;		/* does not fit */
		shift += 7;
		if (shift > 70 && (b & 0x80)) {	/* no end in sight */
			c->bad = true;
			return 0;
		}
	} while (b & 0x80);
	return v;
}

static int64_t get_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	unsigned char b;

	do {
		if (c->bad || c->p >= c->end || shift > 63) {
			c->bad = true;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/*
 * A DW_EH_PE-encoded pointer at @c, which is at address @here. @rel:
 * apply the encoding's base (not for pc_range). Indirect pointers and
 * bases other than pcrel and datarel fail (the caller skips the FDE).
 */
static bool get_enc(struct ctx *x, struct cur *c, uint8_t enc, uint64_t here,
		    bool rel, uint64_t *out)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		v = get_n(c, x->a->word);
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		v = get_n(c, 8);
		break;
	case DW_EH_PE_uleb128:
		v = get_uleb(c);
		break;
	case DW_EH_PE_udata2:
		v = get_n(c, 2);
		break;
	case DW_EH_PE_sdata2:
		v = (uint64_t)(int64_t)(int16_t)get_n(c, 2);
		break;
	case DW_EH_PE_udata4:
		v = get_n(c, 4);
		break;
	case DW_EH_PE_sdata4:
		v = (uint64_t)(int64_t)(int32_t)get_n(c, 4);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)get_sleb(c);
		break;
	default:
		return false;
	}
	if (c->bad)
		return false;
	if (rel) {
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += here;
			break;
		case DW_EH_PE_datarel:
			if (!x->has_got)
				return false;
			v += x->got;
			break;
		default:
			return false;
		}
		if (enc & DW_EH_PE_indirect)
			return false;
	}
	if (x->a->word == 4)
		v &= 0xffffffff;	/* 32-bit addresses wrap */
	*out = v;
	return true;
}

/* Skip an encoded pointer (a personality routine's: indirect is fine). */
static bool skip_enc(struct cur *c, uint8_t enc, unsigned int word)
{
	if (enc == DW_EH_PE_omit)
		return true;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		get_n(c, word);
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		get_n(c, 8);
		break;
	case DW_EH_PE_uleb128:
		get_uleb(c);
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		get_n(c, 2);
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		get_n(c, 4);
		break;
	case DW_EH_PE_sleb128:
		get_sleb(c);
		break;
	default:
		return false;
	}
	return !c->bad;
}

/* An entry's frame: where its body is, and its CIE id / pointer. */
struct entry {
	uint64_t off;		/* in the section */
	uint64_t body;		/* offset of the id field */
	uint64_t end;		/* offset past the entry */
	uint64_t id;
	unsigned int idsz;	/* the id field: 4 bytes, 8 in 64-bit
				 * .debug_frame */
	bool is64, cie;
};

/*
 * The entry at @off: 1, 0 at the section's end (a zero terminator in
 * .eh_frame, or no room), -1 when its length is malformed (the rest of
 * the section cannot be found).
 */
static int entry_at(const struct sec *s, uint64_t off, struct entry *e)
{
	struct cur c = { s->data + off, s->data + s->size, false };
	uint64_t len;

	if (off >= s->size || s->size - off < 4)
		return 0;
	len = get_n(&c, 4);
	e->off = off;
	e->is64 = false;
	if (len == 0)
		return s->debug ? -1 : 0;
	if (len == 0xffffffff) {
		len = get_n(&c, 8);
		e->is64 = true;
	} else if (len >= 0xfffffff0) {
		return -1;
	}
	if (c.bad)
		return -1;
	e->body = (uint64_t)(c.p - s->data);
	if (len > s->size - e->body)
		return -1;
	e->end = e->body + len;
	e->idsz = s->debug && e->is64 ? 8 : 4;
	if (len < e->idsz)
		return -1;
	e->id = get_n(&c, e->idsz);
	if (s->debug)
		e->cie = e->is64 ? e->id == ~0ULL : e->id == 0xffffffff;
	else
		e->cie = e->id == 0;
	return 1;
}

/* Parse the CIE at @off of @s: true if it is one we can use. */
static bool parse_cie(const struct arch *a, const struct sec *s, uint64_t off,
		      struct cie *ci)
{
	struct entry e;
	struct cur c;
	const char *aug;
	size_t alen;
	unsigned int version, i;
	uint64_t zlen = 0;
	const unsigned char *zend = NULL;

	if (entry_at(s, off, &e) != 1 || !e.cie)
		return false;
	c.p = s->data + e.body + e.idsz;
	c.end = s->data + e.end;
	c.bad = false;
	memset(ci, 0, sizeof(*ci));
	ci->off = off;
	ci->fde_enc = DW_EH_PE_absptr;
	version = get_n(&c, 1);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return false;
	aug = (const char *)c.p;
	alen = strnlen(aug, c.end - c.p);
	if (alen == (size_t)(c.end - c.p) || alen > 16)
		return false;
	c.p += alen + 1;
	if (version == 4) {
		if (get_n(&c, 1) != a->word || get_n(&c, 1) != 0)
			return false;	/* address size, segment size */
	}
	ci->code_align = get_uleb(&c);
	ci->data_align = get_sleb(&c);
	ci->ra = version == 1 ? get_n(&c, 1) : get_uleb(&c);
	if (c.bad)
		return false;
	if (alen && aug[0] != 'z')
		return false;		/* "eh" and others: cannot skip them */
	if (alen) {
		ci->z = true;
		zlen = get_uleb(&c);
		if (c.bad || zlen > (uint64_t)(c.end - c.p))
			return false;
		zend = c.p + zlen;
		for (i = 1; i < alen; i++) {
			switch (aug[i]) {
			case 'R':
				ci->fde_enc = get_n(&c, 1);
				break;
			case 'P': {
				uint8_t penc = get_n(&c, 1);

				if (c.bad || !skip_enc(&c, penc, a->word))
					return false;
				break;
			}
			case 'L':
				get_n(&c, 1);
				break;
			case 'S':
				ci->signal = true;
				break;
			default:
				/* unknown: its data is within zlen */
				i = alen;
				break;
			}
			if (c.bad || c.p > zend)
				return false;
		}
		c.p = zend;
	}
	ci->ins = c.p;
	ci->ins_end = c.end;
	return true;
}

static const struct cie *get_cie(struct ctx *x, const struct sec *s,
				 uint64_t off)
{
	struct cie *ci;
	unsigned int i;

	for (i = 0; i < CIE_CACHE; i++) {
		ci = &x->cache[i];
		if (ci->off == off && ci->ins && ci->ins_end >= s->data &&
		    ci->ins_end <= s->data + s->size)
			return ci;
	}
	ci = &x->cache[x->cache_next];
	if (!parse_cie(x->a, s, off, ci)) {
		ci->off = UINT64_MAX;
		ci->ins = NULL;
		return NULL;
	}
	x->cache_next = (x->cache_next + 1) % CIE_CACHE;
	return ci;
}

/*
 * Register rules we follow: bp and the return address (x86-64: rbp 6,
 * ra 16; i386: ebp 5, eip 8).
 */
enum { RU_UNSPEC, RU_UNDEF, RU_SAME, RU_OFFSET, RU_AT_BP, RU_OTHER };
enum { CFA_BAD, CFA_REG, CFA_EXPR };

struct rrule {
	uint8_t how;
	int64_t off;
};

struct state {
	uint8_t cfa;		/* CFA_* */
	uint64_t reg;
	int64_t off;
	const unsigned char *expr;
	uint64_t expr_len;
	struct rrule bp, ra;
};

#define OFF_MAX		((int64_t)1 << 40)	/* beyond: not followed */

static struct rrule *rule_of(const struct arch *a, struct state *s,
			     uint64_t reg)
{
	if (reg == a->bp)
		return &s->bp;
	if (reg == a->ra)
		return &s->ra;
	return NULL;
}

/* @a * @b within OFF_MAX, else false. */
static bool scaled(int64_t a, int64_t b, int64_t *out)
{
	int64_t v;

	if (__builtin_mul_overflow(a, b, &v) || v > OFF_MAX || v < -OFF_MAX)
		return false;
	*out = v;
	return true;
}

/*
 * ld's PLT rule, an expression: DW_OP_breg(sp) N; DW_OP_breg(ra) 0;
 * lit15; and; litT; ge; litS; shl; plus, S log2 of the word (x86-64:
 * breg7, breg16, lit3; i386: breg4, breg8, lit2).
 */
static bool match_plt(const struct arch *a, const unsigned char *p,
		      uint64_t len, int64_t *n, int *thr)
{
	struct cur c = { p, p + len, false };

	if (get_n(&c, 1) != DW_OP_BREG(a->sp))
		return false;
	*n = get_sleb(&c);
	if (get_n(&c, 1) != DW_OP_BREG(a->ra) || get_sleb(&c) != 0 ||
	    get_n(&c, 1) != 0x3f || get_n(&c, 1) != 0x1a)	/* lit15 and */
		return false;
	*thr = (int)get_n(&c, 1) - 0x30;			/* litT */
	if (c.bad || *thr < 0 || *thr > 31)
		return false;
	if (get_n(&c, 1) != 0x2a ||				/* ge */
	    get_n(&c, 1) != 0x30U + a->shift ||			/* litS */
	    get_n(&c, 1) != 0x24 || get_n(&c, 1) != 0x22)	/* shl plus */
		return false;
	return !c.bad && c.p == c.end;
}

/* DW_OP_breg7 160; DW_OP_deref: the ucontext's saved rsp (__restore_rt). */
static bool match_signal(const unsigned char *p, uint64_t len)
{
	struct cur c = { p, p + len, false };

	if (get_n(&c, 1) != 0x77 || get_sleb(&c) != 160 ||
	    get_n(&c, 1) != 0x06)
		return false;
	return !c.bad && c.p == c.end;
}

/*
 * DW_OP_breg(bp) -N; DW_OP_deref: the CFA saved below bp (GCC's DRAP;
 * breg6 on x86-64, breg5 on i386).
 */
static bool match_bp_deref(const struct arch *a, const unsigned char *p,
			   uint64_t len, int64_t *n)
{
	struct cur c = { p, p + len, false };
	int64_t v;

	if (get_n(&c, 1) != DW_OP_BREG(a->bp))
		return false;
	v = get_sleb(&c);
	if (v < -OFF_MAX || v > OFF_MAX)
		return false;
	*n = -v;
	if (get_n(&c, 1) != 0x06)		/* DW_OP_deref */
		return false;
	return !c.bad && c.p == c.end;
}

static struct stackid_unwind_row to_row(const struct arch *a,
					const struct state *s,
					const struct cie *ci)
{
	struct stackid_unwind_row r = { 0 };
	int64_t n;
	int thr;

	if (ci->ra != a->ra)
		return r;
	/* i386's signal trampolines are the vDSO's, not a file's: the
	 * module has no CFA_SIGNAL for 32-bit tasks */
	if (ci->signal && a->word == 4)
		return r;
	if (s->ra.how == RU_UNDEF) {
		r.rule = STACKID_UW_CFA_END;
		return r;
	}
	if (ci->signal && s->cfa == CFA_EXPR &&
	    match_signal(s->expr, s->expr_len)) {
		r.rule = STACKID_UW_CFA_SIGNAL;
		return r;
	}
	if (s->ra.how != RU_OFFSET || s->ra.off != -(int64_t)a->word)
		return r;
	if (s->cfa == CFA_EXPR &&
	    match_bp_deref(a, s->expr, s->expr_len, &n)) {
		if (n < 0 || n > UINT16_MAX)
			return r;
		r.rule = STACKID_UW_CFA_BP_DEREF;
		r.cfa_off = n;
		goto bp;
	}
	if (s->cfa == CFA_EXPR) {
		if (!match_plt(a, s->expr, s->expr_len, &n, &thr) ||
		    n < 0 || n > UINT16_MAX ||
		    (s->bp.how != RU_UNSPEC && s->bp.how != RU_SAME))
			return r;
		r.rule = STACKID_UW_CFA_PLT;
		r.cfa_off = n;
		r.bp_off = thr;
		return r;
	}
	if (s->cfa != CFA_REG || s->off < 0 || s->off > UINT16_MAX)
		return r;
	if (s->reg == a->sp)
		r.rule = STACKID_UW_CFA_SP;
	else if (s->reg == a->bp)
		r.rule = STACKID_UW_CFA_BP;
	else
		return r;
	r.cfa_off = s->off;
bp:
	switch (s->bp.how) {
	case RU_UNSPEC:
	case RU_SAME:
		break;
	case RU_OFFSET:
		/* in words of the file's size */
		if (s->bp.off % a->word || s->bp.off / a->word < INT8_MIN ||
		    s->bp.off / a->word > INT8_MAX)
			return (struct stackid_unwind_row){ 0 };
		r.rule |= STACKID_UW_BP_SAVED;
		r.bp_off = s->bp.off / a->word;
		break;
	case RU_AT_BP:
		r.rule |= STACKID_UW_BP_AT_BP;
		break;
	default:
		return (struct stackid_unwind_row){ 0 };
	}
	return r;
}

static bool same_row(struct stackid_unwind_row a, struct stackid_unwind_row b)
{
	return a.rule == b.rule && a.cfa_off == b.cfa_off &&
	       a.bp_off == b.bp_off;
}

/* One more span of the FDE being run (merged into the last if the same). */
static void add_span(struct ctx *x, struct fde_run *run, uint64_t lo,
		     uint64_t hi, struct stackid_unwind_row row)
{
	struct span *sp;

	if (lo >= hi || x->stop)
		return;
	if (run->n) {
		sp = &x->spans[run->first + run->n - 1];
		if (sp->hi == lo && same_row(sp->row, row)) {
			sp->hi = hi;
			return;
		}
	}
	if (x->nspans >= STACKID_UW_MAX_ROWS) {
		x->stop = true;
		x->t->truncated = true;
		return;
	}
	if (x->nspans == x->spans_cap) {
		size_t cap = x->spans_cap ? x->spans_cap * 2 : 1024;
		struct span *n = realloc(x->spans, cap * sizeof(*n));

		if (!n) {
			x->stop = x->nomem = true;
			return;
		}
		x->spans = n;
		x->spans_cap = cap;
	}
	x->spans[x->nspans++] = (struct span){ lo, hi, row };
	run->n++;
}

/*
 * Run the instructions [@p, @end) from @s. With @run (an FDE's), rows
 * go to it as the location advances from *@loc up to @pc_end; without,
 * (a CIE's initial instructions) locations do not move. @init: the
 * state after the CIE's (DW_CFA_restore). Returns false if they could
 * not be followed to their end: then the state is not to be trusted.
 */
static bool run_ops(struct ctx *x, const struct cie *ci, const struct sec *sec,
		    const unsigned char *p, const unsigned char *end,
		    struct state *s, const struct state *init,
		    struct fde_run *run, uint64_t *loc, uint64_t pc_end,
		    uint8_t fde_enc)
{
	struct state stack[CFI_STATE_DEPTH];
	unsigned int depth = 0, nops = 0;
	struct cur c = { p, end, false };
	uint64_t reg, u, delta, nloc;
	int64_t v;
	struct rrule *rr;
	uint8_t op;

	while (c.p < c.end) {
		if (++nops > CFI_OPS_FDE_MAX)
			return false;
		if (++x->ops > CFI_OPS_MAX) {
			x->stop = true;
			x->t->truncated = true;
			return false;
		}
		op = get_n(&c, 1);
		delta = 0;
		nloc = 0;
		switch (op >> 6) {
		case 1:			/* DW_CFA_advance_loc */
			delta = op & 0x3f;
			goto advance;
		case 2:			/* DW_CFA_offset */
			reg = op & 0x3f;
			u = get_uleb(&c);
			goto offset_u;
		case 3:			/* DW_CFA_restore */
			reg = op & 0x3f;
			goto restore;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc: {
			uint64_t here = sec->vaddr + (uint64_t)(c.p - sec->data);

			if (!run || !get_enc(x, &c, fde_enc, here, true, &nloc) ||
			    nloc < *loc)
				return false;
			goto move;
		}
		case DW_CFA_advance_loc1:
			delta = get_n(&c, 1);
			goto advance;
		case DW_CFA_advance_loc2:
			delta = get_n(&c, 2);
			goto advance;
		case DW_CFA_advance_loc4:
			delta = get_n(&c, 4);
			goto advance;
		case DW_CFA_offset_extended:
			reg = get_uleb(&c);
			u = get_uleb(&c);
			goto offset_u;
		case DW_CFA_restore_extended:
			reg = get_uleb(&c);
			goto restore;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			reg = get_uleb(&c);
			if ((rr = rule_of(x->a, s, reg)))
				*rr = (struct rrule){ op == DW_CFA_undefined ?
						      RU_UNDEF : RU_SAME, 0 };
			break;
		case DW_CFA_register:
			reg = get_uleb(&c);
			get_uleb(&c);
			if ((rr = rule_of(x->a, s, reg)))
				*rr = (struct rrule){ RU_OTHER, 0 };
			break;
		case DW_CFA_remember_state:
			if (depth == CFI_STATE_DEPTH)
				return false;
			stack[depth++] = *s;
			break;
		case DW_CFA_restore_state:
			if (!depth)
				return false;
			*s = stack[--depth];
			break;
		case DW_CFA_def_cfa:
			s->reg = get_uleb(&c);
			u = get_uleb(&c);
			s->cfa = u <= (uint64_t)OFF_MAX ? CFA_REG : CFA_BAD;
			s->off = (int64_t)u;
			break;
		case DW_CFA_def_cfa_sf:
			s->reg = get_uleb(&c);
			s->cfa = scaled(get_sleb(&c), ci->data_align, &s->off) ?
				 CFA_REG : CFA_BAD;
			break;
		case DW_CFA_def_cfa_register:
			s->reg = get_uleb(&c);
			if (s->cfa == CFA_EXPR)
				s->cfa = CFA_BAD;
			break;
		case DW_CFA_def_cfa_offset:
			u = get_uleb(&c);
			if (s->cfa == CFA_REG && u <= (uint64_t)OFF_MAX)
				s->off = (int64_t)u;
			else
				s->cfa = CFA_BAD;
			break;
		case DW_CFA_def_cfa_offset_sf:
			if (s->cfa == CFA_REG &&
			    scaled(get_sleb(&c), ci->data_align, &v))
				s->off = v;
			else
				s->cfa = CFA_BAD;
			break;
		case DW_CFA_def_cfa_expression:
			u = get_uleb(&c);
			if (c.bad || u > (uint64_t)(c.end - c.p))
				return false;
			s->cfa = CFA_EXPR;
			s->expr = c.p;
			s->expr_len = u;
			c.p += u;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = get_uleb(&c);
			u = get_uleb(&c);
			if (c.bad || u > (uint64_t)(c.end - c.p))
				return false;
			/* bp at DW_OP_breg(bp) 0: realigning functions'
			 * save */
			if ((rr = rule_of(x->a, s, reg)))
				*rr = (struct rrule){ reg == x->a->bp &&
					op == DW_CFA_expression && u == 2 &&
					c.p[0] == DW_OP_BREG(x->a->bp) &&
					c.p[1] == 0 ?
					RU_AT_BP : RU_OTHER, 0 };
			c.p += u;
			break;
		case DW_CFA_offset_extended_sf:
			reg = get_uleb(&c);
			v = get_sleb(&c);
			goto offset_s;
		case DW_CFA_val_offset:
			reg = get_uleb(&c);
			get_uleb(&c);
			if ((rr = rule_of(x->a, s, reg)))
				*rr = (struct rrule){ RU_OTHER, 0 };
			break;
		case DW_CFA_val_offset_sf:
			reg = get_uleb(&c);
			get_sleb(&c);
			if ((rr = rule_of(x->a, s, reg)))
				*rr = (struct rrule){ RU_OTHER, 0 };
			break;
		case DW_CFA_GNU_args_size:
			get_uleb(&c);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = get_uleb(&c);
			u = get_uleb(&c);
			if (u > (uint64_t)OFF_MAX)
				v = INT64_MAX;
			else
				v = -(int64_t)u;
			goto offset_s;
		default:
			return false;	/* its operands' length is unknown */
		}
		if (c.bad)
			return false;
		continue;
offset_u:
		v = u > (uint64_t)OFF_MAX ? INT64_MAX : (int64_t)u;
offset_s:
		if (c.bad)
			return false;
		if ((rr = rule_of(x->a, s, reg))) {
			int64_t off;

			if (v != INT64_MAX && scaled(v, ci->data_align, &off))
				*rr = (struct rrule){ RU_OFFSET, off };
			else
				*rr = (struct rrule){ RU_OTHER, 0 };
		}
		continue;
restore:
		if (c.bad)
			return false;
		if ((rr = rule_of(x->a, s, reg)))
			*rr = init ? *rule_of(x->a, (struct state *)init, reg) :
				     (struct rrule){ RU_UNSPEC, 0 };
		continue;
advance:
		if (c.bad)
			return false;
		if (!run)
			continue;	/* a CIE: no location yet */
		if (__builtin_mul_overflow(delta, ci->code_align, &delta) ||
		    __builtin_add_overflow(*loc, delta, &nloc))
			nloc = UINT64_MAX;
move:
		if (nloc > pc_end)
			nloc = pc_end;	/* past the FDE's end: what is left */
		add_span(x, run, *loc, nloc, to_row(x->a, s, ci));
		*loc = nloc;
		if (nloc == pc_end)
			return true;	/* the rest can change nothing */
	}
	return !c.bad;
}

/* One FDE at @e of @sec: its rows as spans. */
static void do_fde(struct ctx *x, const struct sec *sec, const struct entry *e)
{
	const struct cie *ci;
	struct state init = { 0 }, s;
	struct fde_run run = { 0 };
	struct cur c;
	uint64_t cie_off, pc_begin, pc_range, pc_end, loc, here, zlen;
	uint64_t idpos = e->body;

	if (sec->debug) {
		cie_off = e->id;
	} else {
		if (e->id > idpos)
			goto bad;
		cie_off = idpos - e->id;
	}
	ci = get_cie(x, sec, cie_off);
	if (!ci)
		goto bad;
	c.p = sec->data + e->body + e->idsz;
	c.end = sec->data + e->end;
	c.bad = false;
	here = sec->vaddr + (uint64_t)(c.p - sec->data);
	if (!get_enc(x, &c, sec->debug ? DW_EH_PE_absptr : ci->fde_enc, here,
		     true, &pc_begin) ||
	    !get_enc(x, &c, sec->debug ? DW_EH_PE_absptr : ci->fde_enc, 0,
		     false, &pc_range))
		goto bad;
	if (ci->z) {
		zlen = get_uleb(&c);
		if (c.bad || zlen > (uint64_t)(c.end - c.p))
			goto bad;
		c.p += zlen;
	}
	if (!pc_range)
		return;
	if (__builtin_add_overflow(pc_begin, pc_range, &pc_end))
		goto bad;
	/* the CIE's initial state, then the FDE's rows */
	init.cfa = CFA_BAD;
	if (!run_ops(x, ci, sec, ci->ins, ci->ins_end, &init, NULL, NULL,
		     NULL, 0, 0))
		init.cfa = CFA_BAD, init.ra.how = RU_OTHER;
	s = init;
	loc = pc_begin;
	run.lo = pc_begin;
	run.hi = pc_end;
	run.seq = x->fdes_read;
	run.first = x->nspans;
	if (!run_ops(x, ci, sec, c.p, c.end, &s, &init, &run, &loc, pc_end,
		     ci->fde_enc)) {
		x->t->fdes_partial++;
		add_span(x, &run, loc, pc_end, (struct stackid_unwind_row){ 0 });
	} else {
		add_span(x, &run, loc, pc_end, to_row(x->a, &s, ci));
	}
	if (!run.n)
		return;
	if (x->nruns == x->runs_cap) {
		size_t cap = x->runs_cap ? x->runs_cap * 2 : 256;
		struct fde_run *n = realloc(x->runs, cap * sizeof(*n));

		if (!n) {
			x->stop = x->nomem = true;
			return;
		}
		x->runs = n;
		x->runs_cap = cap;
	}
	x->runs[x->nruns++] = run;
	if (sec->debug)
		x->t->fdes_debug++;
	return;
bad:
	x->t->fdes_bad++;
}

/* Every FDE of @sec. */
static void do_section(struct ctx *x, const struct sec *sec)
{
	struct entry e;
	uint64_t off = 0;
	unsigned int i;

	for (i = 0; i < CIE_CACHE; i++) {
		x->cache[i].off = UINT64_MAX;
		x->cache[i].ins = NULL;
	}
	while (!x->stop && entry_at(sec, off, &e) == 1) {
		if (!e.cie) {
			if (x->fdes_read >= CFI_FDE_MAX) {
				x->stop = x->t->truncated = true;
				break;
			}
			x->fdes_read++;
			do_fde(x, sec, &e);
		}
		off = e.end;
	}
}

static int cmp_run(const void *a, const void *b)
{
	const struct fde_run *p = a, *q = b;

	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Offset spans: sorted by start, then by the order they were made. */
struct ospan {
	uint64_t lo, hi;
	uint64_t seq;
	struct stackid_unwind_row row;
};

static int cmp_ospan(const void *a, const void *b)
{
	const struct ospan *p = a, *q = b;

	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *p = a, *q = b;

	return p->vaddr < q->vaddr ? -1 : p->vaddr > q->vaddr;
}

static bool put_row(struct cfi_table *t, size_t *cap, uint64_t start,
		    struct stackid_unwind_row r)
{
	if (t->nr_rows) {
		struct stackid_unwind_row *l = &t->rows[t->nr_rows - 1];

		if (same_row(*l, r))
			return true;
		if (l->start == start) {	/* an empty range: replace */
			*l = r;
			l->start = start;
			if (t->nr_rows > 1 && same_row(l[-1], r))
				t->nr_rows--;
			return true;
		}
	}
	if (t->nr_rows == *cap) {
		size_t n = *cap ? *cap * 2 : 1024;
		struct stackid_unwind_row *p;

		if (n > STACKID_UW_MAX_ROWS)
			n = STACKID_UW_MAX_ROWS;
		p = realloc(t->rows, n * sizeof(*p));
		if (!p)
			return false;
		t->rows = p;
		*cap = n;
	}
	r.start = start;
	t->rows[t->nr_rows++] = r;
	return true;
}

/* Steps 3 and 4: the FDEs' spans as rows. */
static int build_rows(struct ctx *x)
{
	struct cfi_table *t = x->t;
	struct ospan *os = NULL;
	size_t nos = 0, cap = 0, i, j, k, rcap = 0;
	uint64_t cov = 0, prev_hi = 0;
	bool any = false;
	static const struct stackid_unwind_row none = { 0 };

	if (!x->nruns)
		return -ENODATA;
	qsort(x->runs, x->nruns, sizeof(*x->runs), cmp_run);
	qsort(x->xsegs, x->nxsegs, sizeof(*x->xsegs), cmp_seg);
	for (i = 0; i < x->nruns; i++) {
		struct fde_run *r = &x->runs[i];
		bool mapped = false;

		if (any && r->hi <= cov) {
			t->fdes_overlap++;
			continue;
		}
		if (any && r->lo < cov)
			t->fdes_overlap++;
		for (j = r->first; j < r->first + r->n; j++) {
			struct span sp = x->spans[j];

			if (any && sp.lo < cov)
				sp.lo = cov;
			if (sp.lo >= sp.hi)
				continue;
			for (k = 0; k < x->nxsegs; k++) {
				const struct seg *g = &x->xsegs[k];
				uint64_t a = sp.lo > g->vaddr ? sp.lo : g->vaddr;
				uint64_t b = g->vaddr + g->filesz;

				if (b > sp.hi)
					b = sp.hi;
				if (a >= b)
					continue;
				a = a - g->vaddr + g->offset;
				b = b - g->vaddr + g->offset;
				if (a > UINT32_MAX)
					continue;
				if (b > UINT32_MAX)
					b = UINT32_MAX;
				if (a >= b)
					continue;
				if (nos == cap) {
					size_t n = cap ? cap * 2 : 1024;
					struct ospan *p = realloc(os, n * sizeof(*p));

					if (!p) {
						free(os);
						return -ENOMEM;
					}
					os = p;
					cap = n;
				}
				os[nos] = (struct ospan){ a, b, nos, sp.row };
				nos++;
				mapped = true;
			}
		}
		if (mapped)
			t->fdes++;
		else
			t->fdes_unmapped++;
		cov = r->hi;
		any = true;
	}
	if (!nos)
		return -ENODATA;
	qsort(os, nos, sizeof(*os), cmp_ospan);
	cov = 0;
	any = false;
	for (i = 0; i < nos; i++) {
		struct ospan sp = os[i];

		if (any && sp.lo < cov)
			sp.lo = cov;
		if (sp.lo >= sp.hi)
			continue;
		if (t->nr_rows >= STACKID_UW_MAX_ROWS - 2) {
			t->truncated = true;
			break;
		}
		if (any && sp.lo != prev_hi && !put_row(t, &rcap, prev_hi, none))
			goto nomem;
		if (!put_row(t, &rcap, sp.lo, sp.row))
			goto nomem;
		prev_hi = cov = sp.hi;
		any = true;
	}
	if (any && !put_row(t, &rcap, prev_hi, none))
		goto nomem;
	free(os);
	/* a table of CFA_NONE alone says nothing */
	for (i = 0; i < t->nr_rows; i++)
		if ((t->rows[i].rule & STACKID_UW_CFA_MASK) != STACKID_UW_CFA_NONE)
			return 0;
	free(t->rows);
	t->rows = NULL;
	t->nr_rows = 0;
	return -ENODATA;
nomem:
	free(os);
	return -ENOMEM;
}

/* A section's bytes, read whole. */
static int load_sec(const struct src *s, uint64_t off, uint64_t size,
		    uint64_t vaddr, bool debug, struct sec *out)
{
	int ret;

	if (size > CFI_SECTION_MAX)
		size = CFI_SECTION_MAX;		/* its FDEs beyond: lost */
	if (off > s->size)
		return -ENOEXEC;
	if (size > s->size - off)
		size = s->size - off;
	out->data = malloc(size ? size : 1);
	if (!out->data)
		return -ENOMEM;
	ret = src_read(s, off, out->data, size);
	if (ret) {
		free(out->data);
		out->data = NULL;
		return ret == -ERANGE ? -ENOEXEC : ret;
	}
	out->size = size;
	out->vaddr = vaddr;
	out->debug = debug;
	return 0;
}

/* .eh_frame found through PT_GNU_EH_FRAME: its address, or false. */
static bool eh_frame_by_hdr(struct ctx *x, const struct src *s,
			    const Elf64_Phdr *ph, uint64_t *vaddr)
{
	unsigned char hdr[12];
	struct cur c = { hdr, hdr + sizeof(hdr), false };

	if (ph->p_filesz < 8 || src_read(s, ph->p_offset, hdr,
					 ph->p_filesz < 12 ? 8 : 12))
		return false;
	if (get_n(&c, 1) != 1)
		return false;
	{
		uint8_t enc = get_n(&c, 1);

		get_n(&c, 2);	/* fde_count and table encodings */
		return get_enc(x, &c, enc, ph->p_vaddr + 4, true, vaddr);
	}
}

/* The ELF header's fields we use, of either class. */
struct ehdr {
	uint64_t phoff, shoff;
	uint16_t machine, phentsize, phnum, shentsize, shnum, shstrndx;
	bool is32;
};

static int read_ehdr(const struct src *s, struct ehdr *e)
{
	unsigned char id[EI_NIDENT];

	if (src_read(s, 0, id, EI_NIDENT) || memcmp(id, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if ((id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32))
		return -ENOEXEC;
	if (id[EI_DATA] != ELFDATA2LSB)
		return -ENOTSUP;
	e->is32 = id[EI_CLASS] == ELFCLASS32;
	if (e->is32) {
		Elf32_Ehdr h;

		if (src_read(s, 0, &h, sizeof(h)))
			return -ENOEXEC;
		*e = (struct ehdr){ h.e_phoff, h.e_shoff, h.e_machine,
			h.e_phentsize, h.e_phnum, h.e_shentsize, h.e_shnum,
			h.e_shstrndx, true };
	} else {
		Elf64_Ehdr h;

		if (src_read(s, 0, &h, sizeof(h)))
			return -ENOEXEC;
		*e = (struct ehdr){ h.e_phoff, h.e_shoff, h.e_machine,
			h.e_phentsize, h.e_phnum, h.e_shentsize, h.e_shnum,
			h.e_shstrndx, false };
	}
	if (e->machine != (e->is32 ? EM_386 : EM_X86_64))
		return -ENOTSUP;
	return 0;
}

/* @n program headers at @off, as Elf64_Phdr whatever the class. */
static int read_phdrs(const struct src *s, const struct ehdr *e,
		      Elf64_Phdr *ph)
{
	unsigned int i;

	if (!e->phnum)
		return 0;
	if (!e->is32)
		return src_read(s, e->phoff, ph, e->phnum * sizeof(*ph)) ?
		       -ENOEXEC : 0;
	for (i = 0; i < e->phnum; i++) {
		Elf32_Phdr p;

		if (src_read(s, e->phoff + (uint64_t)i * sizeof(p), &p,
			     sizeof(p)))
			return -ENOEXEC;
		ph[i] = (Elf64_Phdr){ .p_type = p.p_type, .p_flags = p.p_flags,
			.p_offset = p.p_offset, .p_vaddr = p.p_vaddr,
			.p_paddr = p.p_paddr, .p_filesz = p.p_filesz,
			.p_memsz = p.p_memsz, .p_align = p.p_align };
	}
	return 0;
}

/* The section headers, as Elf64_Shdr: 0, -ENOMEM, or -ENOEXEC. */
static int read_shdrs(const struct src *s, const struct ehdr *e,
		      Elf64_Shdr *sh)
{
	Elf32_Shdr *s32;
	unsigned int i;

	if (!e->is32)
		return src_read(s, e->shoff, sh, e->shnum * sizeof(*sh)) ?
		       -ENOEXEC : 0;
	s32 = malloc(e->shnum * sizeof(*s32));
	if (!s32)
		return -ENOMEM;
	if (src_read(s, e->shoff, s32, e->shnum * sizeof(*s32))) {
		free(s32);
		return -ENOEXEC;
	}
	for (i = 0; i < e->shnum; i++)
		sh[i] = (Elf64_Shdr){ .sh_name = s32[i].sh_name,
			.sh_type = s32[i].sh_type, .sh_flags = s32[i].sh_flags,
			.sh_addr = s32[i].sh_addr,
			.sh_offset = s32[i].sh_offset,
			.sh_size = s32[i].sh_size };
	free(s32);
	return 0;
}

static int compile(const struct src *s, struct cfi_table *t,
		   const uint8_t *want, size_t want_len)
{
	struct stackid_elf_src es = { note_read, (void *)s };
	struct ctx *x;
	struct ehdr eh;
	Elf64_Phdr *ph = NULL;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	struct sec secs[2] = { { 0 } };
	unsigned int nsecs = 0, i;
	const Elf64_Phdr *ehp = NULL;
	uint64_t namesz = 0, got_plt = 0;
	bool has_got_plt = false;
	u32 bidlen = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (s->size > CFI_FILE_MAX)
		return -EFBIG;
	ret = read_ehdr(s, &eh);
	if (ret)
		return ret;
	t->elf32 = eh.is32;
	if (!stackid_elf_build_id(&es, t->build_id, &bidlen))
		t->build_id_len = bidlen;
	if (want && (t->build_id_len != want_len ||
		     memcmp(t->build_id, want, want_len)))
		return -ESTALE;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->t = t;
	x->a = eh.is32 ? &arch_i386 : &arch_x86_64;
	ret = -ENOEXEC;
	/* executable segments */
	if (eh.phnum > MAX_PHDRS || (eh.phnum && eh.phentsize !=
		(eh.is32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr))))
		goto out;
	ph = malloc((eh.phnum + 1) * sizeof(*ph));
	if (!ph) {
		ret = -ENOMEM;
		goto out;
	}
	if (read_phdrs(s, &eh, ph))
		goto out;
	for (i = 0; i < eh.phnum; i++) {
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			ehp = &ph[i];
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
		    !ph[i].p_filesz || x->nxsegs == MAX_XSEGS)
			continue;
		if (ph[i].p_vaddr + ph[i].p_filesz < ph[i].p_vaddr ||
		    ph[i].p_offset + ph[i].p_filesz < ph[i].p_offset)
			continue;
		x->xsegs[x->nxsegs++] = (struct seg){ ph[i].p_vaddr,
			ph[i].p_filesz, ph[i].p_offset };
	}
	/* sections: .eh_frame, .debug_frame, .got (.got.plt on i386) */
	if (eh.shnum && eh.shentsize == (eh.is32 ? sizeof(Elf32_Shdr) :
					 sizeof(Elf64_Shdr)) &&
	    eh.shnum <= MAX_SHDRS && eh.shstrndx < eh.shnum) {
		sh = malloc(eh.shnum * sizeof(*sh));
		if (!sh) {
			ret = -ENOMEM;
			goto out;
		}
		ret = read_shdrs(s, &eh, sh);
		if (ret == -ENOMEM)
			goto out;
		if (ret) {
			free(sh);
			sh = NULL;
		}
		ret = -ENOEXEC;
	}
	if (sh && sh[eh.shstrndx].sh_type != SHT_NOBITS) {
		namesz = sh[eh.shstrndx].sh_size;
		if (namesz > SHSTRTAB_MAX)
			namesz = SHSTRTAB_MAX;
		names = malloc(namesz + 1);
		if (!names) {
			ret = -ENOMEM;
			goto out;
		}
		if (src_read(s, sh[eh.shstrndx].sh_offset, names, namesz))
			namesz = 0;
		names[namesz] = 0;
	}
	for (i = 0; names && i < eh.shnum; i++) {
		const char *n;

		if (sh[i].sh_name >= namesz || sh[i].sh_type == SHT_NOBITS)
			continue;
		n = names + sh[i].sh_name;
		if (!strcmp(n, ".got")) {
			x->got = sh[i].sh_addr;
			x->has_got = true;
		} else if (!strcmp(n, ".got.plt")) {
			got_plt = sh[i].sh_addr;
			has_got_plt = true;
		}
	}
	/* i386's DW_EH_PE_datarel base is DT_PLTGOT (libgcc's dbase) */
	if (eh.is32 && has_got_plt) {
		x->got = got_plt;
		x->has_got = true;
	}
	for (i = 0; names && i < eh.shnum && nsecs < 2; i++) {
		const char *n;
		bool debug;

		if (sh[i].sh_name >= namesz || sh[i].sh_type == SHT_NOBITS ||
		    (sh[i].sh_flags & SHF_COMPRESSED))
			continue;
		n = names + sh[i].sh_name;
		debug = !strcmp(n, ".debug_frame");
		if (strcmp(n, ".eh_frame") && !debug)
			continue;
		if (nsecs && secs[0].debug == debug)
			continue;	/* a second one of a kind */
		ret = load_sec(s, sh[i].sh_offset, sh[i].sh_size,
			       sh[i].sh_addr, debug, &secs[nsecs]);
		if (ret == -ENOMEM || ret == -EIO)
			goto out;
		if (!ret) {
			if (debug)
				t->debug_frame = true;
			else
				t->eh_frame = true;
			nsecs++;
		}
	}
	if (!t->eh_frame && ehp && nsecs < 2) {
		uint64_t va;

		/* no section headers: .eh_frame by its header, up to the
		 * end of the segment that holds it */
		for (i = 0; i < eh.phnum; i++) {
			const Elf64_Phdr *p = &ph[i];

			if (p->p_type != PT_LOAD || !eh_frame_by_hdr(x, s, ehp, &va) ||
			    va < p->p_vaddr || va - p->p_vaddr >= p->p_filesz)
				continue;
			ret = load_sec(s, va - p->p_vaddr + p->p_offset,
				       p->p_filesz - (va - p->p_vaddr), va, false,
				       &secs[nsecs]);
			if (ret == -ENOMEM)
				goto out;
			if (!ret) {
				t->eh_frame = true;
				nsecs++;
			}
			break;
		}
	}
	ret = -ENODATA;
	if (!nsecs)
		goto out;
	/* .eh_frame first: at the same start, its FDEs win */
	if (nsecs == 2 && secs[0].debug) {
		struct sec tmp = secs[0];

		secs[0] = secs[1];
		secs[1] = tmp;
	}
	for (i = 0; i < nsecs; i++)
		do_section(x, &secs[i]);
	if (x->nomem) {
		ret = -ENOMEM;
		goto out;
	}
	ret = build_rows(x);
out:
	for (i = 0; i < 2; i++)
		free(secs[i].data);
	free(x->spans);
	free(x->runs);
	free(x);
	free(ph);
	free(sh);
	free(names);
	if (ret) {
		free(t->rows);
		t->rows = NULL;
		t->nr_rows = 0;
	}
	return ret;
}

int cfi_compile_fd_id(int fd, const uint8_t *id, size_t id_len,
		      struct cfi_table *t)
{
	struct stat st;
	struct src_win w = { 0 };
	struct src s = { .fd = fd, .win = &w };
	int ret;

	memset(t, 0, sizeof(*t));
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	s.size = st.st_size;
	ret = compile(&s, t, id, id_len);
	free(w.buf);
	return ret;
}

int cfi_compile_fd(int fd, struct cfi_table *t)
{
	return cfi_compile_fd_id(fd, NULL, 0, t);
}

int cfi_compile_buf(const void *buf, size_t len, struct cfi_table *t)
{
	struct src s = { .fd = -1, .buf = buf, .size = len };

	return compile(&s, t, NULL, 0);
}

void cfi_table_free(struct cfi_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nr_rows = 0;
}

const struct stackid_unwind_row *cfi_lookup(const struct cfi_table *t,
					    uint64_t off)
{
	uint32_t lo = 0, hi = t->nr_rows;

	if (!hi || off < t->rows[0].start)
		return NULL;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

void cfi_rule_name(uint8_t rule, char buf[16])
{
	static const char *const cfa[] = {
		"none", "sp", "bp", "plt", "signal", "end", "bpderef",
	};
	unsigned int k = rule & STACKID_UW_CFA_MASK;

	strcpy(buf, k < sizeof(cfa) / sizeof(cfa[0]) ? cfa[k] : "?");
	if ((rule & STACKID_UW_BP_MASK) == STACKID_UW_BP_SAVED)
		strcat(buf, "+bp");
	else if ((rule & STACKID_UW_BP_MASK) == STACKID_UW_BP_AT_BP)
		strcat(buf, "+bpatbp");
	else if (rule & STACKID_UW_BP_MASK)
		strcat(buf, "+?");
}

const char *cfi_strerror(int err)
{
	switch (err) {
	case -ENOEXEC:
		return "not an ELF file, or malformed";
	case -ENOTSUP:
		return "not an x86-64 ELF64 or i386 ELF32 file";
	case -ENODATA:
		return "no call frame information for its code";
	case -EFBIG:
		return "file too large";
	case -ESTALE:
		return "not the build-id expected";
	default:
		return strerror(-err);
	}
}
