/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `stackid report`: a capture as text or as folded stacks.
 *
 * Errors in the capture: what came before the first bad record is
 * reported (text: every good sample; folded: the aggregate of the good
 * samples), then the error goes to @err, naming the byte offset, and
 * report_run() returns EXIT_DATA.
 */
#ifndef STACKID_TOOL_REPORT_H
#define STACKID_TOOL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "capture.h"
#include "render.h"

enum report_format {
	FORMAT_TEXT,
	FORMAT_FOLDED,
};

struct report_opts {
	enum report_format format;
	bool symbols;		/* symbolize (else BUILDID+0xOFFSET) */
	bool offsets;		/* function+0xOFF */
	const char *debug_dir;	/* NULL: /usr/lib/debug */
	bool debuginfod;	/* use debuginfod if DEBUGINFOD_URLS is set */
};

/*
 * Report the capture @c (opened, header checked) to @out, errors to @err
 * as "stackid: NAME: message". Returns an exit status: EXIT_OK,
 * EXIT_DATA (bad capture), EXIT_SYSTEM (read or write error).
 */
int report_run(struct capture *c, const struct report_opts *o, FILE *out,
	       FILE *err);

/* What the formats share with the driver. */
struct report {
	const struct report_opts *o;
	struct capture *c;
	struct symbolizer *sym;	/* NULL without symbols */
	struct render r;
	FILE *out;
};

/*
 * The formats: read the records from the current position, write the
 * report. Return 0 at the clean end, or capture_next()'s error.
 */
int text_report(struct report *rp);
int folded_report(struct report *rp);

/* Feed a STACKID_REC_BUILD_ID_PATH record to the symbolizer, if any. */
void report_path_record(struct report *rp, const void *rec);

#endif /* STACKID_TOOL_REPORT_H */
