// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid report`: drive a format over a capture, and report errors.
 */
#include <errno.h>
#include <string.h>

#include "tool.h"
#include "report.h"
#include "symbolize.h"

void report_path_record(struct report *rp, const void *rec)
{
	const struct stackid_build_id_path *p = rec;

	if (rp->sym)
		symbolizer_add_path(rp->sym, p->build_id, p->build_id_len,
				    p->path);
}

/* Text needs every path before its first sample: read them first. */
static void collect_paths(struct report *rp)
{
	const struct stackid_record_hdr *h;
	const void *rec;
	uint64_t off;

	while (capture_next(rp->c, &rec, &off) > 0) {
		h = rec;
		if (h->type == STACKID_REC_BUILD_ID_PATH)
			report_path_record(rp, rec);
	}
}

int report_run(struct capture *c, const struct report_opts *o, FILE *out,
	       FILE *err)
{
	struct symbolizer_opts so = {
		.debug_dir = o->debug_dir,
		.debuginfod = o->debuginfod,
	};
	struct report rp = {
		.o = o,
		.c = c,
		.out = out,
		.r = {
			.offsets = o->offsets,
			.folded = o->format == FORMAT_FOLDED,
		},
	};
	int ret = 0;

	if (o->symbols)
		rp.sym = rp.r.sym = symbolizer_new(&so);
	if (rp.sym && o->format == FORMAT_TEXT) {
		collect_paths(&rp);
		ret = capture_rewind(c);
	}
	if (!ret)
		ret = o->format == FORMAT_FOLDED ? folded_report(&rp) :
						   text_report(&rp);
	symbolizer_free(rp.sym);
	errno = 0;
	if (fflush(out) || ferror(out)) {
		fprintf(err, "stackid: writing the report: %s\n",
			strerror(errno ? errno : EIO));
		return EXIT_SYSTEM;
	}
	if (ret) {
		fprintf(err, "stackid: %s: %s\n", c->name, c->err);
		return -ret;
	}
	return EXIT_OK;
}
