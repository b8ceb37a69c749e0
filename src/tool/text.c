// SPDX-License-Identifier: GPL-2.0
/*
 * --format text: one block per sample, in capture order:
 *
 *	SECONDS.MICROS cpu CPU COMM TGID/TID FLAGS [CGROUP]
 *		FUNCTION+0xOFF [kernel] kernel frames first, innermost first
 *		FRAME                   then the user frames, innermost first
 *		0xIP (REASON)           a frame left as a raw address
 *	(blank line)
 *
 * A user frame the module found other than by the frame pointer chain
 * (ABI 2.2) says how after it: [table] (an unwind table), [signal] (a
 * signal frame's saved registers), [regs] (but the innermost frame, for
 * which the registers are the rule), [how N] for a value this stackid
 * does not know. After the frames, a sample whose walk said why it ended
 * has a line "\t-- stop: REASON" (end, depth, fault, bad_fp, no_row,
 * bad_cfa; "stop N" when not known).
 *
 * SECONDS is relative to the capture's start; FLAGS is a comma-separated
 * list of user, truncated, compat, kernel (and the hex of unknown bits),
 * or "-". CGROUP, for a sample that carries a cgroup id: the cgroup's
 * path as the capture names it ("/system.slice/x.service"), or
 * "[cgroup ID]" if it never does.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "record.h"
#include "report.h"

static void add_time(struct strbuf *sb, uint64_t t, uint64_t start)
{
	uint64_t d = t >= start ? t - start : start - t;

	sb_addf(sb, "%s%" PRIu64 ".%06" PRIu64, t >= start ? "" : "-",
		d / 1000000000, d % 1000000000 / 1000);
}

static void add_flags(struct strbuf *sb, uint32_t flags)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ STACKID_SF_USER, "user" },
		{ STACKID_SF_TRUNCATED, "truncated" },
		{ STACKID_SF_COMPAT, "compat" },
		{ STACKID_SF_KERNEL, "kernel" },
		{ STACKID_SF_KTHREAD, "kthread" },
	};
	size_t start = sb->len, i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(flags & names[i].bit))
			continue;
		if (sb->len > start)
			sb_addc(sb, ',');
		sb_adds(sb, names[i].name);
		flags &= ~names[i].bit;
	}
	if (flags) {
		if (sb->len > start)
			sb_addc(sb, ',');
		sb_addf(sb, "%#" PRIx32, flags);
	}
	if (sb->len == start)
		sb_addc(sb, '-');
}

/* How a user frame was found, unless by frame pointer (or regs, first). */
static void add_how(struct strbuf *sb, uint8_t how, bool first)
{
	const char *n = stackid_how_name(how);

	if (how == STACKID_HOW_FP || (first && how == STACKID_HOW_REGS))
		return;
	if (n)
		sb_addf(sb, " [%s]", n);
	else
		sb_addf(sb, " [how %u]", how);
}

static void add_sample(struct report *rp, struct strbuf *sb,
		       const struct rsample *s)
{
	unsigned int i;

	add_time(sb, s->time_ns, rp->c->hdr.start_ns);
	sb_addf(sb, " cpu %" PRIu32 " ", s->cpu);
	render_comm(&rp->r, sb, s->comm);
	sb_addf(sb, " %" PRIu32 "/%" PRIu32 " ", s->tgid, s->tid);
	add_flags(sb, s->flags);
	if (s->cgroup_id) {
		struct strbuf cg = { 0 };

		report_cgroup_name(rp, s->cgroup_id, &cg);
		sb_addc(sb, ' ');
		render_str(&rp->r, sb, cg.buf, cg.len);
		sb_free(&cg);
	}
	sb_addc(sb, '\n');
	for (i = 0; i < s->nr_frames; i++) {
		const struct rframe *f = &s->frames[i];

		sb_addc(sb, '\t');
		render_frame(&rp->r, sb, f, i > 0);
		if (f->status == STACKID_FRAME_IP)
			sb_addf(sb, " (%s)", report_reason_name(rp, f->reason));
		if (i >= s->nr_kernel)
			add_how(sb, f->how, i == s->nr_kernel);
		sb_addc(sb, '\n');
	}
	if (s->stop) {
		const char *n = stackid_stop_name(s->stop);

		if (n)
			sb_addf(sb, "\t-- stop: %s\n", n);
		else
			sb_addf(sb, "\t-- stop %u\n", s->stop);
	}
	sb_addc(sb, '\n');
}

int text_report(struct report *rp)
{
	struct rsample *s = xmalloc(sizeof(*s));
	struct strbuf sb = { 0 };
	int ret;

	while ((ret = report_next_sample(rp, s)) > 0) {
		add_sample(rp, &sb, s);
		if (sb.len >= 1 << 16) {
			fwrite(sb.buf, 1, sb.len, rp->out);
			sb_reset(&sb);
		}
	}
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, rp->out);
	sb_free(&sb);
	free(s);
	return ret;
}
