/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows the module's record layout: every report
 * format reads samples through report_next_sample(), which hands out a
 * normalized sample, feeds path records to the symbolizer and to the
 * table of file names, and keeps what the capture says about itself
 * (INFO and END records, see capture.h).
 *
 * When the module's records change (compact frames that refer to a
 * build-id table, kernel frames, a cgroup per sample), only this file
 * and struct rsample change; the formats do not.
 */
#ifndef STACKID_TOOL_DECODE_H
#define STACKID_TOOL_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <stackid.h>
#include "util.h"

struct report;

/*
 * One frame, normalized. A kernel frame (STACKID_FRAME_KERNEL) names its
 * function by kname and kmodule ("" for the kernel itself), both NULL
 * when the module could not name it; addr is the offset into it.
 */
struct rframe {
	uint8_t status;			/* enum stackid_frame_status */
	uint8_t reason;			/* enum stackid_ip_reason */
	uint8_t build_id_len;		/* valid: 1..20 */
	const unsigned char *build_id;	/* valid: until the next sample */
	unsigned int bid;		/* valid: the build-id's number in
					 * the capture, dense from 0;
					 * kernel, named: the function's
					 * number (name and module), dense
					 * from 0 */
	uint64_t addr;			/* valid: file offset; ip: address;
					 * kernel: offset into kname */
	const char *kname, *kmodule;	/* kernel: until the next sample */
	uint8_t how;			/* user frames: enum stackid_frame_how
					 * as the capture says (0 before ABI
					 * 2.2); may be >= STACKID_HOW_NR:
					 * name it with stackid_how_name() */
};

/* A comm as name_sanitize() makes it: 4 characters for a byte at most. */
/* escaped (4 bytes a byte at most), and [ ] around a kernel thread's */
#define RSAMPLE_COMM_MAX	(4 * STACKID_COMM_LEN + 2)

/*
 * One sample, normalized; frames innermost first, the first nr_kernel of
 * them kernel frames. Frame reasons are of the capture's ABI: name them
 * with report_reason_name().
 *
 * Every name in it (comm, cgroup path, kernel function and module) is
 * clean, as name_sanitize() makes it, and so are report_path_of()'s and
 * the symbolizer's: valid UTF-8 without control characters, whatever the
 * capture holds. The formats write them as they are.
 */
struct rsample {
	uint32_t flags;			/* STACKID_SF_* */
	uint32_t cpu, tgid, tid;
	uint64_t time_ns;		/* CLOCK_MONOTONIC */
	char comm[RSAMPLE_COMM_MAX + 1];	/* NUL-terminated, clean */
	uint64_t cgroup_id;		/* 0: none */
	const char *cgroup_path;	/* NULL: not named (yet) */
	unsigned int nr_frames, nr_kernel;
	uint8_t stop;			/* enum stackid_stop as the capture
					 * says (0: not said); may be >=
					 * STACKID_STOP_NR */
	struct rframe frames[STACKID_MAX_DEPTH];
};

/* What the capture said about itself, filled as records are read. */
struct capture_meta {
	bool has_info, has_end;
	uint64_t realtime_ns;		/* info: wall clock at start_ns */
	uint32_t freq_hz;		/* info: 0 not known */
	uint32_t seq;
	uint64_t run_id;
	uint64_t end_ns;		/* end: monotonic close time */
	uint32_t nr;			/* end: counters filled */
	uint64_t counters[STACKID_STATS_MAX];	/* summed over END records */
	uint64_t samples;		/* sample records read */
	uint64_t first_ns, last_ns;	/* sample times seen (samples > 0) */
};

/* Build-id -> the first path the capture gave for it, clean. */
struct path_table {
	struct intern ids;
	char **path;			/* by index in ids */
	unsigned int cap;
};

/*
 * The next sample into *@out: 1, 0 at the clean end of the capture, or
 * capture_next()'s negated error. Path, table, cgroup, info and end
 * records on the way are taken in. With a cgroup filter (report_opts),
 * only the samples of a cgroup the capture names at or below it come
 * out; meta counts only those.
 */
int report_next_sample(struct report *rp, struct rsample *out);

/* The name of frame reason @r of the capture's ABI ("?" if unknown). */
const char *report_reason_name(const struct report *rp, unsigned int r);

/* The path the capture gave for build-id @id, or NULL. */
const char *report_path_of(const struct report *rp, const unsigned char *id,
			   unsigned int len);

/*
 * The path the capture gave for cgroup @id (the first one), or NULL. A
 * cgroup's record may come after samples of it (it is written from
 * another CPU's ring): the formats that aggregate ask at the end.
 */
const char *report_cgroup_path(const struct report *rp, uint64_t id);

/*
 * Cgroup @id as a report shows it: its path, or "[cgroup ID]" if the
 * capture never named it, "[no cgroup]" for id 0.
 */
void report_cgroup_name(const struct report *rp, uint64_t id,
			struct strbuf *sb);

/*
 * Does cgroup path @path lie at or below @filter ("/a/b": itself and
 * "/a/b/..."; "/": every path)?
 */
bool cgroup_path_under(const char *path, const char *filter);

/* Wall-clock ns of monotonic @mono_ns, or 0 when the capture has no INFO. */
uint64_t report_wall_ns(const struct report *rp, uint64_t mono_ns);

/* Monotonic ns the capture ends: END's time, else the last sample's. */
uint64_t report_end_ns(const struct report *rp);

void path_table_free(struct path_table *t);

#endif /* STACKID_TOOL_DECODE_H */
