// SPDX-License-Identifier: GPL-2.0
/*
 * `stackid record`, the file side: the capture's header, INFO and END
 * records, the records read from the device written on, and in
 * continuous mode the files of the capture directory (capdir.c) with
 * what each new one must start with so that it reads alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "bidtab.h"
#include "tool.h"
#include "capdir.h"
#include "capture.h"
#include "rec.h"
#include "util.h"

int rec_open_output(struct rec *r)
{
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
	r->out = open(r->o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);
	if (r->out < 0) {
		fprintf(r->err, "stackid: %s: %s\n", r->o->out,
			strerror(errno));
		return EXIT_SYSTEM;
	}
	return 0;
}

int rec_write_all(struct rec *r, const void *p, size_t n)
{
	const unsigned char *b = p;
	ssize_t w;

	while (n) {
		w = write(r->rotating ? r->cd.fd : r->out, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(r->err, "stackid: writing %s: %s\n",
				r->out_name, strerror(errno));
			return EXIT_SYSTEM;
		}
		b += w;
		n -= w;
		r->bytes += w;
		r->cd.cur += w;
	}
	return 0;
}

/* Count the records of one read(); warn once about a malformed one. */
static void count(struct rec *r, const unsigned char *p, size_t n)
{
	const struct stackid_record_hdr *h;
	const char *why = "split record";
	size_t off = 0;
	long sz;

	while (off < n) {
		sz = stackid_record_check_why(p + off, n - off, &why);
		if (sz <= 0) {
			if (!r->warned)
				fprintf(r->err, "stackid: warning: the device "
					"returned a bad record (%s); the "
					"capture will not read back\n", why);
			r->warned = true;
			return;
		}
		h = (const void *)(p + off);
		r->records++;
		if (h->type == STACKID_REC_SAMPLE)
			r->samples++;
		else if (h->type == STACKID_REC_BUILD_ID_PATH)
			r->paths++;
		else if (h->type == STACKID_REC_BUILD_ID)
			r->nbids++;
		off += sz;
	}
}

static void tool_hdr(struct rec *r, struct stackid_record_hdr *h,
		     uint16_t type, uint32_t size)
{
	h->size = size;
	h->type = type;
	h->abi_major = r->abi >> 16;
}

/* Header, INFO and (continuous mode) the path records seen so far. */
int rec_begin_file(struct rec *r, uint64_t start, uint64_t wall)
{
	struct capture_info in = { .seq = r->seq++, .run_id = r->run_id };
	struct capture_hdr hdr;
	int ret;

	if (r->rotating) {
		ret = capdir_create(&r->cd, wall);
		if (ret)
			return ret;
		if (!capdir_room(&r->cd, sizeof(hdr) + sizeof(in) +
				 r->replay.len + sizeof(struct capture_end)))
			fprintf(r->err, "stackid: warning: --max-size is "
				"smaller than a file's header and paths\n");
	}
	r->file_records = 0;
	capture_hdr_init(&hdr, r->abi, start);
	tool_hdr(r, &in.hdr, CAPTURE_REC_INFO, sizeof(in));
	in.realtime_ns = wall;
	in.freq_hz = r->hz;
	in.tgid = r->o->tgid;
	ret = rec_write_all(r, &hdr, sizeof(hdr));
	if (!ret)
		ret = rec_write_all(r, &in, sizeof(in));
	if (!ret && r->replay.len)
		ret = rec_write_all(r, r->replay.buf, r->replay.len);
	if (!ret && r->rotating && r->bids.nrings) {
		struct strbuf t = { 0 };

		bidtab_replay(&r->bids, &t, r->abi >> 16);
		if (t.len)
			ret = rec_write_all(r, t.buf, t.len);
		sb_free(&t);
	}
	return ret;
}

/* END with the counters' delta since the last END; close (continuous). */
int rec_end_file(struct rec *r, const struct stackid_stats *st)
{
	struct capture_end e = { .end_ns = now_ns(), .nr = st->nr };
	unsigned int i;
	int ret;

	tool_hdr(r, &e.hdr, CAPTURE_REC_END, sizeof(e));
	if (e.nr > STACKID_STATS_MAX)
		e.nr = STACKID_STATS_MAX;
	for (i = 0; i < e.nr; i++)
		e.counters[i] = st->counters[i] - r->prev.counters[i];
	r->prev = *st;
	ret = rec_write_all(r, &e, sizeof(e));
	if (!ret && r->rotating)
		ret = capdir_close(&r->cd);
	return ret;
}

/* Continuous mode: close this file and start the next, now. */
int rec_next_file(struct rec *r)
{
	struct stackid_stats st = { .cpu = STACKID_ALL_CPUS };
	int ret = rec_xioctl(r, STACKID_IOC_GET_STATS, &st, "GET_STATS");

	if (!ret)
		ret = rec_end_file(r, &st);
	if (!ret)
		ret = rec_begin_file(r, now_ns(), realtime_ns());
	return ret;
}

/*
 * Keep the path and cgroup records of @n bytes of records, and the
 * rings' table state, for the next files.
 */
static void keep_paths(struct rec *r, const unsigned char *p, size_t n)
{
	const struct stackid_record_hdr *h;
	unsigned int before;
	size_t off;

	for (off = 0; off < n; off += h->size) {
		h = (const void *)(p + off);
		if (stackid_record_check(p + off, n - off) <= 0)
			return;
		if (bidtab_take(&r->bids, h))
			continue;
		if (h->type != STACKID_REC_BUILD_ID_PATH &&
		    h->type != STACKID_REC_CGROUP)
			continue;
		before = r->seen.n;
		intern_bytes(&r->seen, h, h->size);
		if (r->seen.n != before)
			sb_add(&r->replay, h, h->size);
	}
}

/* Records read from the device, into the capture within the bound. */
int rec_emit(struct rec *r, const unsigned char *p, size_t n)
{
	size_t need = n + sizeof(struct capture_end), off;
	long sz;
	int ret;

	if (r->rotating) {
		/*
		 * A new file starts with the tables as these records find
		 * them: taken in after, or an epoch among them would leave
		 * the records before it to the next epoch's indexes.
		 */
		if (!capdir_room(&r->cd, need) && r->file_records) {
			ret = rec_next_file(r);
			if (ret)
				return ret;
		}
		keep_paths(r, p, n);
		if (!capdir_room(&r->cd, need)) {
			for (off = 0; off < n; off += sz) {
				sz = stackid_record_check(p + off, n - off);
				if (sz <= 0)
					break;
				r->lost++;
			}
			return 0;
		}
	}
	count(r, p, n);
	r->file_records++;
	return rec_write_all(r, p, n);
}

/* Count the records of @n bytes as stale. */
void rec_count_stale(struct rec *r, const unsigned char *p, size_t n)
{
	size_t off;
	long sz;

	for (off = 0; off < n; off += sz) {
		sz = stackid_record_check(p + off, n - off);
		if (sz <= 0)
			break;
		r->stale++;
	}
}
