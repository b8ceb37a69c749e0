// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the capture reader and the report formats
 * (src/tool/capture.c, report.c, text.c, folded.c, render.c, and the
 * record checks of src/record.c): the input is a capture file.
 *
 *	make fuzz FUZZ_TIME=60        (see src/tool/Makefile.frag)
 *
 * Each input is reported as text and as folded stacks, without symbols
 * (no file is opened), and, beyond the sanitizers, it checks that:
 *  - every record the reader returns passes stackid_record_check(), lies
 *    after the previous one, 8-aligned, within the input;
 *  - both formats end with the same status and message as a plain walk;
 *  - the folded counts add up to the number of samples walked;
 *  - an error names a byte offset inside the input;
 *  - text and folded output are clean (valid UTF-8, no controls but \n
 *    and \t: name_char_len()), and the SVG's script holds no "]]>"
 *    before its end.
 *
 * The walk keeps the rings' tables (bidtab.c) as decode.c does, so that
 * a frame whose index no record defined is the error both expect, not a
 * difference (before issue 19 the harness aborted there, after a few
 * executions).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tool/bidtab.h"
#include "tool/deltas.h"
#include "tool/tool.h"
#include "tool/capture.h"
#include "tool/report.h"

static FILE *devnull;

struct walk {
	int status;
	uint64_t samples;
	char err[256];
};

/*
 * An ABI 2 sample naming an index its ring's tables do not hold: the
 * error decode.c reports, in *@w. True if so.
 */
static bool undefined(const struct bidtab *t, const struct stackid_sample *s,
		      uint64_t off, struct walk *w)
{
	struct stackid_frame fb;
	unsigned int i;

	for (i = 0; i < s->nr_frames; i++) {
		const struct stackid_frame *f = &fb;

		stackid_sample_frame(s, i, &fb);
		if (f->status == STACKID_FRAME_KERNEL && f->bid &&
		    !bidtab_get_ksym(t, s->ring, f->bid))
			snprintf(w->err, sizeof(w->err), "record at byte %"
				 PRIu64 ": kernel symbol index %u of ring %u "
				 "is defined by no record before it", off,
				 f->bid, s->ring);
		else if (f->status == STACKID_FRAME_VALID &&
			 !bidtab_get(t, s->ring, f->bid))
			snprintf(w->err, sizeof(w->err), "record at byte %"
				 PRIu64 ": build-id index %u of ring %u is "
				 "defined by no record before it", off, f->bid,
				 s->ring);
		else
			continue;
		w->status = EXIT_DATA;
		return true;
	}
	return false;
}

static void walk(const uint8_t *data, size_t size, struct walk *w)
{
	static struct capture c;
	static struct deltas dl;
	struct bidtab t = { 0 };
	const void *rec;
	uint64_t off, prev = 0;
	int r;

	memset(w, 0, sizeof(*w));
	r = capture_open_mem(&c, data, size, "fuzz");
	if (r) {
		w->status = r;
		snprintf(w->err, sizeof(w->err), "%s", c.err);
		capture_close(&c);
		return;
	}
	while ((r = capture_next(&c, &rec, &off)) > 0) {
		const struct stackid_record_hdr *h = rec;

		if (off < sizeof(struct capture_hdr) || off % 8 ||
		    (prev && off <= prev) || off + h->size > size ||
		    stackid_record_check_abi(rec, h->size,
					     c.hdr.abi_version >> 16,
					     NULL) != h->size ||
		    (uintptr_t)rec % 8)
			abort();
		prev = off;
		if (h->abi_major != STACKID1_ABI_MAJOR &&
		    h->type < CAPTURE_REC_FIRST) {
			const char *why = NULL;

			/* a delta sample: the sample it stands for */
			rec = deltas_take(&dl, rec, &why);
			if (!rec) {
				w->status = EXIT_DATA;
				snprintf(w->err, sizeof(w->err), "record at "
					 "byte %" PRIu64 ": %s", off, why);
				r = -EXIT_DATA;
				break;
			}
			h = rec;
		}
		if (h->abi_major != STACKID1_ABI_MAJOR && bidtab_take(&t, h))
			continue;
		/* ABI 1 had no packed samples: those are skipped */
		if (h->abi_major == STACKID1_ABI_MAJOR ?
		    h->type != STACKID_REC_SAMPLE : !stackid_is_sample(h->type))
			continue;
		if (h->abi_major != STACKID1_ABI_MAJOR && undefined(&t, rec, off,
								   w)) {
			r = -EXIT_DATA;
			break;
		}
		w->samples++;
	}
	bidtab_free(&t);
	deltas_free(&dl);
	if (r < 0 && w->status) {
		/* an undefined index: w->err says it */
	} else if (r < 0) {
		const char *at = strstr(c.err, "at byte ");
		unsigned long long b;

		w->status = -r;
		if (r != -EXIT_DATA || !at ||
		    sscanf(at, "at byte %llu", &b) != 1 || b >= size)
			abort();
		snprintf(w->err, sizeof(w->err), "%s", c.err);
	}
	capture_close(&c);
}

/* Valid UTF-8 without controls but \n and \t. */
static void clean_text(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k;

	for (i = 0; i < n; i += k) {
		k = name_char_len(p + i, n - i);
		if (!k && p[i] != '\n' && p[i] != '\t')
			abort();
		if (!k)
			k = 1;
	}
}

/* Sum of the counts that end the lines of folded output. */
static uint64_t folded_sum(const char *s, size_t n)
{
	uint64_t sum = 0;
	const char *nl, *sp;

	while (n) {
		nl = memchr(s, '\n', n);
		if (!nl)
			abort();
		for (sp = nl; sp > s && sp[-1] != ' '; sp--)
			;
		if (sp == s)
			abort();
		sum += strtoull(sp, NULL, 10);
		n -= nl + 1 - s;
		s = nl + 1;
	}
	return sum;
}

static void report(const uint8_t *data, size_t size, enum report_format fmt,
		   const struct walk *w)
{
	static struct capture c;
	struct report_opts o = { .format = fmt };
	char *buf = NULL, *ebuf = NULL, want[300];
	size_t len = 0, elen = 0;
	FILE *out = fmt != FORMAT_PPROF ? open_memstream(&buf, &len) :
					  devnull;
	FILE *err = open_memstream(&ebuf, &elen);
	bool opened;
	int r;

	if (!out || !err)
		abort();
	r = capture_open_mem(&c, data, size, "fuzz");
	opened = !r;
	if (opened)
		r = report_run(&c, &o, out, err);
	else
		fprintf(err, "stackid: fuzz: %s\n", c.err);
	capture_close(&c);
	fclose(err);
	if (r != w->status)
		abort();
	snprintf(want, sizeof(want), "stackid: fuzz: %s\n", w->err);
	if (strcmp(ebuf, r ? want : ""))
		abort();
	if (fmt != FORMAT_PPROF) {
		const char *cdata;

		fclose(out);
		clean_text(buf, len);
		if (fmt == FORMAT_FOLDED &&
		    (!w->status || w->status == EXIT_DATA) &&
		    folded_sum(buf, len) != w->samples)
			abort();
		/* one CDATA section, ended by the script's own "]]>" */
		cdata = fmt == FORMAT_SVG ? strstr(buf, "<![CDATA[") : NULL;
		if (fmt == FORMAT_SVG && opened &&
		    (!cdata || strstr(cdata, "]]>") != strstr(buf,
							     "]]></script>")))
			abort();
		free(buf);
	}
	free(ebuf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	walk(data, size, &w);
	report(data, size, FORMAT_TEXT, &w);
	report(data, size, FORMAT_FOLDED, &w);
	/* the pprof encoder and the flame graph's tree on the same input */
	report(data, size, FORMAT_PPROF, &w);
	report(data, size, FORMAT_SVG, &w);
	return 0;
}
