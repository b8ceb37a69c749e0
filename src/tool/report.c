// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid report`: drive a format over a capture, and report errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "report.h"
#include "symbolize.h"

/*
 * Text needs every path and cgroup name before its first sample, and the
 * cgroup filter every cgroup name (a cgroup's record may follow samples
 * of it): read them first, then start again with the rings' tables and
 * what the capture says about itself forgotten (the END records would
 * count twice).
 */
static int collect_paths(struct report *rp)
{
	struct rsample *s = xmalloc(sizeof(*s));

	while (report_next_sample(rp, s) > 0)
		;
	free(s);
	memset(&rp->meta, 0, sizeof(rp->meta));
	bidtab_free(&rp->bids);
	deltas_free(&rp->deltas);
	return capture_rewind(rp->c);
}

static int (*const formats[])(struct report *) = {
	[FORMAT_TEXT] = text_report,
	[FORMAT_FOLDED] = folded_report,
	[FORMAT_PPROF] = pprof_report,
	[FORMAT_SVG] = flame_report,
};

int report_run(struct capture *c, const struct report_opts *o, FILE *out,
	       FILE *err)
{
	struct symbolizer_opts so = {
		.debug_dir = o->debug_dir,
		.debuginfod = o->debuginfod,
		.lines = o->lines,
		.no_demangle = o->no_demangle,
		.err = err,
	};
	struct report rp = {
		.o = o,
		.c = c,
		.out = out,
		.err = err,
		.r = {
			.offsets = o->offsets,
			.lines = o->lines,
			.folded = o->format == FORMAT_FOLDED ||
				  o->format == FORMAT_SVG,
		},
	};
	int ret = 0;

	if (o->symbols)
		rp.sym = rp.r.sym = o->sym ? o->sym : symbolizer_new(&so);
	if (o->format == FORMAT_TEXT || o->cgroup)
		ret = collect_paths(&rp);
	if (!ret)
		ret = formats[o->format](&rp);
	if (o->info) {
		o->info->wall_start_ns = report_wall_ns(&rp, c->hdr.start_ns);
		o->info->wall_end_ns = report_wall_ns(&rp, report_end_ns(&rp));
		o->info->freq_hz = rp.meta.freq_hz;
		o->info->samples = rp.meta.samples;
	}
	if (!o->sym)
		symbolizer_free(rp.sym);
	path_table_free(&rp.paths);
	bidtab_free(&rp.bids);
	deltas_free(&rp.deltas);
	intern_free(&rp.bid_nums);
	intern_free(&rp.ksym_nums);
	path_table_free(&rp.cgroups);
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
