// SPDX-License-Identifier: GPL-2.0
/*
 * One frame, or a comm, as text (see render.h).
 */
#include <string.h>

#include "render.h"
#include "symbolize.h"

/* Append @s, with what would break a line of output as '?'. */
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

void render_frame(const struct render *r, struct strbuf *sb,
		  const struct stackid_frame *f, bool ret)
{
	struct sym sym;

	if (f->status != STACKID_FRAME_VALID) {
		sb_addx(sb, f->addr);
		return;
	}
	if (r->sym) {
		symbolize(r->sym, f->build_id, f->build_id_len, f->addr, ret,
			  &sym);
		if (sym.func) {
			add_clean(r, sb, sym.func, strlen(sym.func));
			if (r->offsets) {
				sb_addc(sb, '+');
				sb_addx(sb, sym.func_off);
			}
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

void render_comm(const struct render *r, struct strbuf *sb,
		 const char *comm)
{
	size_t n = strnlen(comm, STACKID_COMM_LEN);

	if (!n)
		sb_adds(sb, "[unknown]");
	else
		add_clean(r, sb, comm, n);
}
