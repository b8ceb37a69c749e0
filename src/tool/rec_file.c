// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`, the file side: the capture's header, INFO and END
 * records, the records read from the device written on, and in
 * continuous mode the files of the capture directory (capdir.c), each
 * with what its samples need to read alone (rec_replay.c).
 *
 * Records are checked one by one before they are written: one that fails
 * its check (or claims another ABI, or a type of the command's own) is
 * skipped, counted and said in the capture (CAPTURE_REC_SKIPPED), so
 * that a capture always reads back. Whole records are gathered in
 * r->pend and written in blocks; after an error the file is cut back to
 * its last whole record and kept (rec_keep_on_error()).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "record.h"
#include "bidtab.h"
#include "tool.h"
#include "capdir.h"
#include "capture.h"
#include "rec.h"
#include "util.h"

int rec_open_output(struct rec *r)
{
	struct stat st;

	if (r->rotating) {
		r->out_name = r->o->dir;
		return capdir_init(&r->cd, r->o->dir, r->o->keep,
				   r->o->max_size, r->err);
	}
	if (!strcmp(r->o->out, "-")) {
		r->out = STDOUT_FILENO;
		r->out_name = "standard output";
		return 0;
	}
	r->out_name = r->o->out;
	/* every user's process names, paths and cgroups: owner only */
	r->out = open(r->o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0600);
	if (r->out < 0) {
		fprintf(r->err, "stackid: %s: %s\n", r->o->out,
			strerror(errno));
		return EXIT_SYSTEM;
	}
	/* an existing file keeps its mode through O_TRUNC: not ours */
	if (!fstat(r->out, &st) && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 077))
		fchmod(r->out, st.st_mode & 0700);
	return 0;
}

static int out_fd(const struct rec *r)
{
	return r->rotating ? r->cd.fd : r->out;
}

int rec_write_all(struct rec *r, const void *p, size_t n)
{
	const unsigned char *b = p;
	ssize_t w;

	while (n) {
		w = write(out_fd(r), b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(r->err, "stackid: writing %s: %s\n",
				r->rotating ? r->cd.tmp : r->out_name,
				strerror(errno));
			return EXIT_SYSTEM;
		}
		b += w;
		n -= w;
		r->bytes += w;
		r->fbytes += w;
		r->cd.cur += w;
	}
	r->fgood = r->fbytes;
	return 0;
}

static int flush(struct rec *r)
{
	int ret = 0;

	if (r->pend.len)
		ret = rec_write_all(r, r->pend.buf, r->pend.len);
	sb_reset(&r->pend);
	return ret;
}

/* Count one record of the module's. */
static void count(struct rec *r, const struct stackid_record_hdr *h)
{
	r->records++;
	if (stackid_is_sample(h->type) || h->type == STACKID_REC_SAMPLE_DELTA)
		r->samples++;
	else if (h->type == STACKID_REC_BUILD_ID_PATH)
		r->paths++;
	else if (h->type == STACKID_REC_BUILD_ID)
		r->nbids++;
}

static void tool_hdr(struct rec *r, struct stackid_record_hdr *h,
		     uint16_t type, uint32_t size)
{
	h->size = size;
	h->type = type;
	h->abi_major = r->abi >> 16;
}

int rec_begin_file(struct rec *r, uint64_t start, uint64_t wall)
{
	struct capture_info in = { .seq = r->seq++, .run_id = r->run_id };
	struct capture_hdr hdr;
	int ret;

	if (r->rotating) {
		ret = capdir_create(&r->cd, wall);
		if (ret)
			return ret;
		replay_file_start(&r->rp);
		/*
		 * The header, and the END that closes it, within --max-size
		 * too: a file begun by the rotation timer is written before
		 * any record asks for room, and the closed files may fill
		 * the bound to its last bytes.
		 */
		capdir_room(&r->cd, sizeof(hdr) + sizeof(in) +
			    sizeof(struct capture_end));
	}
	r->file_records = 0;
	r->fbytes = r->fgood = 0;
	/* a delta sample needs its ring's previous sample in its file */
	deltas_new_file(&r->deltas);
	capture_hdr_init(&hdr, r->abi, start);
	tool_hdr(r, &in.hdr, CAPTURE_REC_INFO, sizeof(in));
	in.realtime_ns = wall;
	in.freq_hz = r->hz;
	in.tgid = r->o->tgid;
	sb_add(&r->pend, &hdr, sizeof(hdr));
	sb_add(&r->pend, &in, sizeof(in));
	return flush(r);
}

static void end_record(struct rec *r, const struct stackid_stats *st,
		       struct capture_end *e)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	tool_hdr(r, &e->hdr, CAPTURE_REC_END, sizeof(*e));
	e->end_ns = now_ns();
	e->nr = st->nr > STACKID_STATS_MAX ? STACKID_STATS_MAX : st->nr;
	for (i = 0; i < e->nr; i++)
		e->counters[i] = st->counters[i] - r->prev.counters[i];
	r->prev = *st;
}

int rec_end_file(struct rec *r, const struct stackid_stats *st)
{
	struct capture_end e;
	int ret = flush(r);

	end_record(r, st, &e);
	if (!ret)
		ret = rec_write_all(r, &e, sizeof(e));
	if (!ret && r->rotating)
		ret = capdir_close(&r->cd);
	return ret;
}

int rec_next_file(struct rec *r)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	int ret = flush(r);

	if (!ret)
		ret = rec_xioctl(r, STACKID_IOC_GET_STATS, &st, "GET_STATS");
	if (!ret)
		ret = rec_end_file(r, &st);
	if (!ret)
		ret = rec_begin_file(r, now_ns(), realtime_ns());
	return ret;
}

/* Room in the bound for what is pending, @n bytes more and END. */
static bool room(struct rec *r, size_t n)
{
	return capdir_room(&r->cd, r->pend.len + r->pre.len + n +
			   sizeof(struct capture_end));
}

#define PEND_FLUSH	(256u << 10)

/*
 * A sample's record as written into the capture: a delta sample as it
 * came (@rec) if the file holds the sample before it in its ring, else
 * the whole sample it stands for (@full); any other record as it came.
 */
static const void *as_written(struct rec *r, const void *rec,
			      const void *full)
{
	const struct stackid_sample *s = full;

	if (rec != full && !deltas_in_file(&r->deltas, s->ring))
		return full;
	return rec;
}

/* After the sample @full was written into the file (@in) or lost. */
static void sample_in_file(struct rec *r, const void *full, bool in)
{
	const struct stackid_sample *s = full;

	if (stackid_is_sample(s->hdr.type))
		deltas_set_in_file(&r->deltas, s->ring,
				   in && s->hdr.type == STACKID_REC_SAMPLE_PACKED);
}

/*
 * One whole, checked record (the module's, or CAPTURE_REC_SKIPPED) into
 * the capture; @full: what it stands for (rec_emit(): deltas.h), else
 * @rec. Continuous mode: after what it needs (rec_replay.c), and within
 * the bound: a file with records of its own is closed to make room, and
 * a record that does not fit even an empty file is lost.
 */
static int put(struct rec *r, const void *rec, const void *full)
{
	const struct stackid_record_hdr *h = rec;
	uint16_t major = r->abi >> 16;
	size_t sz;
	int ret;

	rec = as_written(r, rec, full);
	sz = ((const struct stackid_record_hdr *)rec)->size;
	if (r->rotating) {
		sb_reset(&r->pre);
		replay_need(&r->rp, full, &r->pre, false, major);
		if (!room(r, sz) && r->file_records) {
			ret = rec_next_file(r);
			if (ret)
				return ret;
			rec = as_written(r, rec, full);
			sz = ((const struct stackid_record_hdr *)rec)->size;
			sb_reset(&r->pre);
			replay_need(&r->rp, full, &r->pre, false, major);
		}
		if (!room(r, sz)) {
			replay_take(&r->rp, full, false);
			sample_in_file(r, full, false);
			r->lost++;
			sb_reset(&r->pre);
			return 0;
		}
		if (r->pre.len) {
			sb_reset(&r->pre);
			replay_need(&r->rp, full, &r->pre, true, major);
			sb_add(&r->pend, r->pre.buf, r->pre.len);
			sb_reset(&r->pre);
		}
		replay_take(&r->rp, full, true);
	}
	sample_in_file(r, full, true);
	sb_add(&r->pend, rec, sz);
	r->file_records++;
	if (h->type < CAPTURE_REC_FIRST)
		count(r, h);
	return r->pend.len >= PEND_FLUSH ? flush(r) : 0;
}

int rec_skipped(struct rec *r, uint32_t ring, uint64_t bytes, uint32_t flags,
		const char *why)
{
	struct capture_skipped s = { .ring = ring, .flags = flags,
				     .bytes = bytes };
	int ret;

	r->skipped += bytes;
	r->skips++;
	/* what follows may be a delta on a sample that was skipped */
	if (ring != CAPTURE_SKIP_NO_RING)
		deltas_forget(&r->deltas, ring);
	else
		deltas_forget_all(&r->deltas);
	if (flags & CAPTURE_SKIP_BY_MODULE)
		r->skips_module++;
	if (!r->skip_warned) {
		if (ring != CAPTURE_SKIP_NO_RING)
			fprintf(r->err, "stackid: warning: ring %u: ", ring);
		else
			fprintf(r->err, "stackid: warning: ");
		if (flags & CAPTURE_SKIP_BY_MODULE)
			fprintf(r->err, "%s: the module skipped the data; ",
				why);
		else
			fprintf(r->err, "%s: %" PRIu64 " bytes skipped; ",
				why, bytes);
		fprintf(r->err, "recording goes on (counted at the end)\n");
		r->skip_warned = true;
	}
	tool_hdr(r, &s.hdr, CAPTURE_REC_SKIPPED, sizeof(s));
	ret = put(r, &s, &s);
	return ret ? ret : flush(r);
}

/*
 * A delta sample that could not be rebuilt (its ring's previous sample
 * was skipped as bad data) up to its ring's next whole sample: a good
 * sample, lost; marked in the capture, counted apart from bad data, and
 * warned about once.
 */
static int delta_lost(struct rec *r, const void *rec, size_t sz,
		      const char *why)
{
	const struct stackid_sample_delta *d = rec;
	struct capture_skipped s = { .ring = d->ring,
				     .flags = CAPTURE_SKIP_DELTA,
				     .bytes = sz };

	r->deltas_lost++;
	if (!r->delta_warned) {
		fprintf(r->err, "stackid: warning: ring %u: %s: samples lost "
			"up to its next whole sample; recording goes on "
			"(counted at the end)\n", d->ring, why);
		r->delta_warned = true;
	}
	tool_hdr(r, &s.hdr, CAPTURE_REC_SKIPPED, sizeof(s));
	return put(r, &s, &s);
}

/* The size of the record at @p if its header frames one in @n, else 0. */
static size_t framed(const unsigned char *p, size_t n)
{
	struct stackid_record_hdr h;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > STACKID_RECORD_MAX ||
	    h.size > n)
		return 0;
	return h.size;
}

int rec_emit(struct rec *r, const unsigned char *p, size_t n)
{
	const struct stackid_record_hdr *h;
	const void *full;
	const char *why;
	size_t off = 0, skip;
	long sz;
	int ret;

	while (off < n) {
		why = "a record split";
		sz = stackid_record_check_why(p + off, n - off, &why);
		h = (const void *)(p + off);
		if (sz > 0 && h->abi_major != r->abi >> 16) {
			why = "a record of another ABI";
			sz = -1;
		} else if (sz > 0 && h->type >= CAPTURE_REC_FIRST) {
			why = "a record of the command's own type";
			sz = -1;
		}
		if (sz <= 0) {
			/* the next record if this one's size is sane */
			skip = framed(p + off, n - off);
			if (!skip)
				skip = n - off;
			ret = rec_skipped(r, CAPTURE_SKIP_NO_RING, skip, 0,
					  why);
			if (ret)
				return ret;
			off += skip;
			continue;
		}
		full = deltas_take(&r->deltas, p + off, &why);
		if (!full) {
			ret = delta_lost(r, p + off, sz, why);
			if (ret)
				return ret;
			off += sz;
			continue;
		}
		ret = put(r, p + off, full);
		if (ret)
			return ret;
		if (h->type == STACKID_REC_BUILD_ID_PATH)
			rec_unwind_note(r, p + off);
		off += sz;
	}
	return flush(r);
}

/* Count the records of @n bytes as stale. */
void rec_count_stale(struct rec *r, const unsigned char *p, size_t n)
{
	size_t off;
	long sz;

	deltas_forget_all(&r->deltas);
	for (off = 0; off < n; off += sz) {
		sz = stackid_record_check(p + off, n - off);
		if (sz <= 0)
			break;
		r->stale++;
	}
}

/* write() all of @n bytes or fail, quietly. */
static bool write_quiet(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;
	ssize_t w;

	while (n) {
		w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= w;
	}
	return true;
}

void rec_keep_on_error(struct rec *r)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	int fd = out_fd(r);
	struct capture_end e;
	struct stat sb;

	sb_reset(&r->pend);
	if (r->rotating && fd >= 0 && !r->fgood) {
		capdir_discard(&r->cd);		/* not even a header */
		return;
	}
	if (fd < 0 || (!r->rotating && fd == STDOUT_FILENO) ||
	    fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !r->fgood)
		return;
	/* a record cut by the error goes; END if it fits */
	if (ftruncate(fd, r->fgood) == 0) {
		r->fbytes = r->cd.cur = r->fgood;
		if (r->ops->ioctl(r->fd, STACKID_IOC_GET_STATS, &st) == 0) {
			end_record(r, &st, &e);
			if (write_quiet(fd, &e, sizeof(e)))
				r->cd.cur += sizeof(e);
			else if (ftruncate(fd, r->fgood))
				return;
		}
	}
	if (!r->rotating) {
		fprintf(r->err, "stackid: %s: what was written before the "
			"error is kept, as a capture\n", r->out_name);
		return;
	}
	if (capdir_close(&r->cd) == 0)
		fprintf(r->err, "stackid: %s: what was written before the "
			"error is kept, as a capture (%" PRIu64 " bytes)\n",
			r->cd.final, r->cd.sizes[r->cd.n - 1]);
}

void rec_file_free(struct rec *r)
{
	sb_free(&r->pend);
	sb_free(&r->pre);
	replay_free(&r->rp);
	deltas_free(&r->deltas);
}
