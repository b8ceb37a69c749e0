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
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "capture.h"
#include "bidtab.h"
#include "deltas.h"
#include "decode.h"
#include "render.h"

enum report_format {
	FORMAT_TEXT,
	FORMAT_FOLDED,
	FORMAT_PPROF,
	FORMAT_SVG,
};

/* What report_run() learned about the capture, for `stackid push`. */
struct report_info {
	uint64_t wall_start_ns, wall_end_ns;	/* 0: no INFO record */
	uint32_t freq_hz;			/* 0: not known */
	uint64_t samples;
};

/*
 * `stackid push`'s pprof (pprof.c): sample labels only where asked (each
 * distinct label set is a series of the server), every frame named as
 * --format folded names it, the comm as the outermost frame, and one
 * profile per STEP seconds of the capture's wall-clock time, each given
 * to @part (from_s 0: the capture has no wall clock). @part returns 0,
 * or an exit status that stops the report.
 */
enum {
	PPROF_L_PID = 1, PPROF_L_TID = 2, PPROF_L_CPU = 4, PPROF_L_COMM = 8,
	PPROF_L_CGROUP = 16,
};
struct pprof_push {
	unsigned int labels;		/* PPROF_L_* */
	uint64_t step_s;		/* >= 1 */
	int (*part)(void *arg, uint64_t from_s, uint64_t until_s,
		    uint32_t hz, const void *gz, size_t len);
	void *arg;
};

struct symbolizer;

struct report_opts {
	enum report_format format;
	const struct pprof_push *push;	/* pprof for `stackid push` */
	struct report_info *info;	/* filled if set */
	bool symbols;		/* symbolize (else BUILDID+0xOFFSET) */
	bool offsets;		/* function+0xOFF */
	const char *debug_dir;	/* NULL: /usr/lib/debug */
	bool debuginfod;	/* use debuginfod if DEBUGINFOD_URLS is set */
	bool lines;		/* source lines, inlined functions */
	bool no_demangle;	/* C++ names as in the symbol table */
	const char *cgroup;	/* only samples at or below this cgroup path
				 * (normalized: "/", "/a/b"); NULL: all */
	bool by_cgroup;		/* folded, svg: the cgroup as the first frame */
	bool no_kthreads;	/* leave out kernel threads' samples */
	/*
	 * Non-NULL: once *stop is set (by a signal handler), no further
	 * record is read and the report fails with "stopped by a signal"
	 * (`stackid push`: nothing of that capture was handed out yet).
	 */
	const volatile sig_atomic_t *stop;
	/*
	 * Non-NULL, with symbols: the symbolizer to use, the caller's to
	 * keep and free (`stackid push` keeps one across captures, so that
	 * each file is read once, not once a capture); NULL: a new one.
	 */
	struct symbolizer *sym;
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
	FILE *err;
	struct path_table paths;	/* decode.c */
	struct bidtab bids;		/* decode.c: the rings' tables */
	struct deltas deltas;		/* ... and previous samples */
	struct intern bid_nums;		/* decode.c: build-id -> rframe.bid */
	struct intern ksym_nums;	/* decode.c: "name\0module" -> bid */
	struct path_table cgroups;	/* decode.c: cgroup id -> path */
	uint64_t cg_id;			/* decode.c: the last sample's */
	const char *cg_path;		/* cgroup, once the capture named it */
	struct capture_meta meta;	/* decode.c */
};

/*
 * The formats: read the samples from the current position with
 * report_next_sample(), write the report. Return 0 at the clean end, or
 * capture_next()'s error.
 */
int text_report(struct report *rp);
int folded_report(struct report *rp);
int pprof_report(struct report *rp);
int flame_report(struct report *rp);

/*
 * The folded aggregate, for the formats built on it: @fn gets each line
 * (without its count, not NUL-terminated) and its count, in the order
 * --format folded prints them. Returns as the formats do.
 */
typedef void (*folded_fn)(void *arg, const char *line, size_t len,
			  uint64_t count);
int folded_each(struct report *rp, folded_fn fn, void *arg);

#endif /* STACKID_TOOL_REPORT_H */
