// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`, what it tells: the live status line, and the module's
 * statistics at the end (the change of each counter over the recording,
 * with the accounting identity checked).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "record.h"
#include "tool.h"
#include "rec.h"

static uint64_t rec_drops(const struct stackid_stats *st)
{
	uint64_t d = 0;
	unsigned int i;

	for (i = 0; i < st->nr && i < STACKID_STATS_MAX; i++)
		if (stackid_stat_is_drop(i))
			d += st->counters[i];
	return d;
}

void rec_show_status(struct rec *r, uint64_t now)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	double secs = (now - r->start) / 1e9;

	if (r->ops->ioctl(r->fd, STACKID_IOC_GET_STATS, &st) == 0)
		r->drops = rec_drops(&st) - rec_drops(&r->base);
	fprintf(r->err, "\rrecording: %7.1f s %10" PRIu64 " records %9.0f "
		"records/s %8" PRIu64 " drops", secs, r->records,
		secs > 0 ? r->records / secs : 0.0, r->drops);
	if (r->rotating)
		fprintf(r->err, " %6" PRIu64 " files", r->cd.closed + 1);
	fputc(' ', r->err);
	fflush(r->err);
	r->status_shown = true;
	r->last_status = now;
}

void rec_clear_status(struct rec *r)
{
	if (!r->status_shown)
		return;
	fprintf(r->err, "\r%90s\r", "");
	fflush(r->err);
}

/*
 * Samples of this recording deferred to their task and not delivered (or
 * dropped) yet: how many more are in flight than at @base. Negative when
 * samples of an earlier recording finished meanwhile.
 */
int64_t rec_in_flight(const struct stackid_stats *st,
			 const struct stackid_stats *base)
{
	if (st->nr <= STACKID_STAT_DEFERRED_DONE)
		return 0;
	return (int64_t)(st->counters[STACKID_STAT_DEFERRED] -
			 base->counters[STACKID_STAT_DEFERRED]) -
	       (int64_t)(st->counters[STACKID_STAT_DEFERRED_DONE] -
			 base->counters[STACKID_STAT_DEFERRED_DONE]);
}

/*
 * Samples of this recording still in their task's context: as
 * rec_in_flight(), less the samples of earlier recordings that finished
 * meanwhile (each is dropped as stale: this recording's ENABLE began a
 * new session, and the device has one reader).
 */
int64_t rec_own_in_flight(const struct stackid_stats *st,
			  const struct stackid_stats *base)
{
	int64_t f = rec_in_flight(st, base);

	if (st->nr > STACKID_STAT_DROP_STALE)
		f += st->counters[STACKID_STAT_DROP_STALE] -
		     base->counters[STACKID_STAT_DROP_STALE];
	return f;
}

/*
 * How far the samples taken so far got: delivered, finished in their
 * task, or dropped. Each term only grows, so two equal values mean
 * none of them changed in between.
 */
uint64_t rec_progress(const struct stackid_stats *st)
{
	uint64_t p = rec_drops(st) + st->counters[STACKID_STAT_DELIVERED];

	if (st->nr > STACKID_STAT_DEFERRED_DONE)
		p += st->counters[STACKID_STAT_DEFERRED_DONE];
	return p;
}

/* The counters' change over the recording. */
void rec_print_stats(struct rec *r, const struct stackid_stats *st)
{
	uint64_t drops = 0, c;
	unsigned int i, nr = st->nr < STACKID_STAT_NR ? st->nr : STACKID_STAT_NR;
	const char *name;

	for (i = 0; i < nr; i++) {
		c = st->counters[i] - r->base.counters[i];
		name = stackid_stat_name(i);
		if (!name)
			continue;
		if (stackid_stat_is_drop(i))
			drops += c;
		/* samples, delivered and frames_valid always; others if set */
		if (c || i == STACKID_STAT_SAMPLES ||
		    i == STACKID_STAT_DELIVERED ||
		    i == STACKID_STAT_FRAMES_VALID)
			fprintf(r->err, "  %-24s %12" PRIu64 "\n", name, c);
	}
	if (nr > STACKID_STAT_DROP_USER_WORKER) {
		uint64_t s = st->counters[STACKID_STAT_SAMPLES] -
			     r->base.counters[STACKID_STAT_SAMPLES];
		uint64_t d = st->counters[STACKID_STAT_DELIVERED] -
			     r->base.counters[STACKID_STAT_DELIVERED];
		int64_t f = rec_in_flight(st, &r->base);
		bool ok = s == d + drops + f;

		fprintf(r->err, "  %-24s %12s  samples %" PRIu64 " %s "
			"delivered %" PRIu64 " + dropped %" PRIu64 "%s\n",
			"accounting", ok ? (f > 0 ? "in flight" : "ok") :
			"BROKEN", s, ok ? "==" : "!=", d, drops,
			f > 0 ? " + still in their task's context" :
			f < 0 ? " - finished from an earlier recording" : "");
		if (f > 0)
			fprintf(r->err, "  %-24s %12" PRId64 "  samples whose "
				"task has not returned to user space yet\n",
				"in flight", f);
		if (r->samples + r->deltas_lost != d)
			fprintf(r->err, "  %-24s %12s  %" PRIu64 " samples "
				"read, %" PRIu64 " delivered\n", "samples read",
				"MISMATCH", r->samples + r->deltas_lost, d);
	}
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " samples, %"
		PRIu64 " build-id paths, %" PRIu64 " build-id indices)\n",
		"records written", r->records, r->samples, r->paths, r->nbids);
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%s)\n", "bytes written",
		r->bytes, r->out_name);
	if (r->skips) {
		fprintf(r->err, "  %-24s %12" PRIu64 "  (%" PRIu64 " times: "
			"data that was not records, skipped; marked in the "
			"capture", "bytes skipped", r->skipped, r->skips);
		if (r->skips_module)
			fprintf(r->err, "; %" PRIu64 " of them by the module, "
				"bytes not known", r->skips_module);
		fprintf(r->err, ")\n");
	}
	if (r->deltas_lost)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (delta samples read "
			"whose previous sample in their ring was skipped: not "
			"written; marked in the capture)\n", "samples lost",
			r->deltas_lost);
	if (!r->rotating)
		return;
	fprintf(r->err, "  %-24s %12" PRIu64 "  (%u in %s now)\n",
		"files written", r->cd.closed, r->cd.n, r->o->dir);
	if (r->cd.deleted)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (oldest first, to "
			"keep the bound)\n", "files deleted", r->cd.deleted);
	if (r->cd.undeletable)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (could not be deleted: "
			"their bytes still count)\n", "files not deleted",
			r->cd.undeletable);
	if (r->lost)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (no room under "
			"--max-size)\n", "records lost", r->lost);
	if (r->rp.not_kept)
		fprintf(r->err, "  %-24s %12" PRIu64 "  (path and cgroup records "
			"beyond %u MiB: later files do not name them)\n",
			"paths not kept", r->rp.not_kept, REPLAY_KEEP_MAX >> 20);
}
