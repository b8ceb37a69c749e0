// SPDX-License-Identifier: GPL-2.0
/*
 * One frame, or a comm, as text (see render.h).
 */
#include <string.h>

#include "render.h"
#include "symbolize.h"

/*
 * Append @s, with what would break a line of output as '?': names are
 * clean already (decode.h), this is for ';' in folded output.
 */
static void add_clean(const struct render *r, struct strbuf *sb,
		      const char *s, size_t n)
{
	size_t i, start = sb->len;

	sb_add(sb, s, n);
	for (i = start; i < sb->len; i++) {
		unsigned char c = sb->buf[i];

		if (c < 0x20 || c == 0x7f || (r->folded && c == ';'))
			sb->buf[i] = '?';
	}
}

static void add_line(const struct render *r, struct strbuf *sb,
		     const char *src, unsigned int line)
{
	if (!src || r->folded)
		return;
	sb_adds(sb, " (");
	add_clean(r, sb, src, strlen(src));
	if (line)
		sb_addf(sb, ":%u", line);
	sb_addc(sb, ')');
}

/* The function, and with lines the ones inlined in it. */
static void add_func(const struct render *r, struct strbuf *sb,
		     const struct sym *sym)
{
	unsigned int i, n = r->lines ? sym->ninline : 0;

	for (i = 0; !r->folded && i < n; i++) {
		add_clean(r, sb, sym->inl[i].func, strlen(sym->inl[i].func));
		add_line(r, sb, sym->inl[i].src, sym->inl[i].line);
		sb_adds(sb, " [inlined]\n\t");
	}
	add_clean(r, sb, sym->func, strlen(sym->func));
	if (r->offsets) {
		sb_addc(sb, '+');
		sb_addx(sb, sym->func_off);
	}
	if (r->lines)
		add_line(r, sb, sym->src, sym->line);
	for (i = n; r->folded && i-- > 0;) {
		sb_addc(sb, ';');
		add_clean(r, sb, sym->inl[i].func, strlen(sym->inl[i].func));
	}
}

/* A kernel frame: see render.h. */
static void add_kernel(const struct render *r, struct strbuf *sb,
		       const struct rframe *f)
{
	if (!f->kname) {
		sb_adds(sb, r->folded ? "[unknown]_[k]" : "[unknown] [kernel]");
		return;
	}
	add_clean(r, sb, f->kname, strlen(f->kname));
	if (r->offsets || !r->folded) {
		sb_addc(sb, '+');
		sb_addx(sb, f->addr);
	}
	if (*f->kmodule || !r->folded) {
		sb_adds(sb, " [");
		if (*f->kmodule)
			add_clean(r, sb, f->kmodule, strlen(f->kmodule));
		else
			sb_adds(sb, "kernel");
		sb_addc(sb, ']');
	}
	if (r->folded)
		sb_adds(sb, "_[k]");
}

void render_frame(const struct render *r, struct strbuf *sb,
		  const struct rframe *f, bool ret)
{
	struct sym sym;

	if (f->status == STACKID_FRAME_KERNEL) {
		add_kernel(r, sb, f);
		return;
	}
	if (f->status != STACKID_FRAME_VALID) {
		sb_addx(sb, f->addr);
		return;
	}
	if (r->sym) {
		symbolize(r->sym, f->build_id, f->build_id_len, f->addr, ret,
			  &sym);
		if (sym.func) {
			add_func(r, sb, &sym);
			return;
		}
		if (sym.file) {
			sb_addc(sb, '[');
			add_clean(r, sb, sym.file, strlen(sym.file));
			sb_adds(sb, "]+");
			sb_addx(sb, f->addr);
			return;
		}
	}
	sb_addhex(sb, f->build_id, f->build_id_len);
	sb_addc(sb, '+');
	sb_addx(sb, f->addr);
}

void render_str(const struct render *r, struct strbuf *sb, const char *s,
		size_t n)
{
	add_clean(r, sb, s, n);
}

void render_comm(const struct render *r, struct strbuf *sb,
		 const char *comm)
{
	size_t n = strlen(comm);

	if (!n)
		sb_adds(sb, "[unknown]");
	else
		add_clean(r, sb, comm, n);
}
