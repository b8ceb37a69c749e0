/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One frame, or a comm, as text:
 *   valid frame, unsymbolized    BUILDID+0xOFFSET   (lower-case hex)
 *   ip frame                     0xIP
 *   symbolized                   function, or function+0xOFF (offsets)
 *   valid frame, no symbol       [basename]+0xOFFSET if the capture
 *                                named the file, else BUILDID+0xOFFSET
 *   kernel frame, text           function+0xOFF [kernel] (or [MODULE])
 *   kernel frame, folded         function_[k], function [MODULE]_[k]
 *                                (offsets: function+0xOFF_[k], ...)
 *   kernel frame, not named      [unknown] [kernel]; folded [unknown]_[k]
 * Kernel frames are always named from the capture alone, symbols or not.
 * With lines, the functions inlined at the address become frames of their
 * own (folded: after their caller; text: before it, each on its line,
 * marked [inlined]), and text adds (file:line) where DWARF knows it.
 * Names come clean (decode.h: valid UTF-8, no control characters, bad
 * bytes as \xNN); ';' in folded output is shown as '?'.
 */
#ifndef STACKID_TOOL_RENDER_H
#define STACKID_TOOL_RENDER_H

#include <stdbool.h>

#include <stackid.h>
#include "decode.h"
#include "util.h"

struct symbolizer;

struct render {
	struct symbolizer *sym;	/* NULL: no symbols */
	bool offsets;		/* function+0xOFF */
	bool folded;		/* ';' separates frames */
	bool lines;		/* inlined functions as frames; text: and
				 * (file:line) after each */
};

/* @ret: not the innermost frame, so its address is a return address. */
void render_frame(const struct render *r, struct strbuf *sb,
		  const struct rframe *f, bool ret);

/* @n bytes of @s, control characters (and folded: ';') as '?'. */
void render_str(const struct render *r, struct strbuf *sb, const char *s,
		size_t n);

/* A comm as struct rsample has it; "[unknown]" if empty. */
void render_comm(const struct render *r, struct strbuf *sb,
		 const char *comm);

#endif /* STACKID_TOOL_RENDER_H */
