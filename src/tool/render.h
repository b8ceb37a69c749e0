/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One frame, or a comm, as text:
 *   valid frame, unsymbolized    BUILDID+0xOFFSET   (lower-case hex)
 *   ip frame                     0xIP
 *   symbolized                   function, or function+0xOFF (offsets)
 *   valid frame, no symbol       [basename]+0xOFFSET if the capture
 *                                named the file, else BUILDID+0xOFFSET
 * Control characters, and ';' in folded output, are shown as '?'.
 */
#ifndef STACKID_TOOL_RENDER_H
#define STACKID_TOOL_RENDER_H

#include <stdbool.h>

#include <stackid.h>
#include "util.h"

struct symbolizer;

struct render {
	struct symbolizer *sym;	/* NULL: no symbols */
	bool offsets;		/* function+0xOFF */
	bool folded;		/* ';' separates frames */
};

/* @ret: not the innermost frame, so its address is a return address. */
void render_frame(const struct render *r, struct strbuf *sb,
		  const struct stackid_frame *f, bool ret);

/* A NUL-padded comm of STACKID_COMM_LEN bytes; "[unknown]" if empty. */
void render_comm(const struct render *r, struct strbuf *sb,
		 const char *comm);

#endif /* STACKID_TOOL_RENDER_H */
