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
 *  - an error names a byte offset inside the input.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "tool/tool.h"
#include "tool/capture.h"
#include "tool/report.h"

static FILE *devnull;

struct walk {
	int status;
	uint64_t samples;
	char err[256];
};

static void walk(const uint8_t *data, size_t size, struct walk *w)
{
	static struct capture c;
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
		    stackid_record_check(rec, h->size) != h->size ||
		    (uintptr_t)rec % 8)
			abort();
		prev = off;
		if (h->type == STACKID_REC_SAMPLE)
			w->samples++;
	}
	if (r < 0) {
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
	FILE *out = fmt == FORMAT_FOLDED ? open_memstream(&buf, &len) :
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
	if (fmt == FORMAT_FOLDED) {
		fclose(out);
		if ((!w->status || w->status == EXIT_DATA) &&
		    folded_sum(buf, len) != w->samples)
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
